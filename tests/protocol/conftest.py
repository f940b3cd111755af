"""The real server, in process on a free port, for the conformance tools' tests."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from server.app import GameServer
from server.config import Settings
from server.store.backends import open_store

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[GameServer]:
    """A server with default settings and an SQLite file of its own."""
    db = str(tmp_path / "db.sqlite3")
    async with GameServer(Settings(host="127.0.0.1", port=0, db=db), open_store(db)) as running:
        yield running
