"""The client's words for how a race ended and for the server's errors."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from protocol import Error

    from .state import Outcome

__all__ = ["error_words", "outcome_words"]


def outcome_words(outcome: Outcome, seat: int | None, players: list[str]) -> tuple[str, str]:
    """The headline (``You won``) and the reason in words."""
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
    reasons = {
        "cleared": f"{winner} cleared every card",
        "resigned": f"{loser} resigned",
        "abandoned": f"{loser} left and did not come back in time",
        "most_cards": f"{winner} has more cards and no play can change it",
        "equal_cards": "equal counts, and neither can play on",
        "first_to_count": f"equal counts: {winner} got there first",
        "time": "time ran out" + ("" if outcome.result == "draw" else f": {winner} has more"),
        "aborted": "the race was aborted: the server could not restore it",
    }
    return headline, reasons.get(outcome.reason, outcome.reason)


def _names(outcome: Outcome, players: list[str]) -> tuple[str, str]:
    if outcome.winner is None:
        return "nobody", "nobody"
    return players[outcome.winner], players[1 - outcome.winner]


_ERROR_WORDS = {
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
    if error.code == "game_not_found" and "rematch" in error.message:
        return "the rematch offer has lapsed"
    return f"{_ERROR_WORDS.get(error.code, error.code)}: {error.message}"
