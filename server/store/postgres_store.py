"""The store in PostgreSQL: the machine, with its calls awaited on the loop.

:class:`PostgresStore` is :class:`server.store.machine.StoreMachine` on a
:class:`server.store.postgres.PgDatabase`, and so behaves exactly as the SQLite
store (the same tests run on both, tests/store_backends.py) but for what only
PostgreSQL has: no thread, a lost connection made again, two servers sharing
one database (a known race is skipped by ``ON CONFLICT``, the migrations
take an advisory lock).

Durability is the server's: a write is done once PostgreSQL has committed it
(``synchronous_commit`` decides what that means), so a killed process loses
nothing. If the connection drops during a ``COMMIT``, the commit may have
happened: the retry then finds its journal entries there, they are refused
and logged as lost, and yet they are kept; starts and records are skipped
when known, so a retry is harmless.
"""

from __future__ import annotations

from .faults import GIVE_UP_AFTER
from .machine import StoreMachine
from .postgres import PgDatabase, where

__all__ = ["PostgresStore"]


class PostgresStore(StoreMachine):
    """A :class:`~server.store.interface.Store` in the PostgreSQL database at ``url``.

    ``url`` is a libpq URL or key/value string (``postgresql://user@host/db``);
    ``give_up_after``: how long a failing batch is still retried once closing.
    """

    def __init__(self, url: str, *, give_up_after: float = GIVE_UP_AFTER) -> None:
        super().__init__(PgDatabase(url), give_up_after=give_up_after)
        self._url = url

    def __repr__(self) -> str:
        return f"PostgresStore({where(self._url)})"  # never the password: the URL may hold one
