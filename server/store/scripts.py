"""Transactions that read and decide as they go: a script of statements, run whole on either store.

An operator's action reads before it writes (who has this name? was this race
rated?) and writes its line in the audit log in the same transaction; a report
checks the race, the reporter and their limit before it is kept. Each is a
*script*: a generator that yields each statement (SQL with ``?`` placeholders,
and its arguments) and is sent what that statement did (:class:`Did`: its rows,
and how many rows it changed); what the generator returns is the script's
result. A backend runs a script in one transaction of its own
(:meth:`server.store.interface.StoreBackend.run`, :func:`drive`): a script that
raises rolls the transaction back, and the exception reaches the caller as it
was raised. So what reads and then writes is written once, for both stores, and
without I/O: a test can drive a script by hand.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import TYPE_CHECKING, NamedTuple, TypeAlias, TypeVar

if TYPE_CHECKING:
    from .reads import Row
    from .rows import Statement

__all__ = ["Did", "Script", "drive", "drive_async"]

T = TypeVar("T")


class Did(NamedTuple):
    """What one statement of a script did."""

    rows: list[Row]
    """The rows it gave (none for a statement that gives none)."""
    changed: int
    """The rows it inserted, updated or deleted (-1 for a query)."""


Script: TypeAlias = Generator["Statement", Did, T]
"""A transaction's statements, each yielded and sent what it did; its result returned."""


def drive(script: Script[T], execute: Callable[[Statement], Did]) -> T:
    """Run ``script``, each statement through ``execute``; its result (a backend's loop)."""
    try:
        statement = next(script)
        while True:
            statement = script.send(execute(statement))
    except StopIteration as done:
        result: T = done.value
        return result


async def drive_async(script: Script[T], execute: Callable[[Statement], Awaitable[Did]]) -> T:
    """:func:`drive` with a backend whose statements are awaited (PostgreSQL's)."""
    try:
        statement = next(script)
        while True:
            statement = script.send(await execute(statement))
    except StopIteration as done:
        result: T = done.value
        return result
