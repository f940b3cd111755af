"""The server's HTTP API, from the client: the one module that speaks HTTP.

Theory of operation
-------------------
The API is read-only JSON on the websocket's host and port (PROTOCOL.md,
"HTTP"): ``ws://HOST:PORT/ws`` becomes ``http://HOST:PORT/api/…`` (``wss``:
``https``; a path that ends in ``/ws`` loses that end, so a server behind a
proxy's prefix keeps it). Each call is one ``GET`` with the standard library's
``urllib.request``, run in a thread (:func:`asyncio.to_thread`) with a timeout,
so the event loop never waits on a socket; the app runs the calls in a worker
and puts the answers in its state (:mod:`client.lookups`).

Every way a call can fail becomes one :class:`ApiError` whose ``words`` a
screen shows as they are: a name or race the server does not know (404 with
``player_not_found`` or ``race_not_found``), a server with no API there (any
other 404: an older server), too many requests (429), a server restarting
(5xx), nothing listening, no answer in time, an answer that is not JSON or not
of the documented shape. Connection failures are put in the words
:mod:`client.failures` has for the websocket, so both say the same thing.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel, ValidationError

from lang import t

from .apidata import DailyBoard, Leaderboard, Profile, RacePage, RaceRecordData
from .failures import address, failure, url_problem

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["DEFAULT_TIMEOUT", "ApiClient", "ApiError", "api_base"]

DEFAULT_TIMEOUT = 5.0
"""Seconds for the connection, and again for each read of the answer."""
MAX_BODY = 4_000_000
"""The largest answer read, in bytes: a race's record is a few kilobytes."""
HISTORY_PAGE = 20
M = TypeVar("M", bound=BaseModel)


class ApiError(Exception):
    """A call that failed; ``words`` say why, for the screen."""

    def __init__(self, words: str, *, status: int | None = None, code: str | None = None) -> None:
        super().__init__(words)
        self.words = words
        self.status = status
        """The HTTP status, when the server answered with one."""
        self.code = code
        """The answer's ``error`` (``player_not_found``, …), when it gave one."""


def api_base(server_url: str) -> str:
    """The API's root for a websocket URL: ``ws://h:8765/ws`` -> ``http://h:8765``."""
    parts = urlsplit(server_url)
    scheme = "https" if parts.scheme == "wss" else "http"
    path = parts.path.rstrip("/")
    path = path.removesuffix("/ws") if path.endswith("/ws") else path
    return urlunsplit((scheme, parts.netloc, path, "", ""))


class ApiClient:
    """The calls the screens make, each answered in a model of :mod:`client.apidata`."""

    def __init__(self, server_url: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.server_url = server_url
        self.base = api_base(server_url)
        self.where = server_url if url_problem(server_url) else address(server_url)
        self.timeout = timeout

    async def leaderboard(self, limit: int = 50) -> Leaderboard:
        data = await self.get("/api/leaderboard", {"limit": limit})
        return self._read(Leaderboard, data, "/api/leaderboard")

    async def player(self, name: str) -> Profile:
        path = f"/api/players/{quote(name, safe='')}"
        data = await self.get(path, missing={"player_not_found": _no_player(name)})
        return self._read(Profile, data, path)

    async def daily(self) -> DailyBoard:
        """Today's deal and its board (``404``: a server without the daily deal)."""
        data = await self.get("/api/daily")
        return self._read(DailyBoard, data, "/api/daily")

    async def races(
        self, name: str, *, before: str | None = None, limit: int = HISTORY_PAGE
    ) -> RacePage:
        """One page of ``name``'s finished races, newest first, older than ``before``."""
        path = f"/api/players/{quote(name, safe='')}/races"
        query = {"limit": limit, "before": before}
        missing = {
            "player_not_found": _no_player(name),
            "race_not_found": t("tui.api.no_page", id=str(before), name=name),
        }
        data = await self.get(path, query, missing=missing)
        return self._read(RacePage, data, path)

    async def race(self, game_id: str) -> RaceRecordData:
        path = f"/api/races/{quote(game_id, safe='')}"
        data = await self.get(path, missing={"race_not_found": t("tui.api.no_race", id=game_id)})
        try:
            return RaceRecordData.of(data)
        except ValidationError as exc:
            raise self._shape(path, exc) from None

    # -- the request -----------------------------------------------------------

    async def get(
        self,
        path: str,
        query: Mapping[str, object] | None = None,
        *,
        missing: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """``GET path?query`` as a JSON object, or :class:`ApiError`.

        ``missing``: the words for a 404 by its ``error`` (``player_not_found``, …).
        """
        pairs = {key: value for key, value in (query or {}).items() if value is not None}
        url = self.base + path + (f"?{urlencode(pairs)}" if pairs else "")
        return await asyncio.to_thread(self._get, url, path, missing or {})

    def _get(self, url: str, path: str, missing: Mapping[str, str]) -> dict[str, Any]:
        request = urllib.request.Request(
            url, headers={"Accept": "application/json", "User-Agent": "flowergarden-client"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = response.read(MAX_BODY + 1)
        except urllib.error.HTTPError as exc:
            raise self._status(exc, path, missing) from None
        except urllib.error.URLError as exc:
            reason = exc.reason if isinstance(exc.reason, BaseException) else OSError(exc.reason)
            raise self._unreachable(reason) from None
        except http.client.HTTPException:
            words = t("tui.api.not_http", where=self.where)
            raise ApiError(words) from None
        except OSError as exc:  # a timeout or a reset while reading the answer
            raise self._unreachable(exc) from None
        if len(body) > MAX_BODY:
            raise ApiError(t("tui.api.too_big", where=self.where, path=path, bytes=MAX_BODY))
        data = _json(body)
        if not isinstance(data, dict):
            raise ApiError(t("tui.api.not_json", where=self.where, path=path))
        return data

    def _unreachable(self, exc: BaseException) -> ApiError:
        return ApiError(failure(exc, self.server_url, welcomed_before=True).words)

    def _status(
        self, exc: urllib.error.HTTPError, path: str, missing: Mapping[str, str]
    ) -> ApiError:
        status = exc.code
        try:
            data = _json(exc.read(MAX_BODY))
        except OSError:
            data = None
        code, message = _said(data)
        if status == 404 and code is not None and code in missing:
            words = missing[code]
        elif status == 404:
            words = t("tui.api.no_api", where=self.where, path=path)
        elif status == 429:
            words = t("tui.api.busy", where=self.where)
        elif status == 503 and code == "unavailable":
            words = t("tui.api.unavailable")
        elif status >= 500:
            words = t("tui.fail.http_restarting", where=self.where, code=str(status))
        else:
            words = t("tui.api.http", where=self.where, code=str(status))
            words += f": {message or code}" if code else ""
        return ApiError(words, status=status, code=code)

    def _read(self, model: type[M], data: dict[str, Any], path: str) -> M:
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise self._shape(path, exc) from None

    def _shape(self, path: str, exc: ValidationError) -> ApiError:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "-"
        words = t("tui.api.shape", where=self.where, path=path, field=where, why=first["msg"])
        return ApiError(words)


def _no_player(name: str) -> str:
    return t("tui.api.no_player", name=name)


def _said(data: object) -> tuple[str | None, str]:
    """An error answer's ``error`` code and ``message``, as far as it has them."""
    if not isinstance(data, dict):
        return None, ""
    code, message = data.get("error"), data.get("message")
    return (code if isinstance(code, str) else None), (message if isinstance(message, str) else "")


def _json(body: bytes) -> object:
    """The JSON in ``body``, or None if it is not JSON (in UTF-8)."""
    try:
        return json.loads(body)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError alike
        return None
