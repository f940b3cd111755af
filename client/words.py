"""The client's words: how a race ended, the server's errors, fair play and the operator's
hand (a report, a ban, a rated race refused, a race left unrated), and the keys each screen
has."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .timing import seconds_text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from protocol import Error, ErrorCode

    from .state import Outcome

__all__ = [
    "ANSWERED_BY_ID",
    "BANNED_LINK",
    "BANNED_TITLE",
    "KEY_WORDS",
    "LOBBY_HELP",
    "NAME_TAKEN",
    "NO_BEST",
    "PRACTICE",
    "QUESTIONS",
    "REMATCH_ID",
    "REPORT_ASK",
    "REPORT_ID",
    "REPORT_WORDS",
    "TO_BEAT",
    "UNRATED_WORDS",
    "banned_words",
    "count_words",
    "error_words",
    "key_help",
    "key_hints",
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
    """The headline (``You won``) and the reason in words.

    ``idle_s`` and ``clock_s`` (the idle limit and the race's time limit) name
    a time-out: "ann timed out: no play for 60 s", "the 5:00 clock ran out".
    """
    if outcome.result == "solo":
        count = outcome.counts[0]
        if count == 52:
            return "Cleared!", "every card is on the foundations"
        if outcome.reason == "resigned":
            return "Given up", f"{count}/52 on the foundations"
        return "No more plays", f"{count}/52 on the foundations"
    winner, loser = _names(outcome, players)
    if outcome.result == "draw":
        headline = "Draw"
    elif seat is None:
        headline = f"{winner} won"
    else:
        headline = "You won" if outcome.winner == seat else "You lost"
    if outcome.reason == "time":
        return headline, _clock_words(outcome, winner, clock_s)
    reasons = {
        "cleared": f"{winner} cleared every card",
        "resigned": f"{loser} resigned",
        "abandoned": f"{loser} left and did not come back in time",
        "most_cards": f"{winner} has more cards and no play can change it",
        "equal_cards": "equal counts, and neither can play on",
        "first_to_count": f"equal counts: {winner} got there first",
        "aborted": "the race was aborted: the server could not restore it",
    }
    reason = reasons.get(outcome.reason, outcome.reason)
    return headline, _timed_out_words(outcome, players, reason, idle_s)


PRACTICE = "Practice"
"""The practice's top bar begins so, with its rule set: ``Practice (winnable)``."""
TO_BEAT = "to beat:"
"""Before the personal best in the practice's top bar: ``to beat: cleared in 41.2 s``."""
NO_BEST = "no best yet: set one"


def count_words(count: int, t_ms: int | None) -> str:
    """One board's end: ``cleared in 41.2 s``, ``40/52, last card at 38.1 s``, ``0/52``.

    Only a clear is a finishing time; a count's time is when its last card went up,
    so it is said as that, and never reads as a time to beat.
    """
    if t_ms is None:
        return f"{count}/52"
    if count == 52:
        return f"cleared in {seconds_text(t_ms)}"
    return f"{count}/52, last card at {seconds_text(t_ms)}"


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
        return f"{ahead} card{'s' if ahead != 1 else ''} ahead"
    won_at, lost_at = times_ms[winner], times_ms[loser]
    if ahead == 0 and won_at is not None and lost_at is not None and won_at < lost_at:
        return f"{seconds_text(lost_at - won_at)} sooner"
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
    idle = f"no play for {idle_s:g} s" if idle_s else "no play in time"
    who = " and ".join(players[s] for s in timed)
    if outcome.reason == "most_cards" and outcome.winner not in timed:
        return f"{who} timed out: {idle}"  # that is what decided it
    if outcome.reason == "most_cards":  # the winner timed out too, or alone, but had more
        return f"{reason} ({who} timed out: {idle})"
    return f"{who} timed out: {idle}; {reason}"


def _clock_words(outcome: Outcome, winner: str, clock_s: int | None) -> str:
    """The race's clock ran out (reason ``time``): the same comparison of counts decides."""
    clock = "the clock" if clock_s is None else f"the {clock_s // 60}:{clock_s % 60:02d} clock"
    counts = outcome.counts
    if outcome.result == "draw":
        return f"{clock} ran out at equal counts"
    if len(counts) == 2 and counts[0] == counts[1]:
        return f"{clock} ran out at equal counts: {winner} got there first"
    return f"{clock} ran out: {winner} has more cards"


def _names(outcome: Outcome, players: list[str]) -> tuple[str, str]:
    if outcome.winner is None:
        return "nobody", "nobody"
    return players[outcome.winner], players[1 - outcome.winner]


_ERROR_WORDS: dict[ErrorCode, str] = {
    "illegal_move": "the server refused that play",
    "room_not_found": "no open room has that code",
    "room_full": "that room's race has already started",
    "game_not_found": "that race is not there any more",
    "busy": "you are busy",
    "rate_limited": "slow down: too many messages",
    "game_over": "the race is over",
    "not_in_game": "you are not in a race",
    "unavailable": "the server cannot do that right now (nothing changed); try again in a moment",
}


def error_words(error: Error, *, bot: bool = False) -> str:
    """An error in words, by its code and the request it answers (its ``id``); ``bot``:
    this player is a bot (``welcome.bot``), which is why a rated race is refused."""
    if error.code == "game_not_found" and error.id == REMATCH_ID:
        return "the rematch offer has lapsed"
    if error.code == "not_allowed":
        return not_allowed_words(error.id, bot=bot, message=error.message)
    return f"{_ERROR_WORDS.get(error.code, error.code)}: {error.message}"


# -- fair play and the operator's hand -------------------------------------------------

NAME_TAKEN = "someone has this name; names ignore case (Ann and ann are one): choose another"
"""``name_taken``: a new player's name is another player's, written in any case."""

BANNED_LINK = "this player is banned from this server"
"""Beside the link state once the server said ``banned`` or closed with 4001."""
BANNED_TITLE = "This account is barred from this server"


def banned_words(name: str, where: str) -> str:
    """The banned screen under its title: who, where, and that the client stays away."""
    who = name or "this player"
    return (
        f"The operator of {where} banned {who}: the account may not race there.\n"
        "This client does not connect again by itself."
    )


UNRATED_WORDS: dict[str, str] = {
    "no_play": "not rated: a player made no play",
    "fair_play": "not rated: timing no hand could make (the server's operator will look at it)",
}
"""``game_over.unrated``, said where a rated race's rating change would be."""

REPORT_ASK = (
    "Report this race to the server's operator. Why? (optional, at most {length} characters)\n"
    "Enter sends · Esc cancels"
)
REPORT_WORDS: dict[str, str] = {
    "sent": "reporting this race…",
    "done": "reported: thank you; the server's operator will look at this race",
    "twice": "you have reported this race already",
    "limit": "you have made as many reports as the server takes in a day: try again tomorrow",
    "gone": "the server has no record of this race to report",
}
"""What the result says of a report, by :attr:`~client.race_view.RaceView.report`."""

_BARRED = (
    "you are barred from rated races on this server: too many of your races had timing"
    " no hand could make; unrated races are open to you"
)
_BOT = "this player is a bot, and a bot's races are never rated: race unrated"


def not_allowed_words(answers: object, *, bot: bool, message: str) -> str:
    """``not_allowed``, by the request it ``answers`` (its id). A rated seek or room is
    refused for the player's own standing, which the client knows (a bot: ``welcome.bot``;
    else barred for flagged races); a room's join or a rematch may be refused for either
    player or their one address, so the server's words say which."""
    if answers in ("seek", "create_room", "join_room", REMATCH_ID) and bot:
        return _BOT
    if answers in ("seek", "create_room"):
        return _BARRED
    if answers in ("join_room", REMATCH_ID):
        return (
            "this race cannot be rated: one of you is barred from rated races or is a bot,"
            f" or you both connect from one address (the server says: {message})"
        )
    return f"not allowed: {message}"


def offer_words(kind: str) -> str:
    """The lobby's offer after a refused rated ``seek`` or ``create_room``: the same, unrated."""
    return "u  seek the same rules unrated" if kind == "seek" else "u  open the room unrated"


KEY_WORDS: dict[str, tuple[str, str, str]] = {
    "beds": ("1-6", "bed", "play the front card of that bed"),
    "bouquet": ("a-p", "bouquet", "play the bouquet card with that letter"),
    "prompt": ("/", "type a card", "type a card (qh, 10h, th) then Enter; Esc closes"),
    "redeal": ("r", "redeal", "redeal the cards left, when stuck (once a race)"),
    "resign": ("x", "resign", "resign (asks first)"),
    "give_up": ("x", "give up", "give this deal up (asks first)"),
    "new_deal": ("r", "new deal", "deal the next layout"),
    "rematch": ("r", "rematch", "ask for a rematch (the race starts when both ask)"),
    "profile": ("o", "their profile", "your opponent's profile"),
    "report": ("!", "report", "report this race to the server's operator (asks why)"),
    "daily_again": ("r", "again", "race the daily deal again (practice: the first race counts)"),
    "daily_board": ("t", "the day's board", "the daily deal's board: the day's ranked races"),
    "pause": ("z", "pause", "pause the arena: no race is paired after this one"),
    "lobby": ("Esc", "lobby", "back to the lobby"),
    "quit": ("q", "quit", "quit"),
    "quit_race": ("q", "quit", "quit (asks first: the race goes on without you)"),
    "help": ("?", "help", "this help"),
}
"""Each race key as (key, the footer's word or two, the help's line), by what it does.

The race screen lists only the keys that work where the player is
(:func:`client.screens.race_screen.race_keys`): footer, help and keys come from one list.
"""

QUESTIONS = {
    "resign": "Resign this race? (y/n)",
    "give_up": "Give this deal up? (y/n)",
    "quit_race": "Quit now? The race goes on without you. (y/n)",
}
"""What the race screen asks before a key that cannot be taken back (by the key's name)."""

_HELP_TITLES = {
    "practice": "Practice: clear the layout as fast as you can",
    "racing": "Racing",
    "final": "Your count is final: the race goes on until it is decided",
    "over": "After the race",
    "daily_over": "After the daily deal",
    "arena_over": "After an arena race: the next is paired at once",
    "practice_over": "After the deal",
    "watching": "Watching",
}


def key_hints(keys: list[str]) -> str:
    """The footer: ``1-6 bed  a-p bouquet  / type a card  x resign  ? help``."""
    return "  ".join(f"{KEY_WORDS[name][0]} {KEY_WORDS[name][1]}" for name in keys)


def key_help(where: str, keys: list[str]) -> str:
    """The help page of a race screen: a title for ``where``, then one line per key."""
    lines = [f"[b]{_HELP_TITLES[where]}[/b]"]
    lines += [f"  {KEY_WORDS[name][0]:<5} {KEY_WORDS[name][2]}" for name in keys]
    if "beds" in keys:
        lines.append("Highlighted labels can be played now; grey ones must wait.")
    lines.append("")
    lines.append("Press any key to close this help.")
    return "\n".join(lines)


LOBBY_HELP = """\
[b]Lobby[/b]
  s  quick match   b  race a bot   c  create a room   j  join by code
  Enter  on a seek: seek with the same rules; on a room: join it
  w / Enter  watch the selected race    Esc  stop seeking or the room
  l  leaderboard  p  your profile  o  last opponent's  h  your races
  u  after a rated seek or room is refused: the same, unrated
  d  race today's daily deal against the ghost   t  the day's board
  a  arenas (Enter joins)   z or Esc  pause: no more arena races
  In an arena a win scores 2, a draw 1; after two wins in a row, wins count
  double until a race is not won.
  q  quit
In a race, ? lists the race's keys; in a replay, its keys are at the bottom.

Press any key to close this help."""
