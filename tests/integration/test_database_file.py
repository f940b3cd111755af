"""An SQLite ``--db`` that exists but is empty, or is not a database, is refused at start.

SQLite takes an empty file for a new database: a file truncated to 0 bytes
(a full disk, a wrong copy, a volume mounted empty) used to start a server
with no players and no races, silently. Now the server refuses it with one
line and exit status 1, and ``--init-db`` (``FLOWERGARDEN_INIT_DB``) makes a
new database on purpose. A missing file is made as ever (the first ``make serve``).
"""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import TYPE_CHECKING

from .conftest import REPO

if TYPE_CHECKING:
    from pathlib import Path


async def refused(db: Path, *flags: str) -> list[str]:
    """Start the server on ``db``; it must exit with 1. Its log's lines."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "--port", "0", "--db", str(db), *flags,
        cwd=REPO, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 1, err.decode()
    return err.decode().splitlines()


async def test_an_empty_file_is_refused_in_one_line_and_left_as_it_is(tmp_path) -> None:
    db = tmp_path / "flowergarden.sqlite3"
    db.touch()
    (line,) = await refused(db)
    assert "is empty, not a database" in line and "--init-db" in line, line
    assert db.stat().st_size == 0
    assert not (tmp_path / "flowergarden.sqlite3-wal").exists()


async def test_a_file_that_is_no_database_is_refused_even_with_init_db(tmp_path) -> None:
    db = tmp_path / "flowergarden.sqlite3"
    db.write_bytes(b"these are someone's notes, not a database\n" * 100)
    before = db.read_bytes()
    for flags in ((), ("--init-db",)):
        (line,) = await refused(db, *flags)
        assert "is not an SQLite database" in line, line
    assert db.read_bytes() == before


async def test_init_db_makes_a_new_database_in_an_empty_file(tmp_path, cli_server, connect):
    for how, (flags, env) in {
        "flag": (("--init-db",), {}),
        "environment": ((), {"FLOWERGARDEN_INIT_DB": "1"}),
    }.items():
        db = tmp_path / f"{how}.sqlite3"
        db.touch()
        cli = await cli_server(db, *flags, env=env)
        client = await connect(cli.url)
        assert (await client.hello())["player_id"]
        await client.close()
        assert await cli.stop(signal.SIGTERM) == 0
        assert db.stat().st_size > 0
        again = await cli_server(db)  # a database now: opened without the flag
        assert await again.stop(signal.SIGTERM) == 0


async def test_a_missing_file_is_made(tmp_path, cli_server) -> None:
    db = tmp_path / "new" / "flowergarden.sqlite3"
    db.parent.mkdir()
    cli = await cli_server(db)
    assert await cli.stop(signal.SIGTERM) == 0
    assert db.stat().st_size > 0
