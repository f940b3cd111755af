"""The SQLite journal's rows: the entries one transaction writes, as lines of one text.

Under load a batch holds the plays of a whole pass of the event loop, hundreds
of them. A row per entry cost each play about 4 µs of the loop's time in
``executemany`` and the B-tree (``python -m bench.store``); a row per batch,
its entries as text, costs a fraction of that, and restoring reads the few
rows the live races need. PostgreSQL keeps a row per entry
(:mod:`server.store.postgres`): there the round trip per statement, not the
row, is what costs.

A line is ``race_id seq seat what at``, single spaces between, lines joined by
``\\n``; ``at`` as ``repr`` writes a float, so it reads back the same. Game
ids are the lobby's hex digits and an entry's ``what`` a card code or one of
``ENTRY_KINDS``: neither holds whitespace.

Reading never raises: a line that cannot be read is logged, and if it names a
race it comes back as :data:`UNREADABLE`, an entry no race can replay, so
that restoring aborts that race (:func:`core.restore.restore`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from core.race_log import Entry

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

__all__ = ["UNREADABLE", "entries_text", "read_entries"]

log = logging.getLogger("flowergarden.server")

UNREADABLE = Entry(0, 0, "", 0.0)
"""What an unreadable line gives back: ``seq`` 0 follows no event of a race."""


def entries_text(entries: Iterable[tuple[str, Entry]]) -> str:
    """The text of one journal row: each ``(game_id, entry)`` a line."""
    return "\n".join(
        [f"{game_id} {seq} {seat} {what} {at!r}" for game_id, (seq, seat, what, at) in entries]
    )


def read_entries(text: object) -> Iterator[tuple[str, Entry]]:
    """The ``(game_id, entry)`` of each line of a journal row, in order."""
    if not isinstance(text, str):
        log.error("journal: cannot read a row of %s", type(text).__name__)
        return
    for line in text.split("\n"):
        fields = line.split(" ")
        if len(fields) == 5:
            try:
                yield (
                    fields[0],
                    Entry(int(fields[1]), int(fields[2]), fields[3], float(fields[4])),
                )
                continue
            except ValueError:
                pass
        log.error("journal: cannot read the entry %r", line[:100])
        if fields[0]:
            yield fields[0], UNREADABLE
