"""The decoder's errors, their order and their ids; the decoder never raises anything else.
And ``played_frame``, which the server uses instead of a model, writes the model's frame."""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import (
    GAME_ID_PATTERN,
    BoardStatus,
    DecodeError,
    Error,
    Hello,
    LobbyRequest,
    Play,
    Played,
    decode,
    decode_server,
    encode,
    encode_bytes,
    played_frame,
)
from protocol.codec import _CARD_CODES, MAX_DEPTH


def decode_error(frame: str | bytes) -> DecodeError:
    with pytest.raises(DecodeError) as info:
        decode(frame)
    return info.value


@pytest.mark.parametrize(
    "frame",
    ["{not json", "", "   ", b"\xff", '{"type":"lobby"', '{"type":"lobby"} x', "{'type':'lobby'}"],
)
def test_not_json_is_bad_json(frame: str | bytes) -> None:
    error = decode_error(frame)
    assert (error.code, error.id) == ("bad_json", None)


@pytest.mark.parametrize(
    "frame",
    [
        '{"type":"lobby","x":NaN}',
        '{"type":"lobby","x":-Infinity}',
        '{"type":"lobby","x":' + "9" * 5000 + "}",
        "[" * 10_000 + "]" * 10_000,
        # A lone surrogate parses in Python but cannot be sent back as UTF-8.
        '{"type":"lobby","id":"\\ud800"}',
        '{"type":"hello","name":"a\\udc00b"}',
    ],
    ids=["nan", "infinity", "huge-number", "deep", "lone-surrogate-id", "lone-surrogate-name"],
)
def test_what_python_reads_but_json_is_not_is_bad_json(frame: str) -> None:
    assert decode_error(frame).code == "bad_json"


def _nested(depth: int) -> str:
    """A lobby request whose ignored field nests arrays so that the frame is ``depth`` deep."""
    return '{"type":"lobby","x":' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


def test_nesting_up_to_the_limit_is_read_and_deeper_is_bad_json() -> None:
    assert decode(_nested(MAX_DEPTH)).type == "lobby"
    for depth in (MAX_DEPTH + 1, 900, 1000, 5000):  # either side of the parser's own limit
        assert decode_error(_nested(depth)).code == "bad_json"
        assert decode_error(_nested(depth)).message == "not JSON: nested too deeply"


def test_brackets_in_strings_are_not_nesting() -> None:
    assert decode('{"type":"lobby","x":"' + "[{" * 100 + '\\"[["}').type == "lobby"


def test_escaped_unicode_is_fine() -> None:
    message = decode('{"type":"lobby","id":"\\ud83c\\udf37 \\u00e9"}')
    assert message.id == "\U0001f337 é"
    assert decode('{"type":"lobby","id":"🌷"}'.encode()).id == "🌷"


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        ("[]", "a message must be a JSON object"),
        ("[1]", "a message must be a JSON object"),
        ('"x"', "a message must be a JSON object"),
        ("null", "a message must be a JSON object"),
        ("{}", "type: required"),
        ('{"type":5}', "type: must be a string"),
        ('{"type":null}', "type: must be a string"),
        ('{"type":"play"}', "card: required"),
        ('{"type":"play","card":"ZZ"}', "card: not a card code 'ZZ'"),
        ('{"type":"play","card":"qh"}', "card: not a card code 'qh'"),
        ('{"type":"play","card":"10H"}', "card: not a card code '10H'"),
        ('{"type":"play","card":"QH\\n"}', "card: not a card code 'QH\\n'"),
        ('{"type":"play","card":5}', "card: must be a string"),
        ('{"type":"seek","rules":{"redeals":2}}', "rules.redeals: must be at most 1"),
        ('{"type":"seek","rules":{"redeals":true}}', "rules.redeals: must be an integer"),
        ('{"type":"seek","rules":{"redeals":"1"}}', "rules.redeals: must be an integer"),
        ('{"type":"seek","rules":{"redeals":1.0}}', "rules.redeals: must be an integer"),
        ('{"type":"seek","rules":{"time_limit_s":10}}', "rules.time_limit_s: must be at least 30"),
        (
            '{"type":"seek","rules":{"time_limit_s":3601}}',
            "rules.time_limit_s: must be at most 3600",
        ),
        ('{"type":"seek","rules":{"deal":"x"}}', "rules.deal: must be 'independent' or 'mirror'"),
        (
            '{"type":"seek","rules":{"winnable_only":1}}',
            "rules.winnable_only: must be true or false",
        ),
        ('{"type":"seek","rules":[]}', "rules: must be an object"),
        ('{"type":"seek","rules":null}', "rules: must be an object"),
        ('{"type":"create_room","public":"yes"}', "public: must be true or false"),
        ('{"type":"hello","name":7}', "name: must be a string"),
        ('{"type":"hello"}', "name: required"),
        ('{"type":"hello","name":"a","protocol":"1"}', "protocol: must be an integer"),
        ('{"type":"hello","name":"a","protocol":true}', "protocol: must be an integer"),
        ('{"type":"join_room","code":1234}', "code: must be a string"),
        ('{"type":"watch"}', "game_id: required"),
    ],
)
def test_malformed_messages_are_bad_message(frame: str, message: str) -> None:
    error = decode_error(frame)
    assert (error.code, error.message) == ("bad_message", message)


@pytest.mark.parametrize("request_id", ["x" * 65, 1.5, 1.0, True, False, [], {}, ["a"]])
def test_an_invalid_id_is_bad_message_without_id(request_id: object) -> None:
    error = decode_error(json.dumps({"type": "lobby", "id": request_id}))
    assert (error.code, error.id) == ("bad_message", None)
    assert error.message.startswith("id: must be a string of at most 64 characters")


@pytest.mark.parametrize("request_id", ["x" * 64, "", 0, -1, 2**70, "é", None])
def test_a_valid_id_is_kept(request_id: str | int | None) -> None:
    assert decode(json.dumps({"type": "lobby", "id": request_id})) == LobbyRequest(id=request_id)


def test_unknown_type() -> None:
    error = decode_error('{"type":"no_such_thing","id":3}')
    assert (error.code, error.id) == ("unknown_type", 3)
    assert error.message == "unknown message type 'no_such_thing'"
    # Server messages are not client messages.
    assert decode_error('{"type":"welcome"}').code == "unknown_type"
    assert decode_error('{"type":"PLAY","card":"QH"}').code == "unknown_type"


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ('{"type":"nope","card":5}', "unknown_type"),  # no fields to check for an unknown type
        ('[{"type":"nope"}]', "bad_message"),  # not an object comes first
        ('{"card":"ZZ"}', "bad_message"),  # no type
        ('{"type":"nope","id":1.5}', "bad_message"),  # id is every message's field
        ('{"type":5,"id":1.5}', "bad_message"),
        ('{"type":"play","card":"ZZ","id":true}', "bad_message"),
    ],
)
def test_checks_come_in_the_documented_order(frame: str, code: str) -> None:
    assert decode_error(frame).code == code


@pytest.mark.parametrize(
    ("frame", "request_id"),
    [
        ('{"type":"nope","id":3}', 3),
        ('{"id":"r1"}', "r1"),
        ('{"type":7,"id":"r2"}', "r2"),
        ('{"type":"play","card":"ZZ","id":"r3"}', "r3"),
        ('{"type":"seek","rules":{"redeals":2},"id":0}', 0),
        ('{"type":"play","card":"ZZ","id":null}', None),
    ],
)
def test_errors_keep_a_valid_id(frame: str, request_id: str | int | None) -> None:
    assert decode_error(frame).id == request_id


def test_a_decode_error_becomes_an_error_reply() -> None:
    error = decode_error('{"type":"play","card":"ZZ","id":"r9"}')
    reply = error.to_error()
    assert reply == Error(code="bad_message", message="card: not a card code 'ZZ'", id="r9")
    assert json.loads(encode(reply)) == {
        "type": "error",
        "id": "r9",
        "code": "bad_message",
        "message": "card: not a card code 'ZZ'",
    }
    assert str(error) == "bad_message: card: not a card code 'ZZ'"


def test_quoted_values_are_cut_short() -> None:
    error = decode_error(json.dumps({"type": "play", "card": "Z" * 3000}))
    assert len(error.message) < 50


def test_bytes_and_str_decode_alike() -> None:
    frame = '{"type":"play","card":"QH","id":"é"}'
    assert decode(frame) == decode(frame.encode()) == Play(card="QH", id="é")


def test_decode_server_reports_like_decode() -> None:
    with pytest.raises(DecodeError) as info:
        decode_server('{"type":"played","id":4}')
    assert (info.value.code, info.value.id) == ("bad_message", 4)
    with pytest.raises(DecodeError) as info:
        decode_server('{"type":"play","card":"QH"}')
    assert info.value.code == "unknown_type"
    with pytest.raises(DecodeError) as info:
        decode_server("{")
    assert info.value.code == "bad_json"


# -- nothing but DecodeError -------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
CLIENT_FIELDS = ["type", "id", "name", "token", "protocol", "rules", "public", "code", "card"]
FIELD_VALUES = JSON_VALUES | st.sampled_from(
    ["hello", "seek", "play", "QH", "ZZ", {"redeals": 1}, {"redeals": 2}, 1, 0, True]
)


def decodes_or_refuses(frame: str | bytes) -> None:
    try:
        message = decode(frame)
    except DecodeError as error:
        assert error.code in {"bad_json", "bad_message", "unknown_type"}
        assert error.id is None or type(error.id) in (str, int)
    else:
        assert decode(encode(message)) == message


@given(st.text() | st.binary())
def test_any_frame_decodes_or_is_refused(frame: str | bytes) -> None:
    decodes_or_refuses(frame)


@given(JSON_VALUES)
def test_any_json_decodes_or_is_refused(value: Any) -> None:
    decodes_or_refuses(json.dumps(value))


@given(st.dictionaries(st.sampled_from(CLIENT_FIELDS), FIELD_VALUES))
def test_any_mix_of_fields_decodes_or_is_refused(obj: dict[str, Any]) -> None:
    decodes_or_refuses(json.dumps(obj))


@given(st.text(min_size=1, max_size=20))
def test_any_name_is_the_servers_to_judge(name: str) -> None:
    assert decode(json.dumps({"type": "hello", "name": name})) == Hello(name=name)


@given(st.text(st.characters(categories=["Cs", "Ll", "Nd"])))
def test_surrogates_never_reach_a_message(text: str) -> None:
    # json.dumps escapes a lone surrogate as \udXXX; decode must refuse it, so
    # that every message it returns can be encoded back to UTF-8.
    decodes_or_refuses(json.dumps({"type": "watch", "game_id": text, "id": text[:64]}))


@given(
    game_id=st.one_of(
        st.text("0123456789abcdef", min_size=16, max_size=16),  # the server's ids
        st.from_regex(GAME_ID_PATTERN, fullmatch=True),  # any id the schema allows
        st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=8),  # any alnum
        st.text(st.characters(exclude_categories=["Cs"]), max_size=20),  # escaped or not
    ),
    seat=st.integers(0, 1),
    card=st.sampled_from(sorted(_CARD_CODES)),
    bed=st.none() | st.integers(0, 5),
    count=st.integers(0, 52),
    status=st.sampled_from(get_args(BoardStatus)),
    t_ms=st.integers(0, 2**40),
    seq=st.integers(0, 2**63),
)
def test_played_frame_is_the_models_frame(
    *,
    game_id: str,
    seat: int,
    card: str,
    bed: int | None,
    count: int,
    status: Any,
    t_ms: int,
    seq: int,
) -> None:
    fields = {"game_id": game_id, "seat": seat, "card": card, "bed": bed, "count": count}
    fields |= {"status": status, "t_ms": t_ms, "seq": seq}
    wire = {"type": "played", **fields, "from": "bouquet" if bed is None else "bed"}
    # The model, as a client reads it off the wire, and its frame.
    assert played_frame(**fields) == encode_bytes(Played.model_validate(wire))
