"""Messages for the protocol's tests: PROTOCOL.md's lists, client frames, server samples.

One valid frame or instance per row of PROTOCOL.md's tables, revision 3's
additions included; the codec, model and schema tests all read them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import engine
from protocol import (
    PROTOCOL_VERSION,
    Arena,
    ArenaInfo,
    ArenaPlace,
    ArenaResult,
    Cancelled,
    DailyInfo,
    DailyResult,
    Error,
    GameInfo,
    GameOver,
    GameStart,
    GameState,
    Limits,
    LobbySnapshot,
    OpponentAway,
    OpponentBack,
    Played,
    Rating,
    RatingChange,
    Redealt,
    RematchOffered,
    RematchWaiting,
    Reported,
    Room,
    RoomInfo,
    Rules,
    SeekInfo,
    Seeking,
    Standing,
    StatusChanged,
    Welcome,
    WireBoard,
    board_to_wire,
)

if TYPE_CHECKING:
    from protocol import ServerMessage

# The message types and error codes as PROTOCOL.md lists them.
DOC_CLIENT_TYPES = {
    "hello", "lobby", "seek", "create_room", "join_room", "cancel",
    "play", "redeal", "resign", "rematch", "watch",
    "report", "daily", "join_arena", "leave_arena",
}  # fmt: skip
DOC_SERVER_TYPES = {
    "welcome", "lobby", "seeking", "room", "cancelled", "game_start", "played", "redealt",
    "status", "opponent_away", "opponent_back", "rematch_offered", "game_over", "game_state",
    "error", "rematch_waiting", "reported", "arena",
}  # fmt: skip
DOC_ERROR_CODES = {
    "bad_json", "bad_message", "unknown_type", "hello_first", "bad_name", "name_taken",
    "bad_token", "unsupported_protocol", "not_in_game", "illegal_move", "game_over", "busy",
    "room_not_found", "room_full", "game_not_found", "rate_limited", "unavailable",
    "not_allowed", "banned",
}  # fmt: skip

# PROTOCOL.md's "Rules options" example, verbatim.
DOC_RULES = (
    '{"deal": "independent", "winnable_only": false, "redeals": 0, "tiebreak": "draw", '
    '"time_limit_s": null, "rated": false}'
)

# One or more frames per row of PROTOCOL.md's client table, optional fields left
# out and given; docs/design.md's play example first.
CLIENT_EXAMPLES = [
    '{"type":"play","card":"QH"}',
    '{"type": "hello", "name": "alice"}',
    '{"type": "hello", "name": "alice", "token": "t0k3n", "protocol": 1}',
    '{"type": "hello", "name": "robo-7", "bot": true}',
    '{"type": "lobby"}',
    '{"type": "seek"}',
    f'{{"type": "seek", "rules": {DOC_RULES}}}',
    '{"type": "seek", "rules": {"deal": "mirror", "winnable_only": true, "redeals": 1,'
    ' "tiebreak": "first", "time_limit_s": 300}}',
    '{"type": "create_room"}',
    '{"type": "create_room", "rules": {"deal": "mirror"}, "public": true}',
    '{"type": "join_room", "code": "ABC234"}',
    '{"type": "cancel"}',
    '{"type": "play", "card": "TH"}',
    '{"type": "redeal"}',
    '{"type": "resign"}',
    '{"type": "rematch"}',
    '{"type": "watch", "game_id": "g42"}',
    '{"type": "report", "game_id": "0123456789abcdef"}',
    '{"type": "report", "game_id": "0123456789abcdef", "reason": "every card in 20 ms"}',
    '{"type": "daily"}',
    '{"type": "daily", "ghost": false}',
    '{"type": "join_arena", "arena_id": "a1"}',
    '{"type": "leave_arena"}',
]


def sample_boards() -> list[WireBoard]:
    fresh = engine.Board(engine.deal(1))
    played = engine.Board(engine.winnable_deal(2), redeals=1)
    for _ in range(5):
        played.play(played.legal_plays()[0])
    return [board_to_wire(fresh), board_to_wire(played, "timed_out")]


def server_samples() -> list[ServerMessage]:
    """One valid instance of every server message type, some with a request id."""
    rules = Rules(deal="mirror", redeals=1, time_limit_s=600)
    boards = sample_boards()
    seeds, commits = ["0" * 64, "ab" * 32], ["cd" * 32, "ef" * 32]
    over = GameOver(
        game_id="g1",
        result="win",
        winner=1,
        reason="most_cards",
        counts=[3, 7],
        times_ms=[1200, 5400],
        seeds=seeds,
        ratings=[RatingChange(before=1500, after=1580), RatingChange(before=1500, after=1420)],
        seq=12,
    )
    pair: dict[str, Any] = {"bots": [False, True], "ratings": [None, None], "commits": commits}
    return [
        Welcome(
            player_id="p1",
            name="alice",
            token="s3cr3t-t0k3n_x",
            protocol=PROTOCOL_VERSION,
            rating=Rating(rating=1500, provisional=True),
            limits=Limits(idle_s=60, grace_s=2.5, max_message=4096),
            id=1,
        ),
        LobbySnapshot(
            online=5,
            seeking=1,
            seeks=[SeekInfo(rules=rules, count=1)],
            rooms=[RoomInfo(code="ABC234", host="bob", rules=Rules())],
            rooms_total=1,
            games=[
                GameInfo(game_id="g1", players=["alice", "bob"], counts=[3, 7], bots=[False, True])
            ],
            games_total=250,
            id="lobby-1",
        ),
        Seeking(rules=rules),
        Room(code="ABC234", rules=rules, id=0),
        Cancelled(),
        GameStart(
            game_id="g1",
            seat=0,
            players=["alice", "bob"],
            rules=rules,
            boards=boards,
            seq=0,
            **pair,
        ),
        Played(
            game_id="g1",
            seat=1,
            card="AS",
            from_="bouquet",
            bed=None,
            count=1,
            status="playing",
            t_ms=0,
            seq=1,
            id=9,
        ),
        Played(
            game_id="g1",
            seat=0,
            card="2S",
            from_="bed",
            bed=5,
            count=2,
            status="stalled",
            t_ms=61_250,
            seq=2,
        ),
        Redealt(game_id="g1", seat=0, board=boards[1], t_ms=70_000, seq=3),
        StatusChanged(game_id="g1", seat=1, status="resigned", count=7, seq=4),
        OpponentAway(game_id="g1", grace_s=30),
        OpponentBack(game_id="g1"),
        RematchOffered(game_id="g1"),
        over,
        GameOver(
            game_id="g1",
            result="draw",
            winner=None,
            reason="equal_cards",
            counts=[4, 4],
            times_ms=[None, 300],
            seeds=seeds,
            ratings=None,
            seq=5,
        ),
        GameState(
            game_id="g1",
            seat=1,
            players=["a", "b"],
            rules=rules,
            boards=boards,
            elapsed_ms=5000,
            clock_left_ms=595_000,
            seq=4,
            over=None,
            **pair,
        ),
        GameState(
            game_id="g1",
            players=["a", "b"],
            rules=rules,
            boards=boards,
            elapsed_ms=5000,
            clock_left_ms=None,
            seq=12,
            over=over,
            **pair,
        ),
        Error(code="illegal_move", message="QH cannot be played now", id="x"),
        *revision_3_samples(rules, boards, pair),
    ]


def revision_3_samples(
    rules: Rules, boards: list[WireBoard], pair: dict[str, Any]
) -> list[ServerMessage]:
    """What revision 3 added, with each new field set (the others show the defaults)."""
    speed = Rules(deal="mirror", winnable_only=True, tiebreak="first")
    seeds = ["0" * 64, "0" * 64]
    return [
        Welcome(
            player_id="p2",
            name="robo-7",
            token="t0k3n",
            protocol=PROTOCOL_VERSION,
            bot=True,
            rating=Rating(rating=1500, provisional=True),
            limits=Limits(
                idle_s=60, grace_s=30, max_message=4096, burst=200, per_s=50, hello_timeout_s=10
            ),
        ),
        LobbySnapshot(
            online=2,
            seeking=0,
            seeks=[],
            rooms=[],
            rooms_total=0,
            games=[],
            games_total=0,
            arenas=[
                ArenaInfo(
                    arena_id="a1",
                    name="Friday sprint",
                    status="upcoming",
                    starts_at="2025-06-06T18:00:00Z",
                    ends_at="2025-06-06T19:00:00+00:00",
                    players=0,
                )
            ],
            daily=DailyInfo(date="2025-06-06", players=12, best_ms=None),
        ),
        GameStart(
            game_id="d20250606x1",
            seat=0,
            players=["alice", "alice"],
            rules=speed,
            boards=[boards[0], boards[0]],
            seq=0,
            daily="2025-06-06",
            ghost="alice",
            bots=[False, True],
            ratings=[None, None],
            commits=[pair["commits"][0]] * 2,
        ),
        GameStart(
            game_id="g7",
            seat=1,
            players=["alice", "bob"],
            rules=rules,
            boards=boards,
            seq=0,
            arena_id="a1",
            **pair,
        ),
        RematchWaiting(game_id="g1", id="r"),
        Reported(game_id="g1", id=4),
        Arena(
            arena_id="a1",
            name="Friday sprint",
            rules=speed,
            status="running",
            starts_at="2025-06-06T18:00:00.250Z",
            ends_at="2025-06-06T19:00:00Z",
            joined=True,
            standings=[
                Standing(rank=1, name="alice", score=6, streak=3, races=3, bot=False),
                Standing(rank=2, name="BOT-Hare", score=0, streak=0, races=3, bot=True),
            ],
            players=2,
            you=ArenaPlace(rank=1, score=6, streak=3, races=3),
        ),
        Arena(
            arena_id="a1",
            name="Friday sprint",
            rules=speed,
            status="finished",
            starts_at="2025-06-06T18:00:00Z",
            ends_at="2025-06-06T19:00:00Z",
            joined=False,
            standings=[],
            players=0,
            you=None,
        ),
        GameOver(
            game_id="g8",
            result="draw",
            winner=None,
            reason="resigned",
            counts=[0, 0],
            times_ms=[None, None],
            seeds=seeds,
            ratings=None,
            unrated="no_play",
            seq=1,
        ),
        GameOver(
            game_id="d20250606x1",
            result="win",
            winner=0,
            reason="cleared",
            counts=[52, 40],
            times_ms=[61_000, 58_000],
            seeds=seeds,
            ratings=None,
            seq=93,
            daily=DailyResult(date="2025-06-06", ranked=True, rank=3, time_ms=61_000),
        ),
        GameOver(
            game_id="g7",
            result="win",
            winner=1,
            reason="most_cards",
            counts=[10, 12],
            times_ms=[9_000, 9_500],
            seeds=seeds,
            ratings=None,
            seq=23,
            unrated="fair_play",
            arena=ArenaResult(arena_id="a1", points=[0, 4]),
        ),
    ]
