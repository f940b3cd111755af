"""The quick-match desk of the lobby: ``seek``, a bot after a wait, and the rated queue's timer.

A seeker is paired at once with a seeker of the same rules if there is one
(the longest waiting, or the closest rating for rated rules: :mod:`core.seeks`;
a declared bot only with a bot or a seeker who asked for one); otherwise they
wait. A seeker who asked for a bot gets one after ``after_s``
seconds if nobody came (a timer of their own, :data:`BOT_TIMER` and their
id), or at once with ``after_s: 0``. Rated seekers who wait are paired as
their windows widen: one timer for the queue, :data:`QUEUE`, set to the
next moment waiting alone makes a pair acceptable.

The desk tells other workers who waits (:class:`~core.events.Queued`); it
starts races through its :class:`~core.lobby_player.LobbyHost`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol import Seeking

from .bots import BOT_NAMES, bot_id, bot_of
from .events import Output, Queued, Send, Wake
from .matching import Seeker
from .seat import SeatInfo
from .seeks import Seeks

if TYPE_CHECKING:
    import random

    from protocol import Rules, Seek

    from .lobby_player import LobbyHost, LobbyPlayer

__all__ = ["BOT_TIMER", "QUEUE", "QuickMatch"]

QUEUE = ""
"""The key of the rated queue's timer among the races' (no game id is empty)."""
BOT_TIMER = "bot:"
"""The prefix of a seeker's bot timer's key (``bot:`` and the player's id)."""


class QuickMatch:
    """Who seeks what, and pairing them (see the module docstring)."""

    def __init__(self, host: LobbyHost, rng: random.Random) -> None:
        self._host, self._rng = host, rng
        self.seeks = Seeks(host.allows_rated)

    def seek(self, player: LobbyPlayer, message: Seek, now: float) -> list[Output]:
        """``player``, free, seeks: paired now, given a bot now, or waiting."""
        rules, bot = message.rules, message.bot
        out: list[Output] = [Send((player.id,), Seeking(rules=rules))]
        seeker = Seeker(player.id, player.rating.rating, now, player.bot, bot is not None)
        found = self.seeks.opponent(seeker, rules, now)
        if found is None and bot is not None and bot.after_s == 0:
            return [*out, *self.start_bot(player, bot.level, rules, now)]
        if found is None:
            self.seeks.add(seeker, rules)
            player.seeking = rules
            wake = self._queue_wake(now) if rules.rated else []
            if bot is not None:
                player.bot_wait = (now + bot.after_s, bot.level)
                wake.append(Wake(BOT_TIMER + player.id, now + bot.after_s))
            return [*out, Queued(player.id, rules), *wake]
        opponent = self._host.player(found)
        self.leave(opponent)
        _race, started = self._host.start(opponent, player, rules, now)
        return [*out, Queued(opponent.id, None), *started]

    def leave(self, player: LobbyPlayer) -> list[Output]:
        """``player`` waits no more; what other workers must see of it."""
        if player.seeking is None:
            return []
        self.seeks.remove(player.id)
        player.seeking = player.bot_wait = None
        return [Queued(player.id, None)]

    def due(self, key: str, now: float) -> list[Output] | None:
        """Apply the timer ``key`` at ``now``, if it is one of this desk's; else None."""
        if key == QUEUE:
            return self._pair_waiting(now)
        if key.startswith(BOT_TIMER):
            return self._bot_due(self._host.player(key[len(BOT_TIMER) :]), now)
        return None

    def start_bot(self, player: LobbyPlayer, level: int, rules: Rules, now: float) -> list[Output]:
        """A race between ``player`` (seat 0) and the bot of ``level``, never rated."""
        seat = SeatInfo(bot_id(level), BOT_NAMES[level])
        unrated = rules.model_copy(update={"rated": False}) if rules.rated else rules
        bot = (seat, bot_of(seat.player_id, self._rng))
        _race, started = self._host.start(player, None, unrated, now, bot=bot)
        return started

    def _bot_due(self, player: LobbyPlayer, now: float) -> list[Output]:
        """Nobody was paired with a seeker who asked for a bot in time: the bot takes the seat."""
        if player.bot_wait is None or player.seeking is None:
            return []  # paired, or gone, meanwhile
        at, level = player.bot_wait
        if now < at:
            return [Wake(BOT_TIMER + player.id, at)]
        rules = player.seeking
        return [*self.leave(player), *self.start_bot(player, level, rules, now)]

    def _queue_wake(self, now: float) -> list[Output]:
        """When waiting alone next makes a rated pair acceptable (the queue's one timer)."""
        return [Wake(QUEUE, self.seeks.next_pairing(now))]

    def _pair_waiting(self, now: float) -> list[Output]:
        """Pair the rated seekers whose windows have widened enough by ``now``."""
        out: list[Output] = []
        for first_id, second_id, rules in self.seeks.due(now):
            first, second = self._host.player(first_id), self._host.player(second_id)
            first.seeking = second.seeking = None
            out += [Queued(first.id, None), Queued(second.id, None)]
            out += self._host.start(first, second, rules, now)[1]
        return [*out, *self._queue_wake(now)]
