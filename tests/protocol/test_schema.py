"""The published JSON Schema matches the models, and says what each side sends."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import protocol.schema
from protocol import (
    CARD_PATTERN,
    ERROR_CODES,
    GAME_ID_PATTERN,
    NAME_PATTERN,
    ROOM_CODE_PATTERN,
    TOKEN_PATTERN,
)
from protocol.schema import SCHEMA_DIR, generate, main

from .samples import DOC_CLIENT_TYPES, DOC_SERVER_TYPES

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def test_schema_files_are_up_to_date() -> None:
    for name, text in generate().items():
        path = SCHEMA_DIR / name
        assert path.exists(), f"{path} is missing: run `make schema`"
        assert path.read_text(encoding="utf-8") == text, f"{path} is out of date: run `make schema`"


def schemas() -> tuple[dict[str, Any], dict[str, Any]]:
    files = generate()
    return json.loads(files["client.json"]), json.loads(files["server.json"])


def keys_anywhere(node: object) -> set[str]:
    """Every object key in a JSON value, at any depth (property names included)."""
    if isinstance(node, dict):
        return set(node).union(*(keys_anywhere(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(keys_anywhere(value) for value in node))
    return set()


def types_in(schema: dict[str, Any]) -> set[str]:
    refs = [branch["$ref"].rsplit("/", 1)[1] for branch in schema["oneOf"]]
    return {schema["$defs"][name]["properties"]["type"]["const"] for name in refs}


def test_schema_lists_every_type_and_error_code() -> None:
    client, server = schemas()
    assert types_in(client) == DOC_CLIENT_TYPES
    assert types_in(server) == DOC_SERVER_TYPES
    assert server["$defs"]["Error"]["properties"]["code"]["enum"] == list(ERROR_CODES)
    assert server["$defs"]["Played"]["required"] == [
        "type", "game_id", "seat", "card", "from", "bed", "count", "status", "t_ms", "seq",
    ]  # fmt: skip
    for definition in client["$defs"].values():
        if "type" in definition.get("properties", {}):
            assert definition["required"][0] == "type"


def test_no_keyword_that_is_not_json_schema() -> None:
    """Pydantic's leaks: ``ge`` on a union, OpenAPI's ``discriminator``."""
    for schema in schemas():
        keys = keys_anywhere(schema)
        assert "discriminator" not in keys
        assert not keys & {"ge", "le", "gt", "lt", "min_length", "max_length"}
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


# What the server may leave out of a message it sends: nothing else.
LEFT_OUT = {("GameState", "seat"), ("LobbySnapshot", "daily")}


def test_what_the_server_always_sends_is_required() -> None:
    _, server = schemas()
    for name, definition in server["$defs"].items():
        properties = set(definition.get("properties", {}))
        optional = {"id"} | {field for model, field in LEFT_OUT if model == name}
        assert set(definition.get("required", [])) == properties - optional, name
    # Revision 3's fields have defaults in the models, and are always sent.
    added = {
        "Welcome": {"revision", "bot"},
        "Limits": {"burst", "per_s", "hello_timeout_s"},
        "GameStart": {"daily", "ghost", "arena_id"},
        "GameOver": {"unrated", "daily", "arena"},
        "LobbySnapshot": {"arenas"},
    }
    for name, fields in added.items():
        assert fields <= set(server["$defs"][name]["required"]), name


def test_what_the_server_leaves_out_is_never_null() -> None:
    _, server = schemas()
    seat = server["$defs"]["GameState"]["properties"]["seat"]
    assert (seat["type"], seat["minimum"], seat["maximum"]) == ("integer", 0, 1)
    assert seat["type"] == "integer"
    assert "anyOf" not in seat
    assert "default" not in seat
    assert server["$defs"]["LobbySnapshot"]["properties"]["daily"]["$ref"].endswith("DailyInfo")
    identifier = server["$defs"]["Played"]["properties"]["id"]
    assert {"type": "null"} not in identifier["anyOf"]
    # A client may say "id": null, and leave out what has a default.
    client, _ = schemas()
    assert {"type": "null"} in client["$defs"]["Play"]["properties"]["id"]["anyOf"]
    assert client["$defs"]["Hello"]["required"] == ["type", "name"]


def test_patterns_and_the_rated_rule() -> None:
    client, server = schemas()
    assert client["$defs"]["Hello"]["properties"]["name"]["pattern"] == NAME_PATTERN
    assert client["$defs"]["JoinRoom"]["properties"]["code"]["pattern"] == ROOM_CODE_PATTERN
    assert client["$defs"]["Watch"]["properties"]["game_id"]["pattern"] == GAME_ID_PATTERN
    assert server["$defs"]["Welcome"]["properties"]["token"]["pattern"] == TOKEN_PATTERN
    assert server["$defs"]["Played"]["properties"]["card"]["pattern"] == CARD_PATTERN
    for schema in (client, server):
        rules = schema["$defs"]["Rules"]
        assert rules["if"]["properties"]["rated"] == {"const": True}
        assert rules["then"]["properties"]["deal"] == {"const": "mirror"}


def test_main_writes_then_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(protocol.schema, "SCHEMA_DIR", tmp_path)
    assert main(["--check"]) == 1
    assert not list(tmp_path.iterdir())
    assert main([]) == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["client.json", "server.json"]
    assert main(["--check"]) == 0
    (tmp_path / "server.json").write_text("{}\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["--check"]) == 1
    assert "server.json is out of date: run `make schema`" in capsys.readouterr().err
