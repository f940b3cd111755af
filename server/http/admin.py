"""The operator's HTTP API, under ``/api/admin/``: the actions, the review and the audit log.

PROTOCOL.md, "HTTP", and docs/operating.md, "Running a public lobby". On only
when the server has an admin token (``--admin-token``, or
``FLOWERGARDEN_ADMIN_TOKEN``): without one, every admin path is ``404`` as
any unknown path is. With one, a request without ``Authorization: Bearer
TOKEN``, or with another token, is ``401`` (the token compared in constant
time); requests count against the API's limit per address, so that guessing
is slow. No answer here carries the CORS header: no page of another origin
may read them.

Each action is one of :mod:`server.operator.actions`, the very script the
command line runs, and this worker applies it at once
(:meth:`OperatorWatch.made <server.operator.watch.OperatorWatch.made>`); the
other workers read its line in the audit log within a second. The reads are
:mod:`server.operator.review`'s. A ``POST``'s body is JSON
(:class:`~server.http.models.AdminOrder`, a rename's
:class:`~server.http.models.RenameOrder`): one that does not parse is ``400``.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import parse_qs, unquote, urlsplit

from pydantic import ValidationError

from server.operator import review
from server.operator.actions import (
    PLAYER_ACTIONS,
    ActionRefused,
    Order,
    UnknownPlayer,
    UnknownRace,
    annul,
    perform,
    rename,
)
from server.store import StoreError
from server.transport.logbudget import LogBudget

from . import arena_pages
from .api import ApiRefused, error_response, model_response, query_limit
from .arena_models import ArenaOrder
from .models import AdminOrder, ApiAnswer, LogAnswer, RenameOrder

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from pydantic import BaseModel

    from server.arena_keeper import ArenaKeeper
    from server.operator.watch import OperatorWatch
    from server.transport.connection import Request, Response

    from .api import Api
    from .models import ErrorCode

__all__ = ["ADMIN", "Admin"]

log = logging.getLogger("flowergarden.server")

ADMIN = "/api/admin/"
"""Where the operator's paths are."""
_BEARER = "bearer "
M = TypeVar("M", bound=ApiAnswer)


class Admin:
    """The ``/api/admin/`` paths of one server (see the module docstring)."""

    def __init__(self, token: str, api: Api, watch: OperatorWatch, arenas: ArenaKeeper) -> None:
        self._token = token.encode()
        self._api, self._watch, self._arenas = api, watch, arenas
        self._pending: set[asyncio.Task[Response]] = set()
        self._bugs = LogBudget()

    def answer(self, address: str, request: Request) -> Response | asyncio.Future[Response]:
        """The answer to a request under ``/api/admin/``: at once if refused, else a future."""
        if not self._token:
            return _error(HTTPStatus.NOT_FOUND, "not_found", "no such path")
        if not self._api.allows(address):
            return _error(HTTPStatus.TOO_MANY_REQUESTS, "rate_limited", "too many requests")
        if not self._authorized(request.headers.get("Authorization", "")):
            return _error(HTTPStatus.UNAUTHORIZED, "unauthorized", "the admin token is needed")
        task = asyncio.ensure_future(self._answer(address, request))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
        return task

    def _authorized(self, header: str) -> bool:
        if header[: len(_BEARER)].lower() != _BEARER:
            return False
        return hmac.compare_digest(header[len(_BEARER) :].strip().encode(), self._token)

    async def _answer(self, address: str, request: Request) -> Response:
        try:
            url = urlsplit(request.path)
            parts = [unquote(part) for part in url.path[len(ADMIN) :].split("/")]
            query = parse_qs(url.query, keep_blank_values=True)
            method = "GET" if request.method == "HEAD" else request.method
            answer = await self._route(method, parts, query, request.body)
            made = parts == ["arenas"]  # the one path that makes something: 201
            return model_response(HTTPStatus.CREATED if made else HTTPStatus.OK, answer, cors=False)
        except ApiRefused as refused:
            response = _error(refused.status, refused.code, refused.message)
            if isinstance(refused, _WrongMethod):
                response.headers["Allow"] = refused.allow
            return response
        except UnknownPlayer as unknown:
            return _error(HTTPStatus.NOT_FOUND, "player_not_found", str(unknown))
        except UnknownRace as unknown:
            return _error(HTTPStatus.NOT_FOUND, "race_not_found", str(unknown))
        except ActionRefused as refused:
            return _error(HTTPStatus.CONFLICT, "refused", str(refused))
        except StoreError as exc:
            log.error("the admin API could not reach the store: %s", exc)
            return _error(HTTPStatus.SERVICE_UNAVAILABLE, "unavailable", "try again later")
        except Exception as exc:  # a bug: the operator still gets JSON they can read
            self._bugs.bug(address, exc)
            return _error(HTTPStatus.INTERNAL_SERVER_ERROR, "internal_error", "a bug; logged")

    def _route(
        self, method: str, parts: list[str], query: dict[str, list[str]], body: bytes
    ) -> Coroutine[Any, Any, BaseModel]:
        store = self._api.store
        match parts:
            case ["players", name, "rename"]:
                _only("POST", method)
                return self._rename(name, _body(RenameOrder, body))
            case ["players", name, action] if action in PLAYER_ACTIONS:
                _only("POST", method)
                return self._player(action, name, _body(AdminOrder, body))
            case ["races", game_id, "annul"]:
                _only("POST", method)
                return self._annul(game_id, _body(AdminOrder, body))
            case ["review"]:
                _only("GET", method)
                return review.review(store)
            case ["review", "players", name]:
                _only("GET", method)
                return review.player_review(store, name)
            case ["review", "races", game_id]:
                _only("GET", method)
                return review.race_review(store, game_id)
            case ["arenas"]:
                _only("POST", method)
                return arena_pages.schedule(self._arenas, _body(ArenaOrder, body))
            case ["log"]:
                _only("GET", method)
                return self._log(query_limit(query, review.LOG_LIMIT))
        raise ApiRefused(HTTPStatus.NOT_FOUND, "not_found", "no such path; see /api/openapi.json")

    async def _player(self, action: str, name: str, order: AdminOrder) -> BaseModel:
        script = PLAYER_ACTIONS[action].script(name, _order(order))
        line, player = await perform(self._api.store, script)
        await self._watch.made(line)
        return review.standing(player)

    async def _rename(self, name: str, order: RenameOrder) -> BaseModel:
        line, player = await perform(self._api.store, rename(name, order.name, _order(order)))
        await self._watch.made(line)
        return review.standing(player)

    async def _annul(self, game_id: str, order: AdminOrder) -> BaseModel:
        done = await perform(self._api.store, annul(game_id, _order(order)))
        await self._watch.made(done.line)
        return review.annulled(game_id, done)

    async def _log(self, limit: int) -> BaseModel:
        return LogAnswer(actions=await review.log(self._api.store, limit))


class _WrongMethod(ApiRefused):
    """``405``: the path is there, for another method (``allow``, the answer's ``Allow``)."""

    def __init__(self, allow: str) -> None:
        words = f"this path takes {allow} only"
        super().__init__(HTTPStatus.METHOD_NOT_ALLOWED, "method_not_allowed", words)
        self.allow = allow


def _only(method: str, asked: str) -> None:
    if asked != method:
        raise _WrongMethod("GET, HEAD" if method == "GET" else method)


def _body(model: type[M], body: bytes) -> M:
    try:
        return model.model_validate_json(body or b"{}")
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "body"
        message = f"{where}: {first['msg']}"
        raise ApiRefused(HTTPStatus.BAD_REQUEST, "bad_request", message) from None


def _order(order: AdminOrder) -> Order:
    return Order(reason=order.reason, by=order.by, at=time.time())


def _error(status: HTTPStatus, code: ErrorCode, message: str) -> Response:
    return error_response(status, code, message, cors=False)
