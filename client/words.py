"""The client's words: how a race ended, the server's errors, fair play and the operator's
hand (a report, a ban, a rated race refused, a race left unrated), and the keys each screen
has. Every text is the catalogue's (:mod:`lang`: ``common`` for the game's words, the
reasons and the errors by code; ``terminal`` for the rest), asked for when it is drawn,
so that a screen speaks the language in use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

import lang
from lang import t

from .timing import seconds_text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from protocol import Error

    from .state import Outcome

__all__ = [
    "ANSWERED_BY_ID",
    "KEY_WORDS",
    "QUESTIONS",
    "REMATCH_ID",
    "REPORT_ID",
    "REPORT_STATES",
    "UNRATED",
    "banned_words",
    "count_words",
    "error_words",
    "key_help",
    "key_hints",
    "lobby_help",
    "margin_words",
    "not_allowed_words",
    "offer_words",
    "outcome_words",
    "times_words",
]

REMATCH_ID = "rematch"
"""The ``id`` this client puts on ``rematch``. The server copies it into the answer, so an
error that carries it answers the rematch (``game_not_found``: the offer lapsed): the
client tells the cases apart by code and id, never by the English of ``message``."""
REPORT_ID = "report"
"""The ``id`` on ``report``: its ``not_allowed`` (a second report) and ``rate_limited`` (too
many a day) are the report's, said on the result, not the lobby's or the rate limit's."""
ANSWERED_BY_ID = frozenset({"seek", "create_room", "join_room", REMATCH_ID, REPORT_ID})
"""The requests that carry their own type as ``id`` (the app puts it on): an error that
answers one of them is read by what it answers (``not_allowed`` to a rated seek is the
player's own standing, to a rated room's join maybe the host's)."""


def outcome_words(
    outcome: Outcome,
    seat: int | None,
    players: list[str],
    *,
    idle_s: float | None = None,
    clock_s: int | None = None,
) -> tuple[str, str]:
    """The headline (``You won``) and the reason in words (the ``common`` catalogue's).

    ``idle_s`` names a time-out by the idle limit: "ann timed out: no play for 60 s";
    ``clock_s`` is the race's time limit (the reason ``time`` says the clock ran out).
    """
    if outcome.result == "solo":
        count = outcome.counts[0]
        if count == 52:
            return t("tui.practice.cleared"), t("tui.practice.cleared_why")
        on = t("tui.practice.on_foundations", count=count)
        return t(
            "tui.practice.given_up" if outcome.reason == "resigned" else "tui.practice.stalled"
        ), on
    winner, loser = _names(outcome, players)
    if outcome.result == "draw":
        headline = t("result.draw")
    elif seat is None:
        headline = t("result.won", winner=winner)
    else:
        headline = t("result.you_won" if outcome.winner == seat else "result.you_lost")
    if outcome.reason == "time":
        return headline, _clock_words(outcome, winner)
    known = outcome.reason in _REASONS
    reason = t(f"reason.{outcome.reason}", winner=winner, loser=loser) if known else outcome.reason
    return headline, _timed_out_words(outcome, players, reason, idle_s)


_REASONS = frozenset(
    {"cleared", "resigned", "abandoned", "most_cards", "equal_cards", "first_to_count", "aborted"}
)
"""The reasons the ``common`` catalogue words as ``reason.*`` (``time``: :func:`_clock_words`)."""


def count_words(count: int, t_ms: int | None) -> str:
    """One board's end: ``cleared in 41.2 s``, ``40/52, last card at 38.1 s``, ``0/52``.

    Only a clear is a finishing time; a count's time is when its last card went up,
    so it is said as that, and never reads as a time to beat.
    """
    if t_ms is None:
        return f"{count}/52"
    if count == 52:
        return t("count.cleared_in", time=seconds_text(t_ms))
    return t("count.last_card", count=count, time=seconds_text(t_ms))


def margin_words(winner: int, counts: Sequence[int], times_ms: Sequence[int | None]) -> str:
    """How far the winner finished ahead: ``22 cards ahead``, ``2.0 s sooner``, or "".

    More cards is the margin whenever the counts differ (a clear against 30 cards is 22
    cards, whenever the loser's last card went up). At equal counts the winner got
    there first, and the margin is how much sooner. A winner with fewer cards (the other
    resigned or left) has no margin.
    """
    loser = 1 - winner
    ahead = counts[winner] - counts[loser]
    if ahead > 0:
        return t("margin.cards_ahead", count=ahead)
    won_at, lost_at = times_ms[winner], times_ms[loser]
    if ahead == 0 and won_at is not None and lost_at is not None and won_at < lost_at:
        return t("margin.sooner", time=seconds_text(lost_at - won_at))
    return ""


def times_words(
    names: Sequence[str],
    counts: Sequence[int],
    times_ms: Sequence[int | None],
    winner: int | None = None,
) -> str:
    """``bob cleared in 16.8 s, 22 cards ahead   ·   ann 30/52, last card at 13.3 s``.

    The browser says the same (``web/static/js/words.js``'s ``timesWords``).
    """
    parts = []
    for seat, name in enumerate(names):
        t_ms = times_ms[seat] if seat < len(times_ms) else None
        part = f"{name} {count_words(counts[seat], t_ms)}"
        if seat == winner and len(counts) == len(times_ms) == 2:
            margin = margin_words(winner, counts, times_ms)
            part += f", {margin}" if margin else ""
        parts.append(part)
    return "   ·   ".join(parts)


def _timed_out_words(
    outcome: Outcome, players: list[str], reason: str, idle_s: float | None
) -> str:
    """``reason``, naming who timed out by the idle limit when a count decided the race."""
    timed = [s for s, out in enumerate(outcome.timed_out) if out]
    if not timed or outcome.reason not in ("most_cards", "equal_cards", "first_to_count"):
        return reason
    who = players[timed[0]]
    if len(timed) == 2:
        who = t("tui.timeout.pair", first=players[0], second=players[1])
    if idle_s:
        said = t("tui.timeout.idle", who=who, seconds=lang.number(idle_s))
    else:
        said = t("tui.timeout.late", who=who)
    if outcome.reason == "most_cards" and outcome.winner not in timed:
        return said  # that is what decided it
    return f"{said}; {reason}"


def _clock_words(outcome: Outcome, winner: str) -> str:
    """The race's clock ran out (reason ``time``): the same comparison of counts decides."""
    counts = outcome.counts
    if outcome.result == "draw":
        return t("reason.time_draw")
    if len(counts) == 2 and counts[0] == counts[1]:
        return t("reason.time_first", winner=winner)
    return t("reason.time", winner=winner)


def _names(outcome: Outcome, players: list[str]) -> tuple[str, str]:
    if outcome.winner is None:
        return "", ""
    return players[outcome.winner], players[1 - outcome.winner]


def error_words(error: Error, *, bot: bool = False) -> str:
    """An error in words, by its code and the request it answers (its ``id``), never by the
    English of its ``message``; ``bot``: this player is a bot (``welcome.bot``), which is
    why a rated race is refused."""
    if error.code == "game_not_found" and error.id == REMATCH_ID:
        return t("error.rematch_lapsed")
    if error.code == "not_allowed":
        return not_allowed_words(error.id, bot=bot)
    return t(f"error.{error.code}")


# -- fair play and the operator's hand -------------------------------------------------


def banned_words(name: str, where: str) -> str:
    """The banned screen under its title: who, where, and that the client stays away."""
    return t("tui.banned.body", name=name or t("tui.banned.this_player"), server=where)


UNRATED = frozenset({"no_play", "fair_play"})
"""``game_over.unrated``: the ``common`` catalogue's ``unrated.*``, said where a rated race's
rating change would be."""

REPORT_STATES = frozenset({"sent", "done", "twice", "limit", "gone"})
"""What the result says of a report (``report.<state>``), by
:attr:`~client.race_view.RaceView.report`."""


def not_allowed_words(answers: object, *, bot: bool) -> str:
    """``not_allowed``, by the request it ``answers`` (its id). A rated seek or room is
    refused for the player's own standing, which the client knows (a bot: ``welcome.bot``;
    else barred for flagged races); a room's join or a rematch may be refused for either
    player or their one address."""
    if answers in ("seek", "create_room", "join_room", REMATCH_ID) and bot:
        return t("tui.refused.bot")
    if answers in ("seek", "create_room"):
        return t("tui.refused.barred")
    if answers in ("join_room", REMATCH_ID):
        return t("tui.refused.pair")
    return t("error.not_allowed")


def offer_words(kind: str) -> str:
    """The lobby's offer after a refused rated ``seek`` or ``create_room``: the same, unrated."""
    return t(
        "tui.refused.offer_seek" if kind == "seek" else "tui.refused.offer_room"
    )  # after "u  "


KEY_WORDS: dict[str, str] = {
    "beds": "1-6",
    "bouquet": "a-p",
    "prompt": "/",
    "redeal": "r",
    "resign": "x",
    "give_up": "x",
    "new_deal": "r",
    "rematch": "r",
    "profile": "o",
    "report": "!",
    "daily_again": "r",
    "daily_board": "t",
    "pause": "z",
    "lobby": "Esc",
    "quit": "q",
    "quit_race": "q",
    "help": "?",
}
"""Each race key by what it does; the footer's word or two is ``key.NAME`` and the help's
line ``keyhelp.NAME`` in the catalogue.

The race screen lists only the keys that work where the player is
(:func:`client.screens.race_screen.race_keys`): footer, help and keys come from one list.
"""

QUESTIONS = frozenset({"resign", "give_up", "quit_race"})
"""What the race screen asks (``question.NAME``) before a key that cannot be taken back."""


def key_hints(keys: list[str], width: int | None = None) -> str:
    """The footer: ``1-6 bed  a-p bouquet  / type a card  x resign  ? help``; on a line of
    ``width`` cells too short for it (a longer language), ``1-6 a-p play`` says both."""
    hints = "  ".join(f"{KEY_WORDS[name]} {t(f'tui.key.{name}')}" for name in keys)
    if width is None or len(hints) <= width or not {"beds", "bouquet"} <= set(keys):
        return hints
    rest = [name for name in keys if name not in ("beds", "bouquet")]
    cards = f"{KEY_WORDS['beds']} {KEY_WORDS['bouquet']} {t('tui.key.cards')}"
    return "  ".join([cards, *(f"{KEY_WORDS[name]} {t(f'tui.key.{name}')}" for name in rest)])


def key_help(where: str, keys: list[str]) -> Text:
    """The help page of a race screen: a title for ``where``, then one line per key."""
    text = Text(t(f"tui.help.{where}"), style="bold")
    for name in keys:
        text.append(f"\n  {KEY_WORDS[name]:<5} {t(f'tui.keyhelp.{name}')}")
    if "beds" in keys:
        text.append("\n" + t("tui.help.labels"))
    text.append("\n" + t("tui.help.howto"))
    return text.append("\n\n" + t("tui.help.close"))


def lobby_help() -> Text:
    """The lobby's keys, on one page."""
    text = Text(t("tui.help.lobby"), style="bold")
    text.append("\n" + t("tui.help.lobby_keys"))
    text.append("\n" + t("tui.help.howto"))
    return text.append("\n\n" + t("tui.help.close"))
