"""A race's end, kept in the store for the players who may not have been told it.

A player whose race ended while they were away learns the end when they come
back: the lobby core of the race's worker (their home) keeps it and tells them
(``Lobby.connect``). That core is one process. Killed a second after the race
ended, before the player came back, it took the end along: the record was in
the store, but no worker could tell the player how their race had ended, and
their every ``hello`` was answered ``welcome`` alone (``make chaos``: three
racers in one run).

So a race's record keeps, in the same transaction, each player's
``game_state`` of it, over (:mod:`server.store.end_rows`), with the incarnation
of the worker that ended it, for :data:`OWED_FOR` seconds or until the player's
next race ends. A ``hello`` of a player with no
live race whose home cannot tell them (no home, a dead one, or one born again
since it ended the race) is served where it lands, with that ``game_state``
right after ``welcome``. Where the home that ended the race is alive, it tells
them itself, as before. A client may so get the ``game_state`` of a race whose
``game_over`` it already has, as after a lost link: it shows the same result.

The ends were kept in Redis until ``make chaos`` showed Redis losing them in the
faults they are for: a worker cut off from Redis ended races it could not write
there, and a Redis restarted empty forgot the rest (8 racers welcomed back and
told nothing for 5 s, in one run).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from core.bots import is_bot
from core.events import Send
from protocol import GameState, encode_bytes
from server.store.end_rows import OwedEnds, owed_end, settle

from .shared import OWED_FOR

if TYPE_CHECKING:
    from collections.abc import Iterable

    from core.lobby import Lobby
    from server.store import Store

    from .shared import Shared
    from .tasks import Tasks

__all__ = ["Owed"]


class Owed:
    """One worker's part in keeping race ends for players who may not have had them."""

    def __init__(
        self, shared: Shared, store: Store, lobby: Lobby, tasks: Tasks, incarnation: str
    ) -> None:
        self._shared, self._store, self._lobby, self._tasks = shared, store, lobby, tasks
        self._incarnation = incarnation
        self._here: dict[str, GameState] = {}
        """Ends to tell players served here, by player, until their connection is taken."""

    def ends(self, game_id: str, player_ids: Iterable[str], now: float) -> OwedEnds | None:
        """Race ``game_id`` is over: each person's end of it, for its record to keep."""
        states = tuple(
            (player_id, encode_bytes(state))
            for player_id in player_ids
            if not is_bot(player_id)
            and (state := self._lobby.ended_state(player_id, game_id, now)) is not None
        )
        if not states:
            return None
        return OwedEnds(self._incarnation, states, told_since=time.time() - OWED_FOR)

    async def served_here(self, player_id: str, home: str | None, worker: str) -> bool:
        """Whether ``player_id``, racing nothing, is to be served on ``worker`` (this one)
        and told their last race's end, which ``home`` cannot tell them."""
        owed = await owed_end(self._store, player_id)
        if owed is None or time.time() - owed.ended > OWED_FOR:
            return False
        teller = worker if home is None else home  # a player with no home is served here
        if teller == worker:
            now: str | None = self._incarnation
        else:  # a dead worker, or one cut off from Redis, cannot tell them: None
            now = (await self._shared.incarnations({teller})).get(teller)
        if now == owed.teller:
            return False  # the lobby core that ended it is alive there, and tells it
        self._here[player_id] = GameState.model_validate_json(owed.state)
        self._tasks.spawn(self._store.run(settle(player_id, owed.race_id)))
        return True

    def told(self, player_id: str) -> list[Send]:
        """What to tell ``player_id`` before anything else, as their connection is taken."""
        state = self._here.pop(player_id, None)
        return [] if state is None else [Send((player_id,), state)]
