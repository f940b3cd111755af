"""The read-only HTTP API on the game's own port: leaderboard, profiles, histories, races.

PROTOCOL.md, "HTTP". Every answer is one of the models of
:mod:`server.http.models`, dumped as JSON with ``Access-Control-Allow-Origin:
*``, errors included (:class:`~server.http.models.ErrorAnswer`): ``404`` for an
unknown name, race or path, ``400`` for a query parameter that does not parse,
``429`` past the limit of requests per address, ``503`` while the store cannot
answer, and ``500`` for a bug, logged once (no request the server can parse
should reach one). ``GET /api/openapi.json`` is the API's own schema, made from
the same models (:mod:`server.http.openapi`).

A query parameter parses when it is what the document says: a ``limit`` is 1
to :data:`~server.http.openapi.LIMIT_DIGITS` ASCII digits within its bounds
(not Arabic-Indic digits, not five thousand digits), a ``before`` a race's id.

The limit is a token bucket per address (:class:`~core.limits.AddressLimit`):
``--http-per-ip`` a minute, half of them at once; a refused request costs
nothing and nobody else notices. Each answer waits for the store, so
:meth:`Api.answer` gives the transport a future of it (``Handler.request``);
the opening timeout still bounds it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

from core.bots import is_bot
from core.limits import AddressLimit
from protocol import is_name
from server.store import StoreError
from server.transport.logbudget import LogBudget
from server.transport.responses import http_response, json_bytes_response

from . import arena_pages
from .daily_pages import DailyPages, is_date, utc_today
from .export import iso_date, race_record, summary
from .models import ErrorAnswer, LeaderboardAnswer, LeaderLine, PlayerProfile, RaceHistory
from .openapi import GAME_ID_PATTERN, HISTORY_LIMIT, LEADERBOARD_LIMIT, LIMIT_DIGITS, document

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine

    from pydantic import BaseModel

    from server.store import ProfileRow, Store
    from server.transport.connection import Request, Response

    from .models import DailyAnswer, ErrorCode, RaceReplay

__all__ = ["Api", "ApiRefused", "error_response", "model_response", "query_limit"]

log = logging.getLogger("flowergarden.server")

_LIMIT = re.compile(f"[0-9]{{1,{LIMIT_DIGITS}}}")
"""ASCII digits only: ``str.isdigit`` takes other scripts' digits, ``int`` of 5,000 raises."""
_GAME_ID = re.compile(GAME_ID_PATTERN)


class ApiRefused(Exception):
    """An error answer, raised from anywhere inside a page (the operator's too)."""

    def __init__(self, status: HTTPStatus, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class Api:
    """The ``/api/`` paths of one server."""

    def __init__(
        self,
        store: Store,
        per_minute: int,
        clock: Callable[[], float],
        *,
        today: Callable[[], str] = utc_today,
    ) -> None:
        """``today``: the UTC day it is for the daily deal's pages (the lobby core's)."""
        self.store = store
        self.daily = DailyPages(store, today)
        self._limit = AddressLimit(max(1, per_minute // 2), per_minute * 60)
        self._clock = clock
        self._pending: set[asyncio.Task[Response]] = set()
        self._bugs = LogBudget()
        self._openapi = json_bytes_response(HTTPStatus.OK, json.dumps(document()).encode())

    def allows(self, address: str) -> bool:
        """Whether ``address`` may make one more request now (the operator's count too)."""
        return self._limit.charge(address, self._clock())

    def answer(self, address: str, request: Request) -> Response | asyncio.Future[Response]:
        """The answer to a request under ``/api/``: at once if refused, else a future of it."""
        if not self.allows(address):
            return error_response(HTTPStatus.TOO_MANY_REQUESTS, "rate_limited", "too many requests")
        if request.path.partition("?")[0] == "/api/openapi.json":
            return self._openapi
        task = asyncio.ensure_future(self._answer(address, request.path))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
        return task

    async def _answer(self, address: str, target: str) -> Response:
        try:
            url = urlsplit(target)
            query = parse_qs(url.query, keep_blank_values=True)
            parts = [unquote(part) for part in url.path.split("/")[2:]]
            return model_response(HTTPStatus.OK, await self._route(parts, query))
        except ApiRefused as refused:
            return error_response(refused.status, refused.code, refused.message)
        except StoreError as exc:
            log.error("the API could not read the store: %s", exc)
            return error_response(HTTPStatus.SERVICE_UNAVAILABLE, "unavailable", "try again later")
        except Exception as exc:  # a bug: the client still gets JSON it can read
            self._bugs.bug(address, exc)
            return error_response(
                HTTPStatus.INTERNAL_SERVER_ERROR, "internal_error", "a bug; logged"
            )

    def _route(
        self, parts: list[str], query: dict[str, list[str]]
    ) -> Coroutine[Any, Any, BaseModel]:
        match parts:
            case ["leaderboard"]:
                return self._leaderboard(query_limit(query, LEADERBOARD_LIMIT))
            case ["players", name]:
                return self._player(name)
            case ["players", name, "races"]:
                before = _one(query, "before", _GAME_ID)
                return self._history(name, query_limit(query, HISTORY_LIMIT), before)
            case ["races", game_id]:
                return self._race(game_id)
            case ["daily"]:
                return self._daily(None)
            case ["daily", date]:
                if not is_date(date):
                    raise ApiRefused(HTTPStatus.BAD_REQUEST, "bad_request", "a day is YYYY-MM-DD")
                return self._daily(date)
            case ["arenas"]:
                return arena_pages.arenas(self.store)
            case ["arenas", arena_id]:
                return arena_pages.arena(self.store, arena_id)
        raise ApiRefused(HTTPStatus.NOT_FOUND, "not_found", "no such path; see /api/openapi.json")

    async def _leaderboard(self, limit: int) -> LeaderboardAnswer:
        ranked = await self.store.leaderboard(limit)
        return LeaderboardAnswer(
            players=[
                LeaderLine(rank=rank, name=line.name, rating=line.rating, races=line.races)
                for rank, line in enumerate(ranked, 1)
            ]
        )

    async def _player(self, name: str) -> PlayerProfile:
        profile = await self._profile(name)
        streaks = await self.daily.streaks(profile.player_id)
        return PlayerProfile(
            name=profile.name,
            rating=profile.rating.shown,
            provisional=profile.rating.provisional,
            bot=is_bot(profile.player_id) or profile.bot,
            races=profile.races,
            wins=profile.wins,
            draws=profile.draws,
            losses=profile.losses,
            best_clear_ms=profile.best_clear_ms,
            joined=iso_date(profile.joined),
            daily_streak=streaks.streak,
            daily_best_streak=streaks.best,
        )

    async def _daily(self, date: str | None) -> DailyAnswer:
        """Today's deal (``date`` None), or a day's: ``404`` for a day not shown."""
        if date is None:
            answer = await self.daily.today_page()
            if answer is None:  # the day is drawn as the server starts: only a failing store
                raise ApiRefused(HTTPStatus.SERVICE_UNAVAILABLE, "unavailable", "try again later")
            return answer
        answer = await self.daily.day_page(date)
        if answer is None:
            raise ApiRefused(
                HTTPStatus.NOT_FOUND, "not_found", f"no daily deal is shown for {date}"
            )
        return answer

    async def _history(self, name: str, limit: int, before: str | None) -> RaceHistory:
        profile = await self._profile(name)
        if before is not None:
            known = await self.store.summary(before)
            if known is None or profile.name not in known.names:
                raise ApiRefused(
                    HTTPStatus.NOT_FOUND, "race_not_found", f"{name} has no race {before}"
                )
        page = await self.store.history(profile.player_id, limit + 1, before)
        races = [summary(row) for row in page[:limit]]
        return RaceHistory(races=races, next=races[-1].game_id if len(page) > limit else None)

    async def _race(self, game_id: str) -> RaceReplay:
        record, row = await self.store.race(game_id), await self.store.summary(game_id)
        if record is None or row is None:
            raise ApiRefused(HTTPStatus.NOT_FOUND, "race_not_found", f"no finished race {game_id}")
        return race_record(record, row)

    async def _profile(self, name: str) -> ProfileRow:
        profile = await self.store.profile(name) if is_name(name) else None
        if profile is None:
            raise ApiRefused(HTTPStatus.NOT_FOUND, "player_not_found", f"no player is named {name}")
        return profile


def _one(query: dict[str, list[str]], name: str, form: re.Pattern[str]) -> str | None:
    """The query parameter ``name`` (its last value), if it has ``form``; None if absent."""
    values = query.get(name)
    if values is None:
        return None
    if form.fullmatch(values[-1]) is None:
        raise ApiRefused(HTTPStatus.BAD_REQUEST, "bad_request", f"{name} does not parse")
    return values[-1]


def query_limit(query: dict[str, list[str]], bounds: tuple[int, int]) -> int:
    """The ``limit`` parameter within ``bounds`` (its default, its largest); raises ``400``."""
    default, largest = bounds
    message = f"limit must be a whole number from 1 to {largest}, in ASCII digits"
    try:
        text = _one(query, "limit", _LIMIT)
    except ApiRefused:
        raise ApiRefused(HTTPStatus.BAD_REQUEST, "bad_request", message) from None
    if text is None:
        return default
    if not 1 <= int(text) <= largest:
        raise ApiRefused(HTTPStatus.BAD_REQUEST, "bad_request", message)
    return int(text)


def model_response(status: HTTPStatus, answer: BaseModel, *, cors: bool = True) -> Response:
    """An answer of the API: ``answer``'s JSON, with the CORS header unless ``cors`` is
    False (the operator's paths: no page of another origin may read them)."""
    body = answer.model_dump_json().encode() + b"\n"
    if cors:
        return json_bytes_response(status, body)
    return http_response(status, body, "application/json")


def error_response(
    status: HTTPStatus, code: ErrorCode, message: str, *, cors: bool = True
) -> Response:
    return model_response(status, ErrorAnswer(error=code, message=message), cors=cors)
