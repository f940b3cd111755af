"""The quick-match queue of one lobby core: who waits for which rules, and who pairs with whom.

Unrated seekers pair by rules alone, the longest waiting first. Rated seekers
pair by rating (:mod:`core.matching`): the closest within a window that
widens with waiting, never two whom ``allowed`` keeps apart (the limits on
rated races: :mod:`core.rated`). Either way a declared bot pairs only with a
bot or a seeker who asked for one (:func:`~core.matching.pairs_with`).
:meth:`Seeks.due` finds the rated pairs that waiting alone has made
acceptable, and :meth:`Seeks.next_pairing` says when the next one will be,
for the lobby's timer. Everything takes ``now``; nothing here sends anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .matching import Seeker, best_match, next_pairing, pairs_with

if TYPE_CHECKING:
    from collections.abc import Callable

    from protocol import Rules

__all__ = ["Seeks"]


class Seeks:
    """Seekers by rules, oldest first, each with their rating and since when they wait."""

    def __init__(self, allowed: Callable[[str, str, float], bool]) -> None:
        """``allowed``: whether two players (by id) may start a rated race at a time."""
        self._queue: dict[Rules, list[Seeker]] = {}
        self._where: dict[str, Rules] = {}
        self._allowed = allowed

    def counts(self) -> dict[Rules, int]:
        """How many wait for each set of rules."""
        return {rules: len(queue) for rules, queue in self._queue.items()}

    def opponent(self, seeker: Seeker, rules: Rules, now: float) -> str | None:
        """Whom a new seeker pairs with now: the oldest seeker, or, rated, the closest rating."""
        queue = self._queue.get(rules)
        if not queue:
            return None
        if not rules.rated:
            found = next((waiting for waiting in queue if pairs_with(seeker, waiting)), None)
        else:
            found = best_match(seeker, queue, now, self._allows(now))
        return None if found is None else found.player_id

    def add(self, seeker: Seeker, rules: Rules) -> None:
        self._queue.setdefault(rules, []).append(seeker)
        self._where[seeker.player_id] = rules

    def remove(self, player_id: str) -> None:
        """Take a seeker out of the queue (nothing if they are not in it)."""
        rules = self._where.pop(player_id, None)
        if rules is None:
            return
        queue = [waiting for waiting in self._queue[rules] if waiting.player_id != player_id]
        if queue:
            self._queue[rules] = queue
        else:
            del self._queue[rules]

    def due(self, now: float) -> list[tuple[str, str, Rules]]:
        """The rated pairs acceptable by ``now``, taken out of the queue: older seeker first."""
        pairs = []
        for rules in [rules for rules in self._queue if rules.rated]:
            while (pair := self._due_pair(self._queue.get(rules, []), now)) is not None:
                self.remove(pair[0])
                self.remove(pair[1])
                pairs.append((*pair, rules))
        return pairs

    def next_pairing(self, now: float) -> float | None:
        """When waiting alone next makes a rated pair acceptable; None if it never will."""
        allows = self._allows(now)
        times = [
            next_pairing(queue, allows)
            for rules, queue in self._queue.items()
            if rules.rated and len(queue) > 1
        ]
        return min((t for t in times if t is not None), default=None)

    def _due_pair(self, queue: list[Seeker], now: float) -> tuple[str, str] | None:
        allows = self._allows(now)
        for index, seeker in enumerate(queue):  # the oldest first: they decide
            found = best_match(seeker, queue[index + 1 :], now, allows)
            if found is not None:
                return seeker.player_id, found.player_id
        return None

    def _allows(self, now: float) -> Callable[[str, str], bool]:
        return lambda first, second: self._allowed(first, second, now)
