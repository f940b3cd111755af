"""SIGTERM while the disk is full: the server still closes in bounded time, and loses
nothing it acknowledged.

The disk is really full: ``PRAGMA max_page_count`` at the file's size, on the
store's own connection (tests/store_backends.py), and the journal filled to the
last byte of its last page, so that the next play's entry needs a page SQLite
may not have: SQLITE_FULL, "database or disk is full", as on a full disk. The
play is held (its ``played`` waits for the journal, PROTOCOL.md), the store
retries, and then the server is told to stop, as SIGTERM tells it
(``server/__main__.py``: ``GameServer.close``). It used to wait for space to
come back: its first step queued behind the retries, before anything had told
the store that it was closing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import time
from typing import TYPE_CHECKING

from server.store import SqliteStore, StoreUnavailable
from server.store.faults import GIVE_UP_AFTER
from server.transport.connection import CLOSE_TIMEOUT

from .conftest import TIMEOUT, http_get, legal, play_out

if TYPE_CHECKING:
    from pathlib import Path

    from server.app import GameServer

FILLER = "INSERT INTO journal (entries) VALUES ('filler 1 0 AS 0')"
"""A journal row of a race that is not live: read past on restore, and small, so the
page it goes to is filled to its last few bytes."""

FULL_ON_MARKER = f"""\
import os, runpy, sqlite3
from server.store import sqlite
marker, write, filled = os.environ["FG_FULL_DISK_MARKER"], sqlite.Database.write, []
def write_on_a_full_disk(self, writes):
    if not filled and os.path.exists(marker):
        filled.append(True)
        (pages,) = self.execute("PRAGMA page_count")[0]
        self.execute(f"PRAGMA max_page_count = {{pages}}")
        try:
            while True:
                self.execute({FILLER!r})
        except sqlite3.OperationalError:
            pass
    return write(self, writes)
sqlite.Database.write = write_on_a_full_disk
runpy.run_module("server", run_name="__main__", alter_sys=True)
"""
"""``python -c`` this: the server, whose disk is full (as :func:`fill_the_disk` makes it)
from its first write after the marker file exists, on the store's own connection."""


async def fill_the_disk(store: SqliteStore) -> None:
    """No page more for the file, and none free in it: the next journal entry fails."""
    ((pages,),) = await store.execute_for_tests("PRAGMA page_count")
    await store.execute_for_tests(f"PRAGMA max_page_count = {pages}")
    for _ in range(100_000):
        try:
            await store.execute_for_tests(FILLER)
        except StoreUnavailable:
            return
    raise AssertionError("the journal never filled up")


async def degraded(server: GameServer) -> None:
    """Until ``/healthz`` says the store's writes fail (each try a round trip)."""
    async with asyncio.timeout(TIMEOUT):
        while True:
            _, body = await http_get(server.port, "/healthz")
            if json.loads(body)["status"] == "degraded":
                return


def journal_seqs(path: Path, game_id: str) -> list[int]:
    """The ``seq`` of every entry of ``game_id`` kept in the journal at ``path``."""

    async def read() -> list[int]:
        store = SqliteStore(path)
        await store.open()
        try:
            live = await store.live_races()
        finally:
            await store.close()
        return [entry.seq for start, journal, _ in live if start.game_id == game_id
                for entry in journal]  # fmt: skip

    return asyncio.run(read())


async def test_closing_on_a_full_disk_is_bounded_and_loses_nothing_acknowledged(
    tmp_path, start_server, race, caplog
):
    path = tmp_path / "full.sqlite3"
    store = SqliteStore(path)
    server = await start_server(store=store, db=str(path))
    duel = await race(server)
    board, acks = await play_out(duel.a, duel.board_a(), limit=3)
    seen_by_b = [await duel.b.recv("played") for _ in acks]
    await fill_the_disk(store)
    held = legal(board)[0]
    await duel.a.send(type="play", card=held, id="held")
    await degraded(server)  # the play's entry failed: it is retried, its played held
    caplog.set_level(logging.INFO, "flowergarden.server")

    loop = asyncio.get_running_loop()
    started = loop.time()
    closing = asyncio.ensure_future(server.close())
    after_a = await duel.a.expect_close(1001)
    after_b = await duel.b.expect_close(1001)
    await asyncio.wait_for(closing, CLOSE_TIMEOUT + 5)
    took = loop.time() - started
    assert took < CLOSE_TIMEOUT + 1.0, f"closed {took:.1f} s after it was asked to"

    received = [m for m in [*acks, *seen_by_b, *after_a, *after_b] if m["type"] == "played"]
    assert held not in [m["card"] for m in received], "a play not written was acknowledged"
    assert f"gave up; not written: journal entry 4 of race {duel.game_id}" in caplog.text
    kept = await asyncio.to_thread(journal_seqs, path, duel.game_id)
    assert {m["seq"] for m in received} <= set(kept), (received, kept)
    assert kept == [1, 2, 3]


async def test_sigterm_on_a_full_disk_exits_in_time_with_1001_and_what_was_lost_logged(
    tmp_path, cli_server, race
):
    path, marker = tmp_path / "full.sqlite3", tmp_path / "disk-full"
    env = {"FG_FULL_DISK_MARKER": str(marker)}
    cli = await cli_server(path, script=FULL_ON_MARKER, env=env)
    duel = await race(cli.url)
    board, acks = await play_out(duel.a, duel.board_a(), limit=3)
    seen_by_b = [await duel.b.recv("played") for _ in acks]
    marker.touch()
    held = legal(board)[0]
    await duel.a.send(type="play", card=held, id="held")
    await cli.logged(lambda: any("cannot write journal entry 4" in line for line in cli.log))

    started = time.perf_counter()
    cli.process.send_signal(signal.SIGTERM)
    after_a = await duel.a.expect_close(1001)
    after_b = await duel.b.expect_close(1001)
    assert await asyncio.wait_for(cli.process.wait(), 15) == 0
    took = time.perf_counter() - started
    assert took < CLOSE_TIMEOUT + 1.0, f"exited {took:.1f} s after SIGTERM"
    assert took >= GIVE_UP_AFTER - 0.5, "the store did not try for its time"  # it did retry

    log = "\n".join(cli.log)
    assert f"gave up; not written: journal entry 4 of race {duel.game_id}" in log, log
    assert "Traceback" not in log, log
    received = [m for m in [*acks, *seen_by_b, *after_a, *after_b] if m["type"] == "played"]
    assert held not in [m["card"] for m in received]
    kept = await asyncio.to_thread(journal_seqs, path, duel.game_id)
    assert kept == [1, 2, 3] and {m["seq"] for m in received} <= set(kept)
