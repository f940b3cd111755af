"""The end of a race drawn as Rich text: result, reason, times and margin, the deal's check.

Pure functions of a finished :class:`~client.race_view.RaceView`, like
:mod:`client.render`, which draws the race while it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from lang import t

from . import words
from .competition_words import arena_result_words, daily_result_words
from .render import player_names
from .words import outcome_words

if TYPE_CHECKING:
    from protocol import RatingChange

    from .apidata import DailyBoard
    from .bests import Best, PracticeBest
    from .competition_words import ArenaView
    from .race_view import Outcome, RaceView

__all__ = [
    "best_words",
    "practice_best_words",
    "rating_change_words",
    "render_result",
    "times_words",
]

_DIM = "#7a7a7a"
_LOUD = "bold white on red"


def render_result(
    race: RaceView, daily: DailyBoard | None = None, arena: ArenaView | None = None
) -> Text:
    """The end of a race: the result, the reason, each player's time, and what to do next;
    a daily race's time against the leader's on ``daily``, the day's board; an arena
    race's points and one's place in ``arena``."""
    over = race.over
    assert over is not None
    names = player_names(race.players, race.bots)  # a bot's marked: "BOT-Hare (bot)"
    headline, reason = outcome_words(
        over, race.seat, names, idle_s=race.idle_s, clock_s=race.rules.time_limit_s
    )
    text = Text(headline, style="bold reverse")
    text.append(f"  {reason}\n")
    text.append(times_words(over, race), style="bold")
    if race.best is not None and (best := practice_best_words(race.best)):
        text.append(f"  ·  {best}", style="bold green" if race.best.new else "")
    text.append("\n")
    if over.ratings and len(over.ratings) == len(race.players):
        changes = [
            f"{name} {rating_change_words(change)}"
            for name, change in zip(race.players, over.ratings, strict=True)
        ]
        text.append(t("tui.result.rating", changes="   ·   ".join(changes)) + "\n")
    elif over.unrated is not None:  # rated rules, no rating changed: why
        why = t(f"unrated.{over.unrated}") if over.unrated in words.UNRATED else over.unrated
        text.append(why + "\n", style="bold yellow")
    if race.report != "open":
        done = race.report in ("sent", "done")
        text.append(t(f"tui.report.{race.report}") + "\n", style="green" if done else "yellow")
    for said in (daily_result_words(race, daily), arena_result_words(race, arena)):
        if said:
            text.append(said + "\n", style="bold")
    check = race.deal_check
    if check is not None:
        text.append(check.words, style="green" if check.ok else _LOUD)
        text.append("\n")
    text.append_text(_next_keys(race))
    text.rstrip()
    return text


def rating_change_words(change: RatingChange) -> str:
    """``1500 → 1523 (+23)``; ``1500 → 1500 (±0)``."""
    delta = change.after - change.before
    sign = "+" if delta > 0 else "-" if delta < 0 else "±"
    return f"{change.before} → {change.after} ({sign}{abs(delta)})"


def times_words(over: Outcome, race: RaceView) -> str:
    """Each board's end, the winner's margin beside it (:func:`client.words.times_words`)."""
    counts = [
        over.counts[seat] if seat < len(over.counts) else board.count
        for seat, board in enumerate(race.boards)
    ]
    winner = over.winner if over.result == "win" else None
    return words.times_words(player_names(race.players, race.bots), counts, over.times_ms, winner)


def best_words(best: Best) -> str:
    """``cleared in 41.2 s``, or ``40/52, last card at 38.5 s``."""
    return words.count_words(best.count, best.ms)


def practice_best_words(best: PracticeBest) -> str:
    """What the result says of the personal best for its rules ("" when there is none)."""
    if best.new and best.previous is not None:
        return t("tui.best.new", rules=best.rules, was=best_words(best.previous))
    if best.new:
        return t("tui.best.first", rules=best.rules)
    if best.previous is not None:
        return t("tui.best.kept", rules=best.rules, best=best_words(best.previous))
    return ""


def _next_keys(race: RaceView) -> Text:
    text = Text()
    if race.other is None:
        return text.append(_keys(["new_deal", "quit"]), style=_DIM)
    if race.seat is None:
        return text.append(_keys(["lobby"]), style=_DIM)
    if race.daily is not None or race.arena_id is not None:
        return text  # the footer has them; the lines go to the daily's and arena's words
    if race.rematch_offered:
        opponent = race.players[1 - race.seat]
        text.append(t("tui.result.rematch_offered", name=opponent) + "  ", style="bold green")
    if race.rematch_asked:
        text.append(t("tui.result.rematch_asked") + "  ", style="green")
    report = ["report"] if race.reportable else []
    return text.append(_keys(["rematch", "profile", *report, "lobby", "quit"]), style=_DIM)


def _keys(names: list[str]) -> str:
    """``r  rematch    o  their profile``: the keys' footer words, spaced wider."""
    return "    ".join(f"{words.KEY_WORDS[name]}  {t(f'tui.key.{name}')}" for name in names)
