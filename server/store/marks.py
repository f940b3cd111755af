"""Marks: the races that point the operator at a player, flagged or reported.

A *mark* is one row of ``marks``: a player, a finished race, and why the
operator should look at it. The race core flags a seat whose timing no person
could have (:mod:`core.fair_play`): the store writes a ``flag`` mark for it in
the transaction that records the race (:func:`server.store.rows.counted`). A
player reports the other player of a finished race of theirs (``report``,
PROTOCOL.md): :func:`report` writes a ``report`` mark. The operator clears a
player (``flowergarden-admin clear``): their marks stay, as history, with
``cleared`` set.

A player's *flags* are their uncleared ``flag`` marks: the count the lobby core
is given at each hello (``Lobby.connect(..., flags=n)``), from which rated
races are refused (:data:`core.rated.BARRED_AT`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.events import Refused

if TYPE_CHECKING:
    from .scripts import Script

__all__ = [
    "CLEAR_MARKS",
    "DAY",
    "FLAG",
    "FLAGS_OF",
    "REPORTS_PER_DAY",
    "report",
]

DAY = 86_400.0
"""Seconds in the window of :data:`REPORTS_PER_DAY`."""
REPORTS_PER_DAY = 10
"""Reports one player may make in any 24 hours: the operator reads every one, and a
player with a grudge could otherwise bury the review in them."""

FLAG = "INSERT INTO marks (player_id, race_id, kind, at) VALUES (?, ?, 'flag', ?)"
"""A seat flagged for play no person could make, written with its race."""
FLAGS_OF = (
    "(SELECT count(*) FROM marks"
    " WHERE marks.player_id = players.id AND kind = 'flag' AND cleared IS NULL)"
)
"""A player's uncleared flagged races, as a column of a query of ``players``."""
CLEAR_MARKS = "UPDATE marks SET cleared = ? WHERE player_id = ? AND cleared IS NULL"

_RACE_PLAYERS = "SELECT player0, player1 FROM races WHERE id = ?"
_REPORTED = "SELECT 1 FROM marks WHERE race_id = ? AND kind = 'report' AND reporter = ?"
_REPORTS_SINCE = "SELECT count(*) FROM marks WHERE reporter = ? AND kind = 'report' AND at > ?"
_INSERT_REPORT = (
    "INSERT INTO marks (player_id, race_id, kind, reporter, reason, at)"
    " VALUES (?, ?, 'report', ?, ?, ?)"
)


def report(
    game_id: str, reporter: str, reason: str | None, at: float, per_day: int = REPORTS_PER_DAY
) -> Script[str]:
    """``reporter`` reports the other player of finished race ``game_id`` at wall time
    ``at``; the id of the player reported.

    Refused, as the protocol says: ``game_not_found`` for a race that is not a
    finished one, ``not_allowed`` for a race not the reporter's or one they
    reported already, ``rate_limited`` past :data:`REPORTS_PER_DAY`.
    """
    race = yield (_RACE_PLAYERS, (game_id,))
    if not race.rows:
        raise Refused("game_not_found", f"no finished race has the id {game_id!r}")
    players = [str(player_id) for player_id in race.rows[0]]
    if reporter not in players:
        raise Refused("not_allowed", "only a player of that race may report it")
    reported = players[1 - players.index(reporter)]
    if (yield (_REPORTED, (game_id, reporter))).rows:
        raise Refused("not_allowed", "you have reported that race already")
    ((made,),) = (yield (_REPORTS_SINCE, (reporter, at - DAY))).rows
    if not isinstance(made, int) or made >= per_day:
        raise Refused("rate_limited", f"at most {per_day} reports a day; try again later")
    yield (_INSERT_REPORT, (reported, game_id, reporter, reason, at))
    return reported
