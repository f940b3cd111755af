"""Fixtures for every test package: real services, and the store on each backend.

* ``postgres_server``: one real PostgreSQL for the session (``tests/services.py``),
  started the first time a test asks for it; its admin URL. Skipped when the
  binaries are missing, failed instead under ``FLOWERGARDEN_REQUIRE_SERVICES=1``.
* ``postgres_url``: a new, empty database on it, for one test.
* ``backend``: parametrized ``sqlite`` / ``postgres``, a
  :class:`~tests.store_backends.AnyBackend` on a database of its own for the test:
  the tests that take it run on both stores.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from . import services
from .redis_service import RedisServer, redis_binary, running_redis
from .store_backends import AnyBackend, PostgresBackend, SqliteBackend

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    bindir = services.postgres_bindir()
    if bindir is None:
        reason = f"PostgreSQL is not installed ({services.POSTGRES_GLOB}): run `make services`"
        if services.services_required():
            pytest.fail(f"FLOWERGARDEN_REQUIRE_SERVICES=1 but {reason}")
        pytest.skip(reason)
    with services.running_postgres(bindir) as url:
        yield url


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    with services.fresh_database(postgres_server) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AnyBackend:
    if request.param == "sqlite":
        return SqliteBackend(tmp_path / "fg.sqlite3")
    return PostgresBackend(request.getfixturevalue("postgres_url"))


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A real Redis of the test's own (``tests/redis_service.py``): it may be restarted."""
    binary = redis_binary()
    if binary is None:
        reason = "redis-server is not installed: run `make services`"
        if services.services_required():
            pytest.fail(f"FLOWERGARDEN_REQUIRE_SERVICES=1 but {reason}")
        pytest.skip(reason)
    with running_redis(binary) as server:
        yield server
