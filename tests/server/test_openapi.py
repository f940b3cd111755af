"""The OpenAPI generator on its own: a path added later is one entry (server/http/openapi.py)."""

from __future__ import annotations

from http import HTTPStatus

from openapi_spec_validator import validate
from pydantic import Field

from server.http.models import ApiAnswer
from server.http.openapi import ENDPOINTS, Endpoint, document


class Ban(ApiAnswer):
    """A body an admin path might take."""

    reason: str = Field(max_length=200)


class Banned(ApiAnswer):
    name: str
    banned: bool


def test_the_served_document_is_valid_openapi_3_1() -> None:
    made = document()
    validate(made)
    assert made["openapi"] == "3.1.0"
    assert set(made["paths"]) == {endpoint.path for endpoint in ENDPOINTS}


def test_an_admin_path_with_a_body_and_a_token_is_one_entry() -> None:
    admin = Endpoint(
        "/api/admin/players/{name}/ban",
        "Ban a player.",
        Banned,
        (HTTPStatus.NOT_FOUND,),
        method="post",
        body=Ban,
        bearer=True,
    )
    made = document((*ENDPOINTS, admin))
    validate(made)
    operation = made["paths"]["/api/admin/players/{name}/ban"]["post"]
    assert operation["security"] == [{"admin": []}]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/Ban"}
    assert made["components"]["schemas"]["Ban"]["properties"]["reason"]["maxLength"] == 200
    assert made["components"]["securitySchemes"]["admin"]["scheme"] == "bearer"
    assert operation["parameters"][0] == {
        "name": "name",
        "in": "path",
        "required": True,
        "schema": {"type": "string"},
    }
    public = tuple(endpoint for endpoint in ENDPOINTS if not endpoint.bearer)
    assert "securitySchemes" not in document(public)["components"]


def test_every_admin_path_is_in_the_document_behind_the_token() -> None:
    made = document()
    admin = {path: ops for path, ops in made["paths"].items() if path.startswith("/api/admin/")}
    assert set(admin) >= {
        "/api/admin/players/{name}/ban", "/api/admin/players/{name}/unban",
        "/api/admin/players/{name}/rename", "/api/admin/players/{name}/forget",
        "/api/admin/players/{name}/bot", "/api/admin/players/{name}/clear",
        "/api/admin/races/{game_id}/annul", "/api/admin/review", "/api/admin/log",
        "/api/admin/review/players/{name}", "/api/admin/review/races/{game_id}",
    }  # fmt: skip
    for ops in admin.values():
        for operation in ops.values():
            assert operation["security"] == [{"admin": []}]
            assert "401" in operation["responses"]
    ban = admin["/api/admin/players/{name}/ban"]["post"]
    body = made["components"]["schemas"]["AdminOrder"]
    assert ban["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/AdminOrder"
    )
    assert body["required"] == ["reason"]
    answer = made["components"]["schemas"]["PlayerStanding"]["properties"]
    assert {"name", "banned"} <= set(answer)


def test_a_summary_says_result_and_reason_as_game_over_does() -> None:
    schemas = document()["components"]["schemas"]
    reason = schemas["PastRace"]["properties"]["reason"]
    assert "cleared" in reason["enum"] and "aborted" in reason["enum"]
    assert schemas["PastRace"]["properties"]["result"]["enum"] == ["win", "draw"]
