"""The client's words for how a race ended and for the server's errors."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from protocol import Error, ErrorCode

    from .state import Outcome

__all__ = ["REMATCH_ID", "error_words", "outcome_words"]

REMATCH_ID = "rematch"
"""The ``id`` this client puts on ``rematch``. The server copies it into the answer, so an
error that carries it answers the rematch (``game_not_found``: the offer lapsed): the
client tells the cases apart by code and id, never by the English of ``message``."""


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


def error_words(error: Error) -> str:
    if error.code == "game_not_found" and error.id == REMATCH_ID:
        return "the rematch offer has lapsed"
    return f"{_ERROR_WORDS.get(error.code, error.code)}: {error.message}"
