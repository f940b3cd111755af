"""Races outlive the server process: a crash or a deploy in mid-race, and the race goes on.

The server runs as ``python -m server`` and is stopped with ``kill -9`` or
SIGTERM while plays are in flight, then started again on the same database
(SQLite). The in-process restarts (``backend``) run on PostgreSQL as well.
Whatever any player or spectator was told is in the restored race, ``seq``
goes on without a gap or a repeat, and both players race to the end.
"""

from __future__ import annotations

import signal
import sqlite3
from typing import TYPE_CHECKING, Any

import pytest
from websockets.exceptions import ConnectionClosed

from .conftest import RANKS, apply, legal

if TYPE_CHECKING:
    from .conftest import Client


async def everything_until_closed(client: Client) -> list[dict[str, Any]]:
    """Every message the client still gets before its connection ends."""
    seen = []
    try:
        while True:
            seen.append(await client.recv())
    except ConnectionClosed:
        return seen


def on_foundations(board: dict[str, Any], card: str) -> bool:
    return board["foundations"][card[1]] >= RANKS.index(card[0]) + 1


async def resume(connect, url: str, client: Client) -> tuple[Client, dict[str, Any]]:
    """``client``'s player back on the server at ``url``: the new client and its game_state."""
    again = await connect(url)
    await again.hello(token=client.token)
    return again, await again.recv("game_state")


async def finish(client: Client, board: dict[str, Any], seq: int) -> int:
    """Play ``board`` out; every event must take the next seq. The last seq seen."""
    while legal(board):
        card = legal(board)[0]
        await client.send(type="play", card=card)
        while True:
            message = await client.recv()
            if "seq" in message:
                assert message["seq"] == seq + 1, (message, seq)
                seq = message["seq"]
            if message["type"] in ("played", "game_over") and message.get("card", card) == card:
                break
        if message["type"] == "game_over":
            return seq
        board = apply(board, card)
    return seq


async def crash_mid_race(
    tmp_path, cli_server, connect, race, player, *, acked: int, in_flight: int, sig: int
):
    db = tmp_path / "race.sqlite3"
    first = await cli_server(db)
    duel = await race(first.url)
    spectator = await player(first.url)
    await spectator.send(type="watch", game_id=duel.game_id)
    await spectator.recv("game_state")
    board = duel.board_a()
    for _ in range(acked):
        card = legal(board)[0]
        await duel.a.send(type="play", card=card)
        await duel.a.recv("played")
        board = apply(board, card)
    sent = []
    for _ in range(in_flight):
        sent.append(legal(board)[0])
        await duel.a.send(type="play", card=sent[-1])
        board = apply(board, sent[-1])
    first.process.send_signal(sig)
    told = [m for c in (duel.a, duel.b, spectator) for m in await everything_until_closed(c)]
    assert await first.process.wait() == (0 if sig == signal.SIGTERM else -signal.SIGKILL)
    second = await cli_server(db)
    return duel, second, told


@pytest.fixture
def clients(race, player):
    """The ``race`` and ``player`` fixtures together."""
    return race, player


@pytest.mark.parametrize(
    "point",
    [
        (0, 1, signal.SIGKILL),
        (5, 3, signal.SIGKILL),
        (30, 1, signal.SIGKILL),
        (51, 1, signal.SIGKILL),  # the clearing play in flight: killed around game_over
        (10, 3, signal.SIGTERM),
        (51, 1, signal.SIGTERM),
    ],
)
async def test_a_race_killed_or_stopped_mid_race_goes_on_with_everything_it_told(
    tmp_path, cli_server, connect, clients, point
):
    acked, in_flight, sig = point
    race, player = clients
    duel, second, told = await crash_mid_race(
        tmp_path, cli_server, connect, race, player, acked=acked, in_flight=in_flight, sig=sig
    )
    if any(message["type"] == "game_over" for message in told):
        # The race ended before the server stopped, and everybody was told: it is recorded.
        with sqlite3.connect(tmp_path / "race.sqlite3") as conn:
            row = conn.execute("SELECT reason FROM races WHERE id = ?", (duel.game_id,))
            assert row.fetchone() == ("cleared",)
        return
    a, state_a = await resume(connect, second.url, duel.a)
    b, state_b = await resume(connect, second.url, duel.b)
    assert state_a["seq"] == state_b["seq"] and state_a["game_id"] == duel.game_id
    board = state_a["boards"][duel.seat_a]
    for message in told:
        if message["type"] == "played":
            assert message["seq"] <= state_a["seq"]
            if message["seat"] == duel.seat_a:
                assert on_foundations(board, message["card"]), message
    if state_a["over"] is not None:  # the clearing play had been journaled
        assert state_a["over"]["reason"] == "cleared" and board["count"] == 52
        return
    assert board["count"] >= acked
    seq = await finish(a, board, state_a["seq"])
    assert seq > state_a["seq"]
    over = (await b.until("game_over"))[-1]
    assert over["seq"] == seq + 1 and over["winner"] == duel.seat_a  # right after the last play


async def test_a_spectator_watches_a_restored_race_again(
    tmp_path, cli_server, connect, race, player
):
    duel, second, _ = await crash_mid_race(
        tmp_path, cli_server, connect, race, player, acked=4, in_flight=0, sig=signal.SIGKILL
    )
    spectator = await player(second.url)
    await spectator.send(type="watch", game_id=duel.game_id)
    state = await spectator.recv("game_state")
    assert state["seq"] == 4 and "seat" not in state
    a, state_a = await resume(connect, second.url, duel.a)
    await a.send(type="play", card=legal(state_a["boards"][duel.seat_a])[0])
    assert (await spectator.recv("played"))["seq"] == 5


def _card_of_seq(seq: int, card: str, line: str) -> str:
    """A journal line (``race_id seq seat what at``) with ``card`` played if it is ``seq``'s."""
    race_id, at_seq, seat, _, at = line.split(" ")
    return " ".join((race_id, at_seq, seat, card, at)) if int(at_seq) == seq else line


async def test_a_corrupted_journal_entry_ends_the_race_aborted(
    tmp_path, cli_server, connect, race, player
):
    duel, second, _ = await crash_mid_race(
        tmp_path, cli_server, connect, race, player, acked=3, in_flight=0, sig=signal.SIGKILL
    )
    # The second server has restored the race; kill it too, and break an entry on disk.
    second.process.kill()
    await second.process.wait()
    db = tmp_path / "race.sqlite3"
    with sqlite3.connect(db) as conn:  # a row holds a batch's entries, a line each
        rows = conn.execute("SELECT id, entries FROM journal").fetchall()
        broken = [("\n".join(_card_of_seq(2, "ZZ", line) for line in text.split("\n")), id_)
                  for id_, text in rows]  # fmt: skip
        conn.executemany("UPDATE journal SET entries = ? WHERE id = ?", broken)
        assert sum(" ZZ " in text for text, _ in broken) == 1
    third = await cli_server(db)
    _, state = await resume(connect, third.url, duel.a)
    assert state["over"]["reason"] == "aborted" and state["over"]["result"] == "draw"
    assert state["over"]["winner"] is None
    with sqlite3.connect(db) as conn:
        (reason,) = conn.execute(
            "SELECT reason FROM races WHERE id = ?", (duel.game_id,)
        ).fetchone()
        assert reason == "aborted"
        assert conn.execute("SELECT count(*) FROM journal").fetchone() == (0,)  # no rows left


async def test_hundreds_of_live_races_are_restored_at_once(backend, start_server, player, connect):
    db = backend.db  # in process, so on either store (tests/store_backends.py)
    first = await start_server(db=db, max_connections_per_ip=1000)
    players = [await player(first) for _ in range(400)]
    for a, b in zip(players[::2], players[1::2], strict=True):
        await a.send(type="seek", rules={"deal": "mirror", "winnable_only": True})
        await b.send(type="seek", rules={"deal": "mirror", "winnable_only": True})
    starts = [await p.until("game_start") for p in players]
    game_ids = {messages[-1]["game_id"] for messages in starts}
    assert len(game_ids) == 200
    await first.close()
    second = await start_server(db=db, max_connections_per_ip=1000)
    assert all(second.lobby.race(game_id) is not None for game_id in game_ids)
    _, state = await resume(connect, second.url, players[0])
    assert state["game_id"] in game_ids and state["seq"] == 0


class HandClock:
    """The cores' clock, moved by hand: ``clock.now = 20.0``."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_the_time_a_stopped_server_was_down_does_not_count_on_the_clock(
    backend, start_server, clients, connect
):
    race, _ = clients
    db, clock = backend.db, HandClock()
    first = await start_server(db=db, clock=clock)
    duel = await race(first, {"deal": "mirror", "winnable_only": True, "time_limit_s": 30})
    clock.now = 10.0
    await duel.a.send(type="play", card=legal(duel.board_a())[0])
    await duel.a.recv("played")
    clock.now = 20.0  # 10 s of the race's 30 left when the server stops
    await first.close()
    clock.now = 5000.0  # down for over an hour
    second = await start_server(db=db, clock=clock)
    for client in (duel.a, duel.b):
        await resume(connect, second.url, client)
    restored = second.lobby.race(duel.game_id)
    assert restored is not None and restored.next_deadline() == 5000.0 + 10.0
