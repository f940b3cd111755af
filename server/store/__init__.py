"""The store: players, live races' journals and finished races, on SQLite or PostgreSQL.

What the server and its tests use, by name; how it works is
:mod:`server.store.machine`'s theory of operation.
"""

from .backends import is_postgres, open_store
from .faults import StoreError, StoreRefused, StoreUnavailable
from .interface import Store
from .postgres_store import PostgresStore
from .reads import PlayerStats, ProfileRow, Ranked, Summary
from .rows import LiveRace
from .sqlite_store import SqliteStore

__all__ = [
    "LiveRace",
    "PlayerStats",
    "PostgresStore",
    "ProfileRow",
    "Ranked",
    "SqliteStore",
    "Store",
    "StoreError",
    "StoreRefused",
    "StoreUnavailable",
    "Summary",
    "is_postgres",
    "open_store",
]
