"""The rematch desk of the lobby: offers after ``game_over``, and the race both ask for.

When a race ends with both its players online, an offer opens. A player's
``rematch`` is answered ``rematch_waiting`` and their opponent told
``rematch_offered`` while the opponent has not asked; once both have, a new
race starts with the same rules and seats. A race with a bot is rematched at
once: the server's bot always wants another race (a declared bot, a program
playing over the socket, asks for its rematch as a person does). A daily race
is rematched at once too: another daily race on the same day's deal as it
stands now, against its ghost if it had one (:mod:`core.daily`). An arena
race opens no offer: the arena pairs its players again. The offer lapses as
soon as either player does anything else in the lobby, or leaves; a
``rematch`` then is ``game_not_found``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from protocol import RematchOffered, RematchWaiting

from .bots import is_bot, level_of
from .events import Output, Refused, Send

if TYPE_CHECKING:
    from .daily import DailyDesk
    from .lobby_player import LobbyHost, LobbyPlayer
    from .quick_match import QuickMatch
    from .race import Race

__all__ = ["Rematches"]


@dataclass(slots=True)
class _Offer:
    """An open rematch offer for a finished race: who has asked so far."""

    race: Race
    asked: set[str] = field(default_factory=set)


class Rematches:
    """The open rematch offers of one lobby, by the id of the race they follow."""

    def __init__(self, host: LobbyHost, quick_match: QuickMatch, daily: DailyDesk) -> None:
        self._host, self._quick_match, self._daily = host, quick_match, daily
        self._offers: dict[str, _Offer] = {}

    def open(self, race: Race) -> None:
        """``race`` is over with both players here: either may ask for another."""
        self._offers[race.game_id] = _Offer(race)

    def lapse(self, player: LobbyPlayer) -> None:
        """``player`` moves on: the offer after their last race lapses."""
        if player.finished is not None:
            self._offers.pop(player.finished, None)

    def ask(self, player: LobbyPlayer, now: float) -> list[Output]:
        """``player`` asks for a rematch of their last race."""
        if player.race is not None:
            raise Refused("busy", "you are racing; a rematch is for after game_over")
        if player.finished is None:
            raise Refused("not_in_game", "you have no finished race to rematch")
        offer = self._offers.get(player.finished)
        if offer is None:
            raise Refused("game_not_found", "the rematch offer has lapsed")
        race = offer.race
        first_id, second_id = race.player_ids
        self._host.check_rated(race.rules, first_id, second_id, now)
        if race.kind.daily is not None:  # the ghost and the bot always want another race
            del self._offers[race.game_id]
            return self._daily.race(player, race.kind.ghost is not None, now)
        if is_bot(second_id):  # the server's bot always wants another race
            del self._offers[race.game_id]
            level = level_of(second_id)
            return self._quick_match.start_bot(player, level, race.rules, now)
        offer.asked.add(player.id)
        if len(offer.asked) < 2:
            opponent = race.player_ids[1 - race.seat_of(player.id)]
            return [
                Send((player.id,), RematchWaiting(game_id=race.game_id)),
                Send((opponent,), RematchOffered(game_id=race.game_id)),
            ]
        del self._offers[race.game_id]
        first, second = self._host.player(first_id), self._host.player(second_id)
        return self._host.start(first, second, race.rules, now)[1]
