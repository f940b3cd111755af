"""``python -m server``: the public smoke test, signals, and a restart on the same database."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sqlite3
import sys
from pathlib import Path

import pytest

from .conftest import http_get, play_out

SMOKE = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "smoke.py"


@pytest.mark.skipif(not SMOKE.is_file(), reason=f"the public smoke test is not at {SMOKE}")
async def test_public_smoke_test(cli_server, tmp_path):
    cli = await cli_server(tmp_path / "smoke.sqlite3")
    smoke = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SMOKE),
        cli.url,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(smoke.communicate(), 30)
    text = output.decode()
    assert smoke.returncode == 0, text
    assert "0 failed" in text, text
    assert await cli.stop() == 0


async def test_the_bound_address_is_logged(cli_server, tmp_path):
    # Every flag is also an environment variable; a flag wins over it.
    env = {"FLOWERGARDEN_HOST": "localhost", "FLOWERGARDEN_PORT": "1"}
    cli = await cli_server(tmp_path / "db.sqlite3", "--host", "127.0.0.1", env=env)
    assert cli.url.startswith("ws://127.0.0.1:")
    assert cli.url.endswith("/ws")
    assert cli.port > 0
    status, body = await http_get(cli.port, "/healthz")
    assert status == 200
    assert json.loads(body)["status"] == "ok"
    assert await cli.stop(signal.SIGINT) == 0


async def test_sigterm_then_restart_on_the_same_database(
    cli_server, connect, player, race, tmp_path
):
    db = tmp_path / "kept.sqlite3"
    cli = await cli_server(db, "--grace", "30")

    # A finished race, a live one, and a player who only looks around.
    done = await race(cli.url)
    board, acks = await play_out(done.a, done.board_a())
    over = await done.a.recv("game_over")
    assert over["reason"] == "cleared"
    await done.b.until("game_over")
    live = await race(cli.url)
    await play_out(live.a, live.board_a(), limit=1)
    looker = await player(cli.url)
    silent = await connect(cli.url)  # has not said hello yet

    assert await cli.stop(signal.SIGTERM) == 0
    for client in (done.a, done.b, live.a, live.b, looker, silent):
        await client.expect_close(1001)
    assert any("shutting down" in line for line in cli.log), cli.log

    again = await cli_server(db)
    back = await connect(again.url)
    welcome = await back.hello("whatever", token=done.a.token)
    assert (welcome["player_id"], welcome["name"]) == (done.a.player_id, done.a.name)
    await back.quiet()  # the race is long over: no game_state
    newcomer = await connect(again.url)
    await newcomer.send(type="hello", name=done.b.name.swapcase())
    await newcomer.error("name_taken")
    # The race that was live at shutdown goes on where it stood.
    racer = await connect(again.url)
    assert (await racer.hello(token=live.a.token))["player_id"] == live.a.player_id
    state = await racer.recv("game_state")
    assert (state["game_id"], state["seq"], state["over"]) == (live.game_id, 1, None)
    await racer.quiet()
    assert await again.stop() == 0

    with contextlib.closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        row = conn.execute(
            "SELECT player0, player1, result, winner, reason, count0, count1 FROM races"
            " WHERE id = ?",
            (done.game_id,),
        ).fetchone()
        assert row is not None
        ids = [done.a.player_id, done.b.player_id]
        if done.seat_a == 1:
            ids.reverse()
        counts = [52, 0] if done.seat_a == 0 else [0, 52]
        assert row == (*ids, "win", done.seat_a, "cleared", *counts)
        moves = conn.execute(
            "SELECT seq, seat, card FROM moves WHERE race_id = ? ORDER BY seq", (done.game_id,)
        ).fetchall()
        assert moves == [(ack["seq"], done.seat_a, ack["card"]) for ack in acks]
        assert conn.execute("SELECT count(*) FROM races").fetchone() == (1,)
        stats = conn.execute(
            "SELECT games, wins, losses FROM players WHERE id = ?", (done.a.player_id,)
        ).fetchone()
        assert stats == (1, 1, 0)
    assert board["count"] == 52
