"""What the store reads for the server and the HTTP API: one statement each, through one call.

The queries and what turns their rows into values are :mod:`server.store.reads`;
this is the :class:`~server.store.interface.Store` side of them, a base of
:class:`~server.store.machine.StoreMachine`, which runs each read in call order
(its :meth:`StoreReads._read`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from . import reads

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from core.glicko2 import Glicko
    from core.identity import Identity
    from core.race_log import FinishedRace

    from .reads import PlayerStats, ProfileRow, Ranked, Row, StandingRow, Summary

__all__ = ["StoreReads"]

T = TypeVar("T")


class StoreReads:
    """The store's reads, each a query and a reader of its rows."""

    async def _read(
        self, sql: str, arguments: Sequence[object], reader: Callable[[list[Row]], T]
    ) -> T:
        """Run one read in its turn (the machine's)."""
        raise NotImplementedError

    async def players(self) -> list[Identity]:
        return await self._read(reads.PLAYERS, (), reads.each(reads.identity))

    async def player_stats(self, player_id: str) -> PlayerStats | None:
        return await self._read(reads.PLAYER_STATS, (player_id,), reads.first(reads.player_stats))

    async def find_player(self, token_hash: str) -> Identity | None:
        return await self._read(reads.FIND_PLAYER, (token_hash,), reads.first(reads.identity))

    async def standing(self, player_id: str) -> StandingRow | None:
        return await self._read(reads.STANDING, (player_id,), reads.first(reads.standing))

    async def read(
        self, sql: str, arguments: Sequence[object], reader: Callable[[list[Row]], T]
    ) -> T:
        return await self._read(sql, arguments, reader)

    async def live_race_of(self, player_id: str) -> str | None:
        return await self._read(reads.LIVE_RACE_OF, (player_id, player_id), reads.first(reads.text))

    async def race(self, game_id: str) -> FinishedRace | None:
        return await self._read(reads.RACE, (game_id,), reads.first(reads.race))

    async def race_count(self) -> int:
        return await self._read(reads.RACE_COUNT, (), reads.count)

    async def rating(self, player_id: str) -> Glicko | None:
        return await self._read(reads.RATING, (player_id,), reads.first(reads.rating))

    async def leaderboard(self, limit: int) -> list[Ranked]:
        return await self._read(reads.LEADERBOARD, (limit,), reads.each(reads.ranked))

    async def profile(self, name: str) -> ProfileRow | None:
        return await self._read(reads.PROFILE, (name.lower(),), reads.first(reads.profile))

    async def history(self, player_id: str, limit: int, before: str | None) -> list[Summary]:
        sql, arguments = reads.history_query(player_id, limit, before)
        return await self._read(sql, arguments, reads.each(reads.summary))

    async def summary(self, game_id: str) -> Summary | None:
        return await self._read(reads.SUMMARY, (game_id,), reads.first(reads.summary))
