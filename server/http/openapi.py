"""The HTTP API's own schema: an OpenAPI 3.1 document made from the models it answers with.

``GET /api/openapi.json`` (PROTOCOL.md, "HTTP") serves :func:`document`.
:data:`ENDPOINTS` is its table, one :class:`Endpoint` a path: what it answers
(a model of :mod:`server.http.models`, or a media type for text), its query
parameters, the error statuses it may answer with (each an
:class:`~server.http.models.ErrorAnswer`), and, for the operator's paths,
a request body and the bearer token (the operator's paths). Path parameters are read off the path
(``{name}``). The schemas are pydantic's JSON Schema of the very models the
API dumps, which OpenAPI 3.1 takes as they are, so a path added later (the
daily deal, arenas, the admin paths) is its models and one entry here.

``python -m server.http.openapi`` prints the document, for a client author's
generator.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from http import HTTPStatus
from importlib import metadata
from typing import TYPE_CHECKING, Any

from pydantic.json_schema import models_json_schema

from server.operator.actions import ANNUL, PLAYER_ACTIONS, RENAME

from .metrics import CONTENT_TYPE
from .models import (
    AdminOrder,
    AnnulAnswer,
    DailyAnswer,
    ErrorAnswer,
    Health,
    LeaderboardAnswer,
    LogAnswer,
    PlayerProfile,
    PlayerReview,
    PlayerStanding,
    RaceHistory,
    RaceReplay,
    RaceReview,
    RenameOrder,
    ReviewAnswer,
)

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic.json_schema import JsonSchemaMode

    _Key = tuple[type[BaseModel], JsonSchemaMode]

__all__ = [
    "ENDPOINTS",
    "HISTORY_LIMIT",
    "LEADERBOARD_LIMIT",
    "LOG_LIMIT",
    "Endpoint",
    "Query",
    "document",
]

LEADERBOARD_LIMIT = (50, 200)
"""``limit`` of ``/api/leaderboard``: its default and its largest."""
HISTORY_LIMIT = (20, 100)
"""``limit`` of a player's ``/races``: its default and its largest."""
LOG_LIMIT = (100, 1000)
"""``limit`` of the audit log (``/api/admin/log``): its default and its largest."""
LIMIT_DIGITS = 4
"""A ``limit`` is at most this many ASCII digits (PROTOCOL.md: "or too long" is 400)."""
GAME_ID_PATTERN = r"^[0-9A-Za-z_-]{1,64}$"
"""What a race's id may look like in a query (``before``)."""

_REF = "#/components/schemas/{model}"
_ERRORS = {
    HTTPStatus.BAD_REQUEST: "A query parameter that does not parse (`bad_request`).",
    HTTPStatus.NOT_FOUND: "No such player (`player_not_found`), race (`race_not_found`) or"
    " day shown (`not_found`: a daily deal nobody drew, or a day to come).",
    HTTPStatus.TOO_MANY_REQUESTS: "Past this address's limit of requests (`rate_limited`).",
    HTTPStatus.INTERNAL_SERVER_ERROR: "A bug (`internal_error`): never to a request that parses.",
    HTTPStatus.SERVICE_UNAVAILABLE: "The store cannot answer now (`unavailable`).",
    HTTPStatus.UNAUTHORIZED: "No `Authorization: Bearer TOKEN`, or not the admin token"
    " (`unauthorized`).",
    HTTPStatus.CONFLICT: "The action cannot be done, and nothing changed (`refused`: a name"
    " taken, a race not rated...).",
}
_API_ERRORS = (HTTPStatus.TOO_MANY_REQUESTS, HTTPStatus.INTERNAL_SERVER_ERROR)
"""What any ``/api/`` path may answer: the limit per address, and a bug."""
_STORE_ERRORS = (*_API_ERRORS, HTTPStatus.SERVICE_UNAVAILABLE)
_ADMIN_ERRORS = (HTTPStatus.UNAUTHORIZED, HTTPStatus.NOT_FOUND, *_STORE_ERRORS)
"""Any admin path: no token (``401``); ``404`` when the server has no admin token at all."""
_ACTION_ERRORS = (HTTPStatus.BAD_REQUEST, HTTPStatus.CONFLICT, *_ADMIN_ERRORS)


@dataclass(frozen=True, slots=True)
class Query:
    """A query parameter."""

    name: str
    description: str
    schema: dict[str, Any]


def limit(bounds: tuple[int, int]) -> Query:
    """The ``limit`` parameter with these bounds (its default, its largest)."""
    default, largest = bounds
    pattern = f"^[0-9]{{1,{LIMIT_DIGITS}}}$"
    schema = {"type": "string", "pattern": pattern, "default": str(default)}
    words = f"How many, 1 to {largest}, in ASCII digits; {default} if left out."
    return Query("limit", words, schema)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One path and method of the API, as the document describes it."""

    path: str
    """The path, with its parameters in braces: ``/api/players/{name}``."""
    summary: str
    answer: type[BaseModel] | str
    """The ``200`` answer's model, or the media type of a text answer."""
    errors: tuple[HTTPStatus, ...] = _STORE_ERRORS
    query: tuple[Query, ...] = ()
    method: str = "get"
    also: tuple[HTTPStatus, ...] = ()
    """Other statuses answered with the same model (``/healthz``'s ``503``)."""
    body: type[BaseModel] | None = None
    """The JSON body a request takes (the operator's ``POST`` paths)."""
    bearer: bool = False
    """Only with the admin token, ``Authorization: Bearer TOKEN``."""

    def schemas(self) -> list[tuple[type[BaseModel], JsonSchemaMode]]:
        """Its models, each with the side of the wire it is on."""
        found: list[tuple[type[BaseModel], JsonSchemaMode]] = []
        if not isinstance(self.answer, str):
            found.append((self.answer, "serialization"))
        if self.body is not None:
            found.append((self.body, "validation"))
        return found


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("/healthz", "Whether the server takes players.", Health, (), (),
             also=(HTTPStatus.SERVICE_UNAVAILABLE,)),
    Endpoint("/metrics", "Prometheus' text format: connections, races, plays, errors, closes,"
             " store latency.", CONTENT_TYPE, ()),
    Endpoint("/api/leaderboard", "Rated, settled players, best first.", LeaderboardAnswer,
             (HTTPStatus.BAD_REQUEST, *_STORE_ERRORS), (limit(LEADERBOARD_LIMIT),)),
    Endpoint("/api/players/{name}", "A player's profile.", PlayerProfile,
             (HTTPStatus.NOT_FOUND, *_STORE_ERRORS)),
    Endpoint("/api/players/{name}/races", "A player's finished races, newest first, a page"
             " at a time.", RaceHistory, (HTTPStatus.BAD_REQUEST, HTTPStatus.NOT_FOUND,
                                      *_STORE_ERRORS),
             (limit(HISTORY_LIMIT), Query("before", "The `next` of the page before: races"
                                          " older than this one.",
                                          {"type": "string", "pattern": GAME_ID_PATTERN}))),
    Endpoint("/api/races/{game_id}", "A finished race: enough to replay and verify it.",
             RaceReplay, (HTTPStatus.NOT_FOUND, *_STORE_ERRORS)),
    Endpoint("/api/daily", "Today's daily deal: its commit, rules and board (the seed is"
             " revealed once the day is over).", DailyAnswer, _STORE_ERRORS),
    Endpoint("/api/daily/{date}", "A day's daily deal (`YYYY-MM-DD`): a past day with its"
             " seed; today without it.", DailyAnswer,
             (HTTPStatus.BAD_REQUEST, HTTPStatus.NOT_FOUND, *_STORE_ERRORS)),
    Endpoint("/api/openapi.json", "This document.", "application/json", _API_ERRORS),
    *(
        Endpoint(f"/api/admin/players/{{name}}/{action.name}", action.summary, PlayerStanding,
                 _ACTION_ERRORS, method="post", body=AdminOrder, bearer=True)
        for action in PLAYER_ACTIONS.values()
    ),
    Endpoint("/api/admin/players/{name}/rename", RENAME, PlayerStanding, _ACTION_ERRORS,
             method="post", body=RenameOrder, bearer=True),
    Endpoint("/api/admin/races/{game_id}/annul", ANNUL, AnnulAnswer, _ACTION_ERRORS,
             method="post", body=AdminOrder, bearer=True),
    Endpoint("/api/admin/review", "Players flagged or reported, most recent first.",
             ReviewAnswer, _ADMIN_ERRORS, bearer=True),
    Endpoint("/api/admin/review/players/{name}", "One player and every race that points at"
             " them, with their timing.", PlayerReview, _ADMIN_ERRORS, bearer=True),
    Endpoint("/api/admin/review/races/{game_id}", "One finished race with each seat's timing"
             " and its reports.", RaceReview, _ADMIN_ERRORS, bearer=True),
    Endpoint("/api/admin/log", "The audit log: every operator action, newest first.",
             LogAnswer, (HTTPStatus.BAD_REQUEST, *_ADMIN_ERRORS), (limit(LOG_LIMIT),),
             bearer=True),
)  # fmt: skip
"""Every path of the API; the browser client's files at ``/`` are not in it."""


def document(endpoints: tuple[Endpoint, ...] = ENDPOINTS) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``endpoints``."""
    wanted: dict[_Key, None] = {(ErrorAnswer, "serialization"): None}
    wanted.update({schema: None for endpoint in endpoints for schema in endpoint.schemas()})
    refs, defs = models_json_schema(list(wanted), ref_template=_REF)
    ref = {key: refs[key] for key in wanted}
    paths: dict[str, dict[str, Any]] = {}
    for endpoint in endpoints:
        paths.setdefault(endpoint.path, {})[endpoint.method] = _operation(endpoint, ref)
    components: dict[str, Any] = {"schemas": defs.get("$defs", {})}
    if any(endpoint.bearer for endpoint in endpoints):
        components["securitySchemes"] = {"admin": {"type": "http", "scheme": "bearer"}}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Flower Garden race server: HTTP API",
            "version": _version(),
            "description": 'PROTOCOL.md, "HTTP". Every JSON answer carries'
            " `Access-Control-Allow-Origin: *`. Fields may be added: ignore those you do"
            " not know.",
        },
        "paths": paths,
        "components": components,
    }


def _operation(endpoint: Endpoint, ref: dict[_Key, Any]) -> dict[str, Any]:
    answer = endpoint.answer
    if isinstance(answer, str):
        content = {answer: {"schema": {"type": "object" if "json" in answer else "string"}}}
        described = endpoint.summary
    else:
        content = {"application/json": {"schema": ref[answer, "serialization"]}}
        described = answer.__doc__ or endpoint.summary
    responses = {"200": {"description": described, "content": content}}
    for status in endpoint.also:
        responses[str(status.value)] = {"description": status.phrase, "content": content}
    error = {"application/json": {"schema": ref[ErrorAnswer, "serialization"]}}
    for status in endpoint.errors:
        responses[str(status.value)] = {"description": _ERRORS[status], "content": error}
    operation: dict[str, Any] = {"summary": endpoint.summary, "responses": responses}
    names = re.findall(r"{(\w+)}", endpoint.path)
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in names
    ] + [
        {"name": q.name, "in": "query", "description": q.description, "schema": q.schema}
        for q in endpoint.query
    ]
    if parameters:
        operation["parameters"] = parameters
    if endpoint.body is not None:
        body = {"application/json": {"schema": ref[endpoint.body, "validation"]}}
        operation["requestBody"] = {"required": True, "content": body}
    if endpoint.bearer:
        operation["security"] = [{"admin": []}]
    return operation


def _version() -> str:
    try:
        return metadata.version("flowergarden-race")
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        return "0"


if __name__ == "__main__":
    print(json.dumps(document(), indent=2))
