"""Drawings of what the HTTP API answered: the leaderboard, a profile, a race history, a replay.

Pure functions of the lookups (:mod:`client.lookups`) and the replay
(:mod:`client.replay`), like :mod:`client.render` for the race; the screens
in :mod:`client.screens.browse` and :mod:`client.screens.replay_screen` only call
these.
"""

from __future__ import annotations

import datetime
import re
from typing import TYPE_CHECKING

from rich.text import Text

import lang
from lang import t

from .apidata import rating_text, whole
from .render import player_names, rules_words, versus
from .result import rating_change_words, times_words
from .timing import seconds_text
from .words import outcome_words

if TYPE_CHECKING:
    from collections.abc import Sequence

    import engine

    from .apidata import Leaderboard, Profile, RaceSummary
    from .lookups import History, Lookup
    from .replay import Replay

__all__ = [
    "ended_text",
    "history_rows",
    "history_title",
    "leader_rows",
    "lookup_status",
    "render_profile",
    "replay_bar",
    "replay_end",
    "summary_cells",
    "verdict_text",
]

_DIM = "#7a7a7a"
_LOUD = "bold white on red"
_HEX = re.compile(r"\b([0-9a-f]{12})[0-9a-f]{52}\b")


def lookup_status(pending: bool, error: str, *, shown: bool) -> Text:
    """``loading…`` while the first answer is awaited, the last error in red, else nothing."""
    if error:
        return Text(error, style="bold red")
    if pending:
        return Text(t("tui.browse.updating" if shown else "tui.browse.loading"), style=_DIM)
    return Text()


def leader_rows(board: Leaderboard) -> list[tuple[str, Sequence[str]]]:
    """The leaderboard's rows, keyed by name: rank, name, rating, races."""
    return [
        (row.name, (str(row.rank), row.name, str(whole(row.rating)), str(row.races)))
        for row in board.players
    ]


def render_profile(lookup: Lookup[Profile], name: str) -> Text:
    """A player's profile: rating, results, best clear, since when."""
    profile = lookup.value
    if profile is None:
        return Text(name, style="bold")
    text = Text(player_names([profile.name], [profile.bot])[0], style="bold")
    rating = rating_text(profile.rating, profile.provisional)
    text.append("   " + t("tui.profile.rating", rating=rating), style="magenta")
    if profile.provisional:
        text.append("  " + t("tui.profile.provisional"), style=_DIM)
    text.append("\n" + t("tui.profile.races", count=profile.races) + ": ")
    text.append(t("tui.profile.record", won=profile.wins, drawn=profile.draws, lost=profile.losses))
    none = t("tui.profile.none_yet")
    best = none if profile.best_clear_ms is None else seconds_text(profile.best_clear_ms)
    text.append("\n" + t("tui.profile.best", best=best))
    if profile.daily_streak or profile.daily_best_streak:
        streaks = t("tui.profile.streak", now=profile.daily_streak, best=profile.daily_best_streak)
        text.append("\n" + streaks)
    if profile.joined:
        text.append("\n" + t("tui.profile.joined", day=profile.joined[:10]))
    return text


def ended_text(ended: str) -> str:
    """``2024-05-01 14:03`` in this computer's time zone, from the API's ISO 8601."""
    try:
        when = datetime.datetime.fromisoformat(ended)
    except ValueError:
        return ended
    if when.tzinfo is not None:
        when = when.astimezone()
    return when.strftime("%Y-%m-%d %H:%M")


def summary_cells(race: RaceSummary, name: str) -> tuple[str, ...]:
    """One history row from ``name``'s side: when, against whom, result, cards, time, rating."""
    seat = race.seat_of(name)
    me = 0 if seat is None else seat
    other = 1 - me
    opponent = player_names(race.players, race.bots)[other]
    if race.result != "win" or race.winner is None:
        result = t("tui.history.draw")
    elif seat is None:
        result = t("result.won", winner=race.players[race.winner])
    else:
        result = t("tui.history.won" if race.winner == seat else "tui.history.lost")
    cards = f"{race.counts[me]}-{race.counts[other]}"
    t_ms = race.times_ms[me] if me < len(race.times_ms) else None
    time = "" if t_ms is None else seconds_text(t_ms)
    change = race.change(me)
    rating = ""
    if change is not None:
        delta = change.after - change.before
        rating = f"{change.after} ({'+' if delta >= 0 else '-'}{abs(delta)})"
    return (ended_text(race.ended), opponent, result, cards, time, rating)


def history_rows(history: History) -> list[tuple[str, Sequence[str]]]:
    return [(race.game_id, summary_cells(race, history.name)) for race in history.races]


def history_title(history: History) -> str:
    """``ann's races: 20 shown · n: older ones``."""
    shown = len(history.races)
    title = t("tui.history.title", name=history.name)
    if not history.loaded:
        return title
    if not shown:
        return f"{title}: {t('tui.history.none')}"
    more = t("tui.history.more" if history.more else "tui.history.all", count=shown)
    return f"{title}: {more} · {t('tui.history.enter_replays')}"


# -- the replay ----------------------------------------------------------------


def replay_bar(replay: Replay, now: float) -> Text:
    """``Replay · time 0:12.3 · 2x paused · ann 1500 vs bob 1480 · rated · mirror · winnable``.

    The time and the speed first: a long pair of names cuts the rules short, not them.
    """
    view = replay.view
    names = player_names(view.players, view.bots)
    for seat, before in enumerate(view.ratings):
        if before is not None:
            names[seat] += f" {before}"
    text = Text(t("tui.replay.title"), style="bold")
    text.append(f" · {t('tui.race.time', time=_stopwatch(replay.position(now)))}", style="bold")
    state = "ended" if replay.ended else "paused" if replay.paused else "playing"
    text.append(f" · {replay.speed}x {t(f'tui.replay.{state}')}", style="cyan")
    text.append(" · ")
    text.append(versus(names), style="bold")
    text.append(f" · {rules_words(view.rules)}")
    return text


def _stopwatch(ms: float) -> str:
    """``0:12.3``: the race's time to the tenth."""
    tenths = max(0, int(ms)) // 100
    minutes, rest = divmod(tenths, 600)
    return f"{minutes}:{lang.number(rest / 10, decimals=1).zfill(4)}"


def replay_end(replay: Replay) -> Text:
    """At the end: the result as recorded, the times, the rating changes, the record's check."""
    if not replay.ended:
        return Text()
    view = replay.view
    outcome = replay.outcome()
    clock = view.rules.time_limit_s
    headline, reason = outcome_words(outcome, None, view.players, clock_s=clock)
    text = Text(headline, style="bold reverse")
    text.append(f"  {reason}\n")
    text.append(times_words(outcome, view), style="bold")
    changes = [
        f"{name} {rating_change_words(change)}"
        for seat, name in enumerate(view.players)
        if (change := replay.summary.change(seat)) is not None
    ]
    if changes:
        text.append("\n" + t("tui.result.rating", changes="   ·   ".join(changes)))
    if replay.verdict is not None:
        text.append("\n")
        text.append_text(verdict_text(replay.verdict))
    return text


def verdict_text(verdict: engine.Verdict) -> Text:
    """``record verified: …`` in green, or ``record NOT verified: <the first failure>`` loudly."""
    if verdict.ok:
        unproved = [check.name for check in verdict.checks if check.outcome == "not checkable"]
        words = t("tui.record.verified")
        if unproved:
            words += " " + t("tui.record.unchecked", checks=", ".join(unproved))
        return Text(words, style="green")
    failed = next(check for check in verdict.checks if check.outcome == "failed")
    detail = _HEX.sub(r"\1…", failed.detail)  # the engine's own words for the check
    return Text(t("tui.record.failed", why=f"{failed.name}: {detail}"), style=_LOUD)
