"""The models: documented messages decode, defaults fill in, encoding keeps the wire shape."""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine
from protocol import (
    CLIENT_ADAPTER,
    ERROR_CODES,
    SERVER_ADAPTER,
    Cancelled,
    ClientMessage,
    CreateRoom,
    DecodeError,
    Error,
    GameOver,
    GameState,
    Hello,
    JoinRoom,
    Play,
    Played,
    Rules,
    Seek,
    Seeking,
    ServerMessage,
    Watch,
    decode,
    decode_server,
    encode,
    encode_bytes,
)

from .samples import (
    CLIENT_EXAMPLES,
    DOC_CLIENT_TYPES,
    DOC_ERROR_CODES,
    DOC_RULES,
    DOC_SERVER_TYPES,
    sample_boards,
    server_samples,
)


def types_of(union: Any) -> set[str]:
    return {model.model_fields["type"].default for model in get_args(get_args(union)[0])}


def test_message_types_are_those_of_the_protocol() -> None:
    assert types_of(ClientMessage) == DOC_CLIENT_TYPES
    assert types_of(ServerMessage) == DOC_SERVER_TYPES
    assert set(ERROR_CODES) == DOC_ERROR_CODES
    assert len(ERROR_CODES) == len(DOC_ERROR_CODES)


@pytest.mark.parametrize("frame", CLIENT_EXAMPLES)
def test_documented_client_messages_decode(frame: str) -> None:
    message = decode(frame)
    assert message.type == json.loads(frame)["type"]
    # The discriminated union agrees with the codec's own type lookup.
    assert CLIENT_ADAPTER.validate_json(frame) == message
    assert decode(encode(message)) == message


def test_every_client_type_has_an_example() -> None:
    assert {json.loads(frame)["type"] for frame in CLIENT_EXAMPLES} == DOC_CLIENT_TYPES


def test_documented_rules_are_the_defaults() -> None:
    assert Rules.model_validate(json.loads(DOC_RULES), strict=True) == Rules()
    assert json.loads(Rules().model_dump_json()) == json.loads(DOC_RULES)


def test_defaults_are_filled_in() -> None:
    seek = decode('{"type":"seek"}')
    assert isinstance(seek, Seek)
    assert seek.rules == Rules()
    assert decode(f'{{"type":"seek","rules":{DOC_RULES}}}') == seek
    partial = decode('{"type":"seek","rules":{"redeals":1}}')
    assert partial == Seek(rules=Rules(redeals=1))
    hello = decode('{"type":"hello","name":"bob"}')
    assert hello == Hello(name="bob", token=None, protocol=None, id=None)


def test_hello_leaves_name_and_protocol_checks_to_the_server() -> None:
    # bad_name and unsupported_protocol are the server's errors, not the decoder's.
    assert decode('{"type":"hello","name":""}') == Hello(name="")
    assert decode('{"type":"hello","name":"no spaces allowed!"}') == Hello(
        name="no spaces allowed!"
    )
    assert decode('{"type":"hello","name":"x","protocol":2}') == Hello(name="x", protocol=2)


@pytest.mark.parametrize("code", [str(card) for card in engine.CARDS])
def test_every_card_code_is_a_card(code: str) -> None:
    assert decode(json.dumps({"type": "play", "card": code})) == Play(card=code)


# -- unknown fields ------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
KNOWN_KEYS = {
    "type",
    "id",
    "name",
    "token",
    "protocol",
    "rules",
    "public",
    "code",
    "card",
    "game_id",
}


@given(
    frame=st.sampled_from(CLIENT_EXAMPLES),
    extra=st.dictionaries(st.text().filter(lambda key: key not in KNOWN_KEYS), JSON_VALUES),
)
def test_unknown_fields_are_ignored(frame: str, extra: dict[str, Any]) -> None:
    obj = json.loads(frame)
    assert decode(json.dumps({**extra, **obj})) == decode(frame)


@given(
    extra=st.dictionaries(st.text().filter(lambda key: key not in Rules.model_fields), JSON_VALUES)
)
def test_unknown_rules_fields_are_ignored(extra: dict[str, Any]) -> None:
    assert decode(json.dumps({"type": "seek", "rules": extra})) == Seek()


RULES = st.builds(
    Rules,
    deal=st.sampled_from(["independent", "mirror"]),
    winnable_only=st.booleans(),
    redeals=st.integers(0, 1),
    tiebreak=st.sampled_from(["draw", "first"]),
    time_limit_s=st.none() | st.integers(30, 3600),
)
REQUEST_IDS = st.none() | st.integers() | st.text(max_size=64)


@given(
    rules=RULES,
    request_id=REQUEST_IDS,
    public=st.booleans(),
    card=st.sampled_from(engine.CARDS),
    text=st.text(),
)
def test_client_messages_round_trip(
    rules: Rules, request_id: str | int | None, public: bool, card: engine.Card, text: str
) -> None:
    messages: list[ClientMessage] = [
        Hello(name=text, token=text, protocol=1, id=request_id),
        Seek(rules=rules, id=request_id),
        CreateRoom(rules=rules, public=public, id=request_id),
        JoinRoom(code=text, id=request_id),
        Play(card=str(card), id=request_id),
        Watch(game_id=text, id=request_id),
    ]
    for message in messages:
        assert decode(encode(message)) == message


# -- server messages -------------------------------------------------------------


def test_every_server_type_has_a_sample() -> None:
    assert {message.type for message in server_samples()} == DOC_SERVER_TYPES


@pytest.mark.parametrize("message", server_samples(), ids=lambda message: message.type)
def test_server_messages_round_trip(message: ServerMessage) -> None:
    frame = encode(message)
    assert decode_server(frame) == message
    assert decode_server(frame.encode()) == message
    assert SERVER_ADAPTER.validate_json(frame) == message


@pytest.mark.parametrize("message", server_samples(), ids=lambda message: message.type)
def test_encode_bytes_is_encode_in_utf8(message: ServerMessage) -> None:
    assert encode_bytes(message) == encode(message).encode()
    with_id = message.model_copy(update={"id": "r-1"})
    assert encode_bytes(with_id) == encode(with_id).encode()


# -- encoding --------------------------------------------------------------------


def wire(message: ServerMessage | ClientMessage) -> dict[str, Any]:
    obj: dict[str, Any] = json.loads(encode(message))
    return obj


def test_encoding_is_compact() -> None:
    for message in server_samples():
        frame = encode(message)
        assert frame == json.dumps(json.loads(frame), separators=(",", ":"), ensure_ascii=False)
        assert ", " not in frame
        assert ": " not in frame


def test_played_says_from_and_bed() -> None:
    from_bouquet = wire(
        Played(
            game_id="g",
            seat=0,
            card="AS",
            from_="bouquet",
            bed=None,
            count=1,
            status="playing",
            t_ms=10,
            seq=1,
        )
    )
    assert from_bouquet["from"] == "bouquet"
    assert "from_" not in from_bouquet
    assert "bed" in from_bouquet
    assert from_bouquet["bed"] is None
    from_bed = wire(
        Played(
            game_id="g",
            seat=0,
            card="2S",
            from_="bed",
            bed=0,
            count=2,
            status="stuck",
            t_ms=9,
            seq=2,
        )
    )
    assert (from_bed["from"], from_bed["bed"]) == ("bed", 0)


def test_id_is_left_out_only_when_none() -> None:
    assert "id" not in wire(Cancelled())
    assert wire(Cancelled(id=0))["id"] == 0
    assert wire(Cancelled(id=""))["id"] == ""
    assert wire(Error(code="busy", message="m", id="r1")) == {
        "type": "error",
        "id": "r1",
        "code": "busy",
        "message": "m",
    }
    assert "id" not in wire(Play(card="QH"))


STATE: dict[str, Any] = {
    "players": ["a", "b"],
    "bots": [False, False],
    "ratings": [None, None],
    "commits": ["0" * 64] * 2,
    "elapsed_ms": 0,
    "clock_left_ms": None,
    "seq": 0,
}


def test_spectator_game_state_has_no_seat() -> None:
    boards = sample_boards()
    spectator = wire(GameState(game_id="g", rules=Rules(), boards=boards, over=None, **STATE))
    assert "seat" not in spectator
    assert spectator["over"] is None
    player = wire(GameState(game_id="g", seat=0, rules=Rules(), boards=boards, over=None, **STATE))
    assert player["seat"] == 0


def test_nulls_that_stay_on_the_wire() -> None:
    draw = wire(
        GameOver(
            game_id="g",
            result="draw",
            winner=None,
            reason="equal_cards",
            counts=[0, 0],
            times_ms=[None, None],
            seeds=["0" * 64] * 2,
            ratings=None,
            seq=0,
        )
    )
    assert "winner" in draw
    assert draw["winner"] is None
    assert draw["times_ms"] == [None, None]
    assert draw["ratings"] is None
    assert wire(Seeking(rules=Rules()))["rules"]["time_limit_s"] is None
    # The game_over inside a game_state is the game_over message, without an id.
    over = GameOver(
        game_id="g",
        result="win",
        winner=0,
        reason="cleared",
        counts=[52, 3],
        times_ms=[60_000, 2_000],
        seeds=["0" * 64] * 2,
        ratings=None,
        seq=9,
    )
    state = wire(GameState(game_id="g", rules=Rules(), boards=sample_boards(), over=over, **STATE))
    assert state["over"] == wire(over)
    assert state["clock_left_ms"] is None
    assert "id" not in state["over"]


def test_models_are_frozen() -> None:
    message = Play(card="QH")
    with pytest.raises(ValueError, match="frozen"):
        message.card = "KH"  # type: ignore[misc]


def test_only_a_speed_race_may_be_rated() -> None:
    assert Rules(deal="mirror", winnable_only=True, rated=True).rated
    for rules in (
        {"rated": True},
        {"rated": True, "deal": "mirror"},
        {"rated": True, "winnable_only": True},
    ):
        with pytest.raises(DecodeError) as refused:
            decode(json.dumps({"type": "seek", "rules": rules}))
        assert refused.value.code == "bad_message"
    assert decode('{"type": "seek", "rules": {"rated": false}}') == Seek(rules=Rules())
