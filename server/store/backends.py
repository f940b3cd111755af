"""Which store a ``--db`` value names: a PostgreSQL URL, or else an SQLite file.

``postgresql://…`` or ``postgres://…`` (libpq's URL schemes) is a
:class:`~server.store.postgres_store.PostgresStore`; anything else is a path for a
:class:`~server.store.sqlite_store.SqliteStore` (``":memory:"`` included). Nothing is
opened here: the server opens the store it is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .faults import GIVE_UP_AFTER
from .postgres_store import PostgresStore
from .sqlite_store import SqliteStore

if TYPE_CHECKING:
    from .interface import Store

__all__ = ["POSTGRES_SCHEMES", "is_postgres", "open_store"]

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres(db: str) -> bool:
    """Whether ``db`` is a PostgreSQL URL rather than an SQLite path."""
    return db.startswith(POSTGRES_SCHEMES)  # as libpq, which takes no other case


def open_store(
    db: str, *, durable: bool = False, give_up_after: float = GIVE_UP_AFTER, init: bool = False
) -> Store:
    """The store for ``db``, not yet opened; ``durable`` and ``init`` (``--init-db``) are
    SQLite's (PostgreSQL's durability is its own, and its database is made by its owner)."""
    if is_postgres(db):
        return PostgresStore(db, give_up_after=give_up_after)
    return SqliteStore(db, durable=durable, give_up_after=give_up_after, init=init)
