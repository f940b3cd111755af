"""The read-only HTTP API on the game's own port: leaderboard, profiles, histories, races.

PROTOCOL.md, "HTTP". Every answer is JSON with ``Access-Control-Allow-Origin:
*``, errors included (``{"error": code, "message": words}``): ``404`` for an
unknown name, race or path, ``400`` for a query that does not parse, ``429``
past the limit of requests per address, ``503`` while the store cannot
answer. The limit is a token bucket per address
(:class:`~core.limits.AddressLimit`): ``--http-per-ip`` a minute, half of
them at once; a refused request costs nothing and nobody else notices.

Each answer waits for the store, so :meth:`Api.answer` gives the transport a
future of it (``Handler.request``); the opening timeout still bounds it.
"""

from __future__ import annotations

import asyncio
import logging
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

from core.bots import is_bot
from core.limits import AddressLimit
from protocol import is_name
from server.store import StoreError
from server.transport.responses import json_response

from .export import iso_date, race_json, summary_json

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine

    from server.store import ProfileRow, Store
    from server.transport.connection import Request, Response

__all__ = ["HISTORY_LIMIT", "LEADERBOARD_LIMIT", "Api"]

log = logging.getLogger("flowergarden.server")

LEADERBOARD_LIMIT = (50, 200)
"""``limit`` of ``/api/leaderboard``: its default and its largest."""
HISTORY_LIMIT = (20, 100)
"""``limit`` of a player's ``/races``: its default and its largest."""


class _Answer(Exception):
    """An error answer, raised from anywhere inside a page."""

    def __init__(self, status: HTTPStatus, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class Api:
    """The ``/api/`` paths of one server."""

    def __init__(self, store: Store, per_minute: int, clock: Callable[[], float]) -> None:
        self.store = store
        self._limit = AddressLimit(max(1, per_minute // 2), per_minute * 60)
        self._clock = clock
        self._pending: set[asyncio.Task[Response]] = set()

    def answer(self, address: str, request: Request) -> Response | asyncio.Future[Response]:
        """The answer to a request under ``/api/``: at once if refused, else a future of it."""
        if not self._limit.charge(address, self._clock()):
            return _error(HTTPStatus.TOO_MANY_REQUESTS, "rate_limited", "too many requests")
        task = asyncio.ensure_future(self._answer(request.path))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
        return task

    async def _answer(self, target: str) -> Response:
        url = urlsplit(target)
        query = {key: values[-1] for key, values in parse_qs(url.query).items()}
        parts = [unquote(part) for part in url.path.split("/")[2:]]
        try:
            return json_response(HTTPStatus.OK, await self._route(parts, query))
        except _Answer as refused:
            return _error(refused.status, refused.code, refused.message)
        except StoreError as exc:
            log.error("the API could not read the store: %s", exc)
            return _error(HTTPStatus.SERVICE_UNAVAILABLE, "unavailable", "try again later")

    def _route(self, parts: list[str], query: dict[str, str]) -> Coroutine[Any, Any, Any]:
        match parts:
            case ["leaderboard"]:
                return self._leaderboard(_limit(query, LEADERBOARD_LIMIT))
            case ["players", name]:
                return self._player(name)
            case ["players", name, "races"]:
                return self._history(name, _limit(query, HISTORY_LIMIT), query.get("before"))
            case ["races", game_id]:
                return self._race(game_id)
        raise _Answer(HTTPStatus.NOT_FOUND, "not_found", "no such path; see PROTOCOL.md, HTTP")

    async def _leaderboard(self, limit: int) -> dict[str, Any]:
        ranked = await self.store.leaderboard(limit)
        players = [
            {"rank": rank, "name": line.name, "rating": line.rating, "races": line.races}
            for rank, line in enumerate(ranked, 1)
        ]
        return {"players": players}

    async def _player(self, name: str) -> dict[str, Any]:
        profile = await self._profile(name)
        return {
            "name": profile.name,
            "rating": profile.rating.shown,
            "provisional": profile.rating.provisional,
            "bot": is_bot(profile.player_id),
            "races": profile.races,
            "wins": profile.wins,
            "draws": profile.draws,
            "losses": profile.losses,
            "best_clear_ms": profile.best_clear_ms,
            "joined": iso_date(profile.joined),
        }

    async def _history(self, name: str, limit: int, before: str | None) -> dict[str, Any]:
        profile = await self._profile(name)
        if before is not None:
            known = await self.store.summary(before)
            if known is None or profile.name not in known.names:
                raise _Answer(
                    HTTPStatus.NOT_FOUND, "race_not_found", f"{name} has no race {before}"
                )
        page = await self.store.history(profile.player_id, limit + 1, before)
        more = len(page) > limit
        races = [summary_json(summary) for summary in page[:limit]]
        return {"races": races, "next": races[-1]["game_id"] if more else None}

    async def _race(self, game_id: str) -> dict[str, Any]:
        record, summary = await self.store.race(game_id), await self.store.summary(game_id)
        if record is None or summary is None:
            raise _Answer(HTTPStatus.NOT_FOUND, "race_not_found", f"no finished race {game_id}")
        return race_json(record, summary)

    async def _profile(self, name: str) -> ProfileRow:
        profile = await self.store.profile(name) if is_name(name) else None
        if profile is None:
            raise _Answer(HTTPStatus.NOT_FOUND, "player_not_found", f"no player is named {name}")
        return profile


def _limit(query: dict[str, str], bounds: tuple[int, int]) -> int:
    default, largest = bounds
    text = query.get("limit")
    if text is None:
        return default
    if not text.isdigit() or not 1 <= int(text) <= largest:
        message = f"limit must be a whole number from 1 to {largest}"
        raise _Answer(HTTPStatus.BAD_REQUEST, "bad_request", message)
    return int(text)


def _error(status: HTTPStatus, code: str, message: str) -> Response:
    return json_response(status, {"error": code, "message": message})
