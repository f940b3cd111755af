"""What ``flowergarden-server`` does as it starts: it waits for a PostgreSQL started after it,
then serves, and says where to open the browser client.

The first test starts them as a compose file does: the server first, on a
database URL where nothing listens yet; PostgreSQL (tests/services.py) only once
the server has said, twice, that it is waiting. Every step is a line of the
server's log, awaited; nothing sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
from typing import TYPE_CHECKING

import pytest

from tests import services

from .conftest import REPO, http_get
from .test_workers import STARTUP, Supervised, _drain, entry_point

if TYPE_CHECKING:
    from pathlib import Path

    from server.app import GameServer


def _postgres_bindir() -> Path:
    bindir = services.postgres_bindir()
    if bindir is None:
        reason = f"PostgreSQL is not installed ({services.POSTGRES_GLOB}): run `make services`"
        if services.services_required():
            pytest.fail(f"FLOWERGARDEN_REQUIRE_SERVICES=1 but {reason}")
        pytest.skip(reason)
    return bindir


async def test_a_server_started_before_postgresql_waits_for_it_then_serves(connect) -> None:
    bindir = _postgres_bindir()
    db_port, port = services.free_port(), services.free_port()
    url = f"postgresql://postgres@127.0.0.1:{db_port}/postgres"
    process = await asyncio.create_subprocess_exec(
        *entry_point(),
        *("--port", str(port), "--db", url, "--db-wait", "60"),
        cwd=REPO,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    server = Supervised(process, port)
    drain = asyncio.create_task(_drain(process.stderr, server))
    with contextlib.ExitStack() as postgres:
        try:
            waiting = r"waiting for the database \(.*Connection refused.*\): trying again in"
            await server.logged(waiting, STARTUP)
            await server.logged(waiting, STARTUP, after=len(server.log))  # and waits on
            assert process.returncode is None

            await asyncio.to_thread(
                postgres.enter_context, services.running_postgres(bindir, db_port)
            )
            await server.logged(rf"listening on ws://127\.0\.0\.1:{port}/ws", STARTUP)
            await server.logged(rf"open http://127\.0\.0\.1:{port}/ in a browser", STARTUP)
            status, body = await http_get(port, "/healthz")
            assert (status, json.loads(body)["status"]) == (200, "ok")
            client = await connect(f"ws://127.0.0.1:{port}/ws")
            assert (await client.hello())["player_id"]  # a new player, kept in PostgreSQL
            await client.close()
            assert await server.stop(signal.SIGTERM) == 0, "\n".join(server.log)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
            await asyncio.wait_for(drain, 5)


async def test_the_log_says_where_to_open_the_browser_client(start_server, caplog) -> None:
    with caplog.at_level(logging.INFO, "flowergarden.server"):
        server: GameServer = await start_server()
    assert f"open http://127.0.0.1:{server.port}/ in a browser" in caplog.text
    status, body = await http_get(server.port, "/")
    assert status == 200
    assert b"<html" in body.lower()


async def test_past_db_wait_the_server_exits_with_a_line_not_a_traceback() -> None:
    closed = f"postgresql://postgres@127.0.0.1:{services.free_port()}/postgres"
    process = await asyncio.create_subprocess_exec(
        *entry_point(),
        *("--port", "0", "--db", closed, "--db-wait", "0.3"),
        cwd=REPO,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), STARTUP)
    log = err.decode()
    assert process.returncode == 1, log
    assert "waiting for the database" in log
    assert "gave up waiting for the database after 0.3 s (--db-wait)" in log
    assert "ERROR flowergarden.server: cannot open the database: " in log
    assert "Traceback" not in log
