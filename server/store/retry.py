"""The store's retry loop: a batch written whole, or else item by item.

What :class:`~server.store.machine.StoreMachine`'s worker does with a batch
(its theory of operation, "Faults"), apart from the machine's state: the
batch is written in one transaction, tried again with
:data:`core.backoff.STORE`'s delays while it fails for a passing reason
(:class:`~server.store.faults.StoreUnavailable`) until the machine's
:class:`~server.store.faults.Patience` runs out, and written again an item
at a time when it is refused, so that only the refused item is lost. Every
log line names the races concerned.

The machine hands in how to make one attempt (its own call, which keeps
``failing`` up to date) and what to run between two attempts (the test
calls waiting for their turn); nothing here touches the backend itself.
"""

from __future__ import annotations

import logging
from collections import deque
from typing import TYPE_CHECKING

from core.backoff import STORE, Attempts

from .faults import StoreError, StoreUnavailable

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from .batch import Writes
    from .faults import Patience

__all__ = ["write_each"]

log = logging.getLogger("flowergarden.server")


async def write_each(
    writes: Writes,
    attempt: Callable[[Writes], Awaitable[frozenset[str]]],
    patience: Patience,
    between: Callable[[], Awaitable[None]],
) -> frozenset[str]:
    """Write ``writes`` at once, or else item by item; raise only on giving up.

    ``attempt`` writes in one transaction; ``between`` runs between two
    attempts at a failing write. On giving up (:class:`StoreUnavailable`)
    every item not written is logged before the error is raised. Returns the
    races of which something was not written: refused under an old epoch
    (fenced), or lost; none of their frames may go out.
    """
    items, refused = deque([writes]), set[str]()
    while items:
        item = items.popleft()
        try:
            refused |= await _write_until_done(item, attempt, patience, between)
        except StoreUnavailable:
            log.error("store: gave up; not written: %s", "; ".join(map(str, [item, *items])))
            raise
        except Exception as exc:
            alone = list(item.one_by_one())
            if len(alone) > 1:  # find the refused one(s), and lose only them
                log.warning("store: could not write %s at once (%s); each alone", item, exc)
                items.extendleft(reversed(alone))
            elif isinstance(exc, StoreError):
                log.error("store: lost %s, refused: %s", item, exc)
                refused |= item.race_ids()
            else:  # a bug: the traceback says why
                log.error("store: lost %s", item, exc_info=exc)
                refused |= item.race_ids()
    return frozenset(refused)


async def _write_until_done(
    writes: Writes,
    attempt: Callable[[Writes], Awaitable[frozenset[str]]],
    patience: Patience,
    between: Callable[[], Awaitable[None]],
) -> frozenset[str]:
    """Write in one transaction, retrying transient failures until ``patience`` ends it."""
    attempts = Attempts(STORE)
    while True:
        try:
            refused = await attempt(writes)
        except StoreUnavailable as exc:
            delay = attempts.failed()
            if attempts.failures == 1:
                log.warning("store: cannot write %s (%s); retrying", writes, exc)
            if not await patience.pause(delay):
                raise
            await between()
            continue
        if attempts.failures:
            log.warning("store: wrote %s after %d failed attempts", writes, attempts.failures)
        if refused:
            log.warning(
                "store: refused, another worker's now or a person's second race: %s",
                ", ".join(refused),
            )
        return refused
