"""What revision 3 added: its requests decode, and its fields have defaults that keep
messages built as revision 2 built them valid."""

from __future__ import annotations

import json

import pytest

from protocol import (
    RATE_BURST,
    RATE_PER_S,
    REASON_LENGTH,
    REVISION,
    Daily,
    DecodeError,
    GameOver,
    Hello,
    JoinArena,
    LeaveArena,
    Limits,
    LobbySnapshot,
    Rating,
    Report,
    Welcome,
    decode,
    encode,
)


def test_new_requests_decode_with_their_defaults() -> None:
    assert decode('{"type":"hello","name":"a"}') == Hello(name="a", bot=False)
    assert decode('{"type":"hello","name":"a","bot":true}').bot is True  # type: ignore[union-attr]
    assert decode('{"type":"daily"}') == Daily(ghost=True)
    assert decode('{"type":"daily","ghost":false}') == Daily(ghost=False)
    assert decode('{"type":"report","game_id":"g1"}') == Report(game_id="g1", reason=None)
    reason = "é" * REASON_LENGTH  # characters, not bytes
    assert decode(json.dumps({"type": "report", "game_id": "g1", "reason": reason})) == Report(
        game_id="g1", reason=reason
    )
    assert decode('{"type":"join_arena","arena_id":"a1","id":7}') == JoinArena(arena_id="a1", id=7)
    assert decode('{"type":"leave_arena"}') == LeaveArena()


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        ('{"type":"hello","name":"a","bot":"yes"}', "bot: must be true or false"),
        ('{"type":"hello","name":"a","bot":1}', "bot: must be true or false"),
        ('{"type":"daily","ghost":0}', "ghost: must be true or false"),
        ('{"type":"report"}', "game_id: required"),
        (
            json.dumps({"type": "report", "game_id": "g1", "reason": "x" * (REASON_LENGTH + 1)}),
            "reason: must be at most 200 characters",
        ),
        ('{"type":"report","game_id":"g1","reason":5}', "reason: must be a string"),
        ('{"type":"join_arena"}', "arena_id: required"),
    ],
)
def test_malformed_new_requests_are_bad_message(frame: str, message: str) -> None:
    with pytest.raises(DecodeError) as refused:
        decode(frame)
    assert (refused.value.code, refused.value.message) == ("bad_message", message)


def test_welcome_as_revision_2_built_it_says_revision_3() -> None:
    welcome = Welcome(
        player_id="p1",
        name="a",
        token="t",
        protocol=1,
        rating=Rating(rating=1500, provisional=True),
        limits=Limits(idle_s=60, grace_s=30, max_message=4096),
    )
    wire = json.loads(encode(welcome))
    assert (wire["revision"], wire["bot"]) == (REVISION, False) == (3, False)
    assert wire["limits"] == {
        "idle_s": 60,
        "grace_s": 30,
        "max_message": 4096,
        "burst": RATE_BURST,
        "per_s": RATE_PER_S,
        "hello_timeout_s": 10,
    }
    assert (RATE_BURST, RATE_PER_S) == (200, 50)  # PROTOCOL.md, "Limits"


def test_new_fields_of_a_race_and_the_lobby_are_null_or_empty() -> None:
    over = GameOver.model_validate(
        {
            "game_id": "g",
            "result": "draw",
            "winner": None,
            "reason": "equal_cards",
            "counts": [0, 0],
            "times_ms": [None, None],
            "seeds": ["0" * 64] * 2,
            "ratings": None,
            "seq": 1,
        }
    )
    wire = json.loads(encode(over))
    assert (wire["unrated"], wire["daily"], wire["arena"]) == (None, None, None)
    lobby = LobbySnapshot(
        online=0, seeking=0, seeks=[], rooms=[], rooms_total=0, games=[], games_total=0
    )
    wire = json.loads(encode(lobby))
    assert wire["arenas"] == []
    assert "daily" not in wire  # left out, never null


def test_times_and_days_are_checked() -> None:
    from protocol import DailyInfo
    from protocol.competitions import ArenaInfo

    arena = {"arena_id": "a", "name": "n", "status": "running", "players": 0}
    for good in ("2025-06-01T18:00:00Z", "2025-06-01T18:00:00.5+02:00"):
        ArenaInfo.model_validate({**arena, "starts_at": good, "ends_at": good}, strict=True)
    for bad in ("2025-06-01", "2025-06-01 18:00:00Z", "2025-06-01T18:00:00", "2025-06-31T18:00Z"):
        with pytest.raises(ValueError, match="starts_at"):
            ArenaInfo.model_validate({**arena, "starts_at": bad, "ends_at": bad}, strict=True)
    assert DailyInfo(date="2024-02-29", players=0, best_ms=None).date == "2024-02-29"
    for bad_day in ("2025-02-29", "2025-6-1", "20250601"):
        with pytest.raises(ValueError, match="date"):
            DailyInfo(date=bad_day, players=0, best_ms=None)
