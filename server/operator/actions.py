"""The operator's actions: each one store transaction, its line in the audit log included.

Theory of operation
-------------------
The admin API (:mod:`server.http.admin`) and the command line
(:mod:`server.operator.commands`) do nothing of their own: each action is a
script here (:mod:`server.store.scripts`) that finds its target, checks that
the action can be done, changes the store and writes its line in ``actions``
(when, what, to whom, why, by whom), all in one transaction, on either store.
A refusal raises before anything is written: :class:`UnknownPlayer`,
:class:`UnknownRace`, or :class:`ActionRefused` with the reason in words.

What an action changes in a running server (a connection to close, a name in
a registry, a bot mark in a lobby core) every worker applies from the log
(:mod:`server.operator.watch`): the line's ``player_id`` and ``detail`` say what.

Annulling a race's rating change reverses the one change (docs/operating.md,
"Annulling"): each player's rating goes back by what the race moved it, and
when the race is still the player's latest rated one, their deviation and
volatility go back too (:func:`put_back`); no other player's rating moves.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING, TypeVar

from core.bots import is_bot
from core.events import Refused
from core.glicko2 import Glicko
from core.identity import Registry
from server.store import StoreRefused
from server.store.marks import CLEAR_MARKS, FLAGS_OF

if TYPE_CHECKING:
    from collections.abc import Callable

    from server.store import Store
    from server.store.scripts import Script

__all__ = [
    "ANNUL",
    "PLAYER_ACTIONS",
    "RENAME",
    "ActionRefused",
    "Annulled",
    "Logged",
    "Order",
    "PlayerAction",
    "PlayerNow",
    "Rerated",
    "UnknownPlayer",
    "UnknownRace",
    "annul",
    "forget_statement",
    "log_line",
    "number",
    "perform",
    "put_back",
    "real",
    "rename",
]


T = TypeVar("T")


class ActionRefused(Exception):
    """The action cannot be done (a name taken, a race not rated): nothing changed."""


class UnknownPlayer(ActionRefused):
    """No player, or none not forgotten, has that name."""


class UnknownRace(ActionRefused):
    """No finished race has that id."""


@dataclass(frozen=True, slots=True)
class Order:
    """Who asks for an action, why, and when (wall-clock seconds)."""

    reason: str
    by: str
    at: float


@dataclass(frozen=True, slots=True)
class Logged:
    """One line of the audit log: an action done, and what the workers apply of it."""

    id: int
    at: float
    action: str
    target: str
    """The player's name when it was done, or the race's id."""
    reason: str
    by: str
    player_id: str | None
    """The player it concerns, for the workers; None for a race."""
    detail: str | None
    """JSON: the new name of a rename, the players and ratings of an annul."""


@dataclass(frozen=True, slots=True)
class PlayerNow:
    """A player as an action leaves them."""

    player_id: str
    name: str
    banned: bool
    bot: bool
    flags: int
    forgotten: bool = False


@dataclass(frozen=True, slots=True)
class Rerated:
    """One player's rating as an annul put it back: shown before and after the annul."""

    name: str
    before: int
    after: int


@dataclass(frozen=True, slots=True)
class Annulled:
    """What an annul did."""

    line: Logged
    ratings: tuple[Rerated, Rerated]


_LOG = (
    "INSERT INTO actions (at, action, target, reason, done_by, player_id, detail)"
    " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id"
)
_PLAYER = (
    f"SELECT id, name, banned, bot, {FLAGS_OF} FROM players"
    " WHERE name_key = ? AND forgotten IS NULL"
)
_SET_BANNED = "UPDATE players SET banned = ? WHERE id = ?"
_SET_BOT = "UPDATE players SET bot = 1 WHERE id = ?"
_NAME_TAKEN = "SELECT 1 FROM players WHERE name_key = ? AND id <> ?"
_RENAME = "UPDATE players SET name = ?, name_key = ? WHERE id = ?"
_FORGET = (
    "UPDATE players SET name_key = ?, token_hash = ?, forgotten = ? WHERE id = ?"
    " AND forgotten IS NULL"
)
"""A forgotten player's name key and token hash become ``~`` and their id: no name
(letters, digits, ``_``, ``-``) and no SHA-256 in hex is either, so the name is free and
the token names nobody. Their name stays on the races they raced."""
_STILL_UNUSED = " AND games = 0 AND banned = 0 AND last_seen < ?"
"""Checked in the very statement: a player who came back meanwhile, or whom another
worker's sweep forgot first, is left alone (PostgreSQL reads the row again once it is
free)."""


def log_line(
    order: Order,
    action: str,
    target: str,
    player_id: str | None = None,
    detail: str | None = None,
) -> Script[Logged]:
    """Write one line of the audit log; the line."""
    values = (order.at, action, target, order.reason, order.by, player_id, detail)
    did = yield (_LOG, values)
    ((line_id,),) = did.rows
    return Logged(
        number(line_id), order.at, action, target, order.reason, order.by, player_id, detail
    )


def number(value: object) -> int:
    """A column that holds a whole number (SQLite and psycopg give ints; a sum may be
    a Decimal on PostgreSQL)."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ValueError(f"not a number: {value!r}")
    return int(value)


def real(value: object) -> float:
    """A column that holds a number, as a float."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ValueError(f"not a number: {value!r}")
    return float(value)


def _player(name: str) -> Script[PlayerNow]:
    did = yield (_PLAYER, (name.lower(),))
    if not did.rows:
        raise UnknownPlayer(f"no player is named {name}")
    ((player_id, stored, banned, bot, flags),) = did.rows
    if is_bot(str(player_id)):
        raise ActionRefused(f"{stored} is one of the server's own bots")
    return PlayerNow(str(player_id), str(stored), bool(banned), bool(bot), number(flags))


def forget_statement(
    player_id: str, at: float, unused_before: float | None = None
) -> tuple[str, tuple[object, ...]]:
    """The statement that forgets a player: the operator's; or, with ``unused_before``,
    only while they are still unused, not seen since then (server/operator/forgetting.py)."""
    forget = (f"~{player_id}", f"~{player_id}", at, player_id)
    if unused_before is None:
        return _FORGET, forget
    return f"{_FORGET}{_STILL_UNUSED}", (*forget, unused_before)


@dataclass(frozen=True, slots=True)
class PlayerAction:
    """An action on one player, as the command line and the admin API name it."""

    name: str
    summary: str
    """What it does, in one line: the CLI's help, the API's summary."""
    change: Callable[[PlayerNow, Order], Script[PlayerNow]]
    """Its change to the store, given the player as found: the player as left."""

    def script(self, name: str, order: Order) -> Script[tuple[Logged, PlayerNow]]:
        """The whole action on the player named ``name``: found, changed, logged."""
        player = yield from _player(name)
        after = yield from self.change(player, order)
        line = yield from log_line(order, self.name, player.name, player.player_id)
        return line, after


def _banned(value: bool) -> Callable[[PlayerNow, Order], Script[PlayerNow]]:
    def change(player: PlayerNow, order: Order) -> Script[PlayerNow]:
        yield (_SET_BANNED, (int(value), player.player_id))
        return replace(player, banned=value)

    return change


def _declare(player: PlayerNow, order: Order) -> Script[PlayerNow]:
    yield (_SET_BOT, (player.player_id,))
    return replace(player, bot=True)


def _clear(player: PlayerNow, order: Order) -> Script[PlayerNow]:
    yield (CLEAR_MARKS, (order.at, player.player_id))
    return replace(player, flags=0)


def _forget(player: PlayerNow, order: Order) -> Script[PlayerNow]:
    yield forget_statement(player.player_id, order.at)
    return replace(player, forgotten=True)


PLAYER_ACTIONS: dict[str, PlayerAction] = {
    action.name: action
    for action in (
        PlayerAction("ban", "Ban a player: a connected one is closed (4001), a hello is"
                     " answered `banned`.", _banned(True)),
        PlayerAction("unban", "Lift a player's ban.", _banned(False)),
        PlayerAction("forget", "Forget a player: their name is free, their token"
                     " `bad_token`; their races keep the name.", _forget),
        PlayerAction("bot", "Mark a player a bot, for ever: labelled, never rated.", _declare),
        PlayerAction("clear", "Clear a player's fair-play flags and reports: they may race"
                     " rated again.", _clear),
    )
}  # fmt: skip
"""The actions on one player that take nothing but a reason; ``rename`` takes a name."""


RENAME = "Rename a player: the old name is free at once."
ANNUL = "Reverse a rated race's rating change (docs/operating.md, 'Annulling a race')."


def rename(name: str, new: str, order: Order) -> Script[tuple[Logged, PlayerNow]]:
    """Give the player named ``name`` the name ``new``, by the rule every name follows."""
    player = yield from _player(name)
    try:
        Registry().check_name(new)  # the rule a new player's name passes, taken aside
    except Refused as refused:
        raise ActionRefused(refused.message) from None
    if (yield (_NAME_TAKEN, (new.lower(), player.player_id))).rows:
        raise ActionRefused(f"the name {new} is taken (names ignore case)")
    yield (_RENAME, (new, new.lower(), player.player_id))
    detail = json.dumps({"name": new})
    line = yield from log_line(order, "rename", player.name, player.player_id, detail)
    return line, replace(player, name=new)


_RACE = (
    "SELECT player0, player1, glicko, rating0_before, rating0_after, rating1_before,"
    " rating1_after, annulled, ended FROM races WHERE id = ?"
)
_RACING_RATED = (
    "SELECT p.name FROM live_races AS l JOIN players AS p ON p.id IN (l.player0, l.player1)"
    " WHERE l.ratings IS NOT NULL AND p.id IN (?, ?)"
)
_RATING = "SELECT name, rating, deviation, volatility FROM players WHERE id = ?"
_LATER = (
    "SELECT count(*) FROM races WHERE (player0 = ? OR player1 = ?) AND annulled IS NULL"
    " AND rating0_after IS NOT NULL AND (ended > ? OR (ended = ? AND id > ?))"
)
_SET_RATING = (
    "UPDATE players SET rating = ?, deviation = ?, volatility = ?,"
    " rated_races = rated_races - 1 WHERE id = ?"
)
_ANNUL = "UPDATE races SET annulled = ? WHERE id = ?"


def put_back(now: Glicko, before: Glicko, after: Glicko, *, latest: bool) -> Glicko:
    """A player's rating with one race's change reversed (see the module docstring).

    ``latest``: the race is still their latest rated race, so ``now`` is its
    ``after`` and ``before`` is exactly where they stood. Otherwise later races
    moved them from there: their rating goes back by the race's change, and
    their deviation and volatility, which later races narrowed, stay.
    """
    if latest:
        return before
    return Glicko(now.rating - (after.rating - before.rating), now.deviation, now.volatility)


def annul(game_id: str, order: Order) -> Script[Annulled]:
    """Reverse the rating change of finished race ``game_id`` (see :func:`put_back`)."""
    found = yield (_RACE, (game_id,))
    if not found.rows:
        raise UnknownRace(f"no finished race has the id {game_id}")
    (row,) = found.rows
    players = (str(row[0]), str(row[1]))
    if row[7] is not None:
        raise ActionRefused(f"race {game_id} is annulled already")
    if row[4] is None:
        raise ActionRefused(f"race {game_id} changed no rating")
    racing = (yield (_RACING_RATED, players)).rows
    if racing:
        raise ActionRefused(f"{racing[0][0]} is racing a rated race: annul once it ends")
    befores, afters = _full_ratings(row)
    changes = []
    for seat, player_id in enumerate(players):
        ((name, *values),) = (yield (_RATING, (player_id,))).rows
        now = Glicko(*(real(value) for value in values))
        later = (yield (_LATER, (player_id, player_id, row[8], row[8], game_id))).rows
        exact = befores is not None and afters is not None
        before = befores[seat] if befores is not None else _shifted(now, row, seat, 3)
        after = afters[seat] if afters is not None else _shifted(now, row, seat, 4)
        new = put_back(now, before, after, latest=exact and later == [(0,)])
        yield (_SET_RATING, (new.rating, new.deviation, new.volatility, player_id))
        changes.append(Rerated(str(name), now.shown, new.shown))
    yield (_ANNUL, (order.at, game_id))
    words = ", ".join(f"{change.name} {change.before} to {change.after}" for change in changes)
    detail = json.dumps({"players": list(players), "words": words})
    line = yield from log_line(order, "annul", game_id, None, detail)
    return Annulled(line, (changes[0], changes[1]))


def _full_ratings(row: tuple[object, ...]) -> tuple[list[Glicko] | None, list[Glicko] | None]:
    """The race's ratings before and after as recorded in full (``races.glicko``), if they are."""
    if not isinstance(row[2], str):
        return None, None  # recorded before full ratings were kept: the shown ones serve
    kept = json.loads(row[2])
    before, after = ([Glicko(*values) for values in kept[key]] for key in ("before", "after"))
    return before, after


def _shifted(now: Glicko, row: tuple[object, ...], seat: int, column: int) -> Glicko:
    """A rating as shown in the race's columns (before: 3, after: 4), for ``seat``."""
    return Glicko(real(row[column + 2 * seat]), now.deviation, now.volatility)


async def perform(store: Store, script: Script[T]) -> T:
    """Run an action's script on ``store``; a name the store's own constraints refuse
    (another server took it meanwhile) is :class:`ActionRefused` too."""
    try:
        return await store.run(script)
    except StoreRefused as refused:
        raise ActionRefused(f"the store refused it: {refused}") from None
