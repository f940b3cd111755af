"""Server messages for the client's tests, as a revision-2 server sends them.

The deal is a real one: :data:`DEALER`'s seed deals :func:`dealt`, and
:data:`COMMIT` is its commit, so a ``game_over`` built here with :data:`SEED`
verifies, and one with another seed does not.
"""

from __future__ import annotations

from typing import Any

import engine
from protocol import (
    GameInfo,
    GameOver,
    GameStart,
    GameState,
    Limits,
    LobbySnapshot,
    Played,
    Rating,
    RoomInfo,
    Rules,
    SeekInfo,
    Welcome,
    board_to_wire,
)

GAME = "g1"
PLAYERS = ["ann", "bob"]
SEED = bytes(range(32))
DEALER = engine.SeedDealer(SEED)
COMMIT = DEALER.commit
OTHER_SEED = bytes(32)
RULES = Rules(deal="mirror", winnable_only=True, redeals=1, time_limit_s=300)


def dealt(redeals: int = 1) -> engine.Board:
    """The board :data:`SEED` deals (winnable)."""
    return engine.Board(DEALER.layout(True), redeals)


def welcome(
    idle_s: float = 60, name: str = "ann", rating: int = 1500, *, provisional: bool = True
) -> Welcome:
    limits = Limits(idle_s=idle_s, grace_s=30, max_message=4096)
    return Welcome(
        player_id="p1",
        name=name,
        token="t1",
        protocol=1,
        rating=Rating(rating=rating, provisional=provisional),
        limits=limits,
    )


def game_start(
    board: engine.Board | None = None, *, seat: int = 0, rules: Rules = RULES, **fields: Any
) -> GameStart:
    wire = board_to_wire(board if board is not None else dealt(rules.redeals))
    values: dict[str, Any] = {
        "game_id": GAME,
        "seat": seat,
        "players": PLAYERS,
        "bots": [False, False],
        "ratings": [None, None],
        "rules": rules,
        "boards": [wire, wire],
        "commits": [COMMIT, COMMIT],
        "seq": 0,
    }
    return GameStart(**(values | fields))


def game_state(boards: list[engine.Board], *, seq: int, **fields: Any) -> GameState:
    values: dict[str, Any] = {
        "game_id": GAME,
        "seat": 0,
        "players": PLAYERS,
        "bots": [False, False],
        "ratings": [None, None],
        "rules": RULES,
        "boards": [board_to_wire(board) for board in boards],
        "commits": [COMMIT, COMMIT],
        "elapsed_ms": 0,
        "clock_left_ms": None,
        "seq": seq,
        "over": None,
    }
    return GameState(**(values | fields))


def game_over(
    winner: int | None,
    reason: str,
    counts: list[int],
    *,
    seq: int,
    times_ms: list[int | None] | None = None,
    seed: bytes = SEED,
    **fields: Any,
) -> GameOver:
    values: dict[str, Any] = {
        "game_id": GAME,
        "result": "draw" if winner is None else "win",
        "winner": winner,
        "reason": reason,
        "counts": counts,
        "times_ms": times_ms if times_ms is not None else [None, None],
        "seeds": [seed.hex(), seed.hex()],
        "ratings": None,
        "seq": seq,
    }
    return GameOver(**(values | fields))


def play(board: engine.Board, seat: int, seq: int, t_ms: int = 0) -> Played:
    """Play the first legal card on ``board`` and return the server's ``played`` for it."""
    card = board.legal_plays()[0]
    move = board.play(card)
    return Played(
        game_id=GAME,
        seat=seat,
        card=str(card),
        from_="bouquet" if move.bed is None else "bed",
        bed=move.bed,
        count=board.count,
        status=board_to_wire(board).status,
        t_ms=t_ms,
        seq=seq,
    )


def lobby(
    *,
    seeks: list[SeekInfo] | None = None,
    rooms: list[RoomInfo] | None = None,
    games: list[GameInfo] | None = None,
    rooms_total: int | None = None,
    games_total: int | None = None,
) -> LobbySnapshot:
    seeks, rooms, games = seeks or [], rooms or [], games or []
    return LobbySnapshot(
        online=2,
        seeking=sum(seek.count for seek in seeks),
        seeks=seeks,
        rooms=rooms,
        rooms_total=len(rooms) if rooms_total is None else rooms_total,
        games=games,
        games_total=len(games) if games_total is None else games_total,
    )
