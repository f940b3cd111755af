"""The published JSON Schema under two validators that are not pydantic.

Python's ``jsonschema`` (Draft 2020-12, with format checks) and ajv in strict
mode (Node, installed in tests/schema_js by ``make schema-js``) each compile
``protocol/schema/*.json`` and validate real messages: every message the
models make (``samples.py``) must pass, and each message below that breaks the
contract must fail. Strict mode is what keeps the schemas to JSON Schema:
it refuses a keyword it does not know (pydantic's ``ge`` or ``discriminator``)
and a format it cannot check.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from protocol import decode_server, encode
from protocol.codec import DecodeError
from protocol.schema import SCHEMA_DIR

from ..services import services_required
from .samples import CLIENT_EXAMPLES, server_samples

JS_DIR = Path(__file__).resolve().parents[1] / "schema_js"
CLIENT, SERVER = SCHEMA_DIR / "client.json", SCHEMA_DIR / "server.json"

VALID_CLIENT = [json.loads(frame) for frame in CLIENT_EXAMPLES]
VALID_SERVER = [json.loads(encode(message)) for message in server_samples()]

# Requests a server cannot carry out, each for one reason.
INVALID_CLIENT: dict[str, dict[str, Any]] = {
    "no type": {"card": "QH"},
    "unknown type": {"type": "no_such_thing"},
    "not a card": {"type": "play", "card": "ZZ"},
    "no card": {"type": "play"},
    "redeals 2": {"type": "seek", "rules": {"redeals": 2}},
    "rated, not mirror": {"type": "seek", "rules": {"rated": True}},
    "rated, not winnable": {"type": "seek", "rules": {"rated": True, "deal": "mirror"}},
    "rated, independent": {
        "type": "seek",
        "rules": {"rated": True, "deal": "independent", "winnable_only": True},
    },
    "not a name": {"type": "hello", "name": "two words"},
    "name too long": {"type": "hello", "name": "x" * 21},
    "bot not a bool": {"type": "hello", "name": "alice", "bot": "yes"},
    "not a token": {"type": "hello", "name": "alice", "token": "a token"},
    "not a room code": {"type": "join_room", "code": "abc234"},
    "not a game id": {"type": "watch", "game_id": "g/1"},
    "reason too long": {"type": "report", "game_id": "g1", "reason": "x" * 201},
    "ghost not a bool": {"type": "daily", "ghost": 1},
    "no arena": {"type": "join_arena"},
    "id too long": {"type": "lobby", "id": "x" * 65},
}


def broken(kind: str, change: dict[str, Any]) -> dict[str, Any]:
    """The first valid sample of type ``kind``, with ``change`` applied (None: deleted)."""
    message = copy.deepcopy(next(m for m in VALID_SERVER if m["type"] == kind))
    for key, value in change.items():
        *path, last = key.split(".")
        target = message
        for part in path:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if value is None:
            target.pop(last, None)
        else:
            target[last] = value
    return message


VALID_STANDING = broken("arena", {})["standings"][0]

# Messages no server may send, each for one reason.
INVALID_SERVER: dict[str, dict[str, Any]] = {
    "unknown unrated": broken("game_over", {"unrated": "slow"}),
    "not a time": broken("arena", {"starts_at": "tomorrow"}),
    "a time without offset": broken("arena", {"ends_at": "2025-06-06T19:00:00"}),
    "no such month": broken("arena", {"starts_at": "2025-13-01T00:00:00Z"}),
    "no such day": broken(
        "lobby", {"daily": {"date": "2025-02-30", "players": 0, "best_ms": None}}
    ),
    "unknown error code": broken("error", {"code": "nope"}),
    "from nowhere": broken("played", {"from": "hand"}),
    "rated, not mirror": broken("seeking", {"rules.rated": True, "rules.deal": "independent"}),
    "seat 2": broken("game_start", {"seat": 2}),
    "too many standings": broken(
        "arena", {"standings": [broken("arena", {})["standings"][0]] * 51}
    ),
}


# What the schema refuses and the models read all the same: what a revision-2
# server leaves out (the models fill in the defaults), and null for a field
# that is left out when empty (the models read it as left out).
READ_ANYWAY: dict[str, dict[str, Any]] = {
    "spectator seat null": broken("game_state", {"seat": None}) | {"seat": None},
    "lobby daily null": broken("lobby", {"daily": None}) | {"daily": None},
    "welcome without revision": broken("welcome", {"revision": None, "bot": None}),
    "limits without burst": broken("welcome", {"limits.burst": None}),
    "game_start without daily": broken("game_start", {"daily": None}),
    "game_over without unrated": broken("game_over", {"unrated": None}),
    "lobby without arenas": broken("lobby", {"arenas": None}),
}


# Identifiers that are not of the project's shape: the schema refuses them, and
# the models take any string (protocol.common, "The identifiers").
SHAPED: dict[str, dict[str, Any]] = {
    "not a game id": broken("played", {"game_id": "g/1"}),
    "not a room code": broken("room", {"code": "ABCD"}),
    "not a name": broken("game_start", {"players": ["alice", "b o b"]}),
    "not a token": broken("welcome", {"token": "a token"}),
}


def jsonschema_errors(path: Path, message: dict[str, Any]) -> list[str]:
    schema = json.loads(path.read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return [error.message for error in validator.iter_errors(message)]


def test_the_schemas_are_draft_2020_12() -> None:
    for path in (CLIENT, SERVER):
        Draft202012Validator.check_schema(json.loads(path.read_text(encoding="utf-8")))


def test_formats_are_checked() -> None:
    """jsonschema checks ``date-time`` only with rfc3339-validator installed (the dev extra)."""
    checkers = Draft202012Validator.FORMAT_CHECKER.checkers
    assert {"date-time", "date"} <= set(checkers)


@pytest.mark.parametrize("message", VALID_CLIENT, ids=lambda message: message["type"])
def test_jsonschema_takes_every_client_example(message: dict[str, Any]) -> None:
    assert jsonschema_errors(CLIENT, message) == []


@pytest.mark.parametrize("message", VALID_SERVER, ids=lambda message: message["type"])
def test_jsonschema_takes_every_server_sample(message: dict[str, Any]) -> None:
    assert jsonschema_errors(SERVER, message) == []


@pytest.mark.parametrize("why", INVALID_CLIENT)
def test_jsonschema_refuses_what_no_request_may_be(why: str) -> None:
    assert jsonschema_errors(CLIENT, INVALID_CLIENT[why]) != []


@pytest.mark.parametrize("why", INVALID_SERVER)
def test_jsonschema_and_the_models_refuse_what_no_server_may_send(why: str) -> None:
    message = INVALID_SERVER[why]
    assert jsonschema_errors(SERVER, message) != []
    with pytest.raises(DecodeError):
        decode_server(json.dumps(message))


@pytest.mark.parametrize("why", READ_ANYWAY)
def test_the_models_read_more_than_the_schema_takes(why: str) -> None:
    message = READ_ANYWAY[why]
    assert jsonschema_errors(SERVER, message) != []
    read = decode_server(json.dumps(message))
    assert jsonschema_errors(SERVER, json.loads(encode(read))) == []


@pytest.mark.parametrize("why", SHAPED)
def test_the_schema_gives_the_shape_of_identifiers(why: str) -> None:
    message = SHAPED[why]
    assert jsonschema_errors(SERVER, message) != []
    assert json.loads(encode(decode_server(json.dumps(message)))) == message


def ajv_verdicts(samples: dict[Path, list[dict[str, Any]]], tmp_path: Path) -> dict[str, Any]:
    """ajv's verdict on each sample, by schema file (tests/schema_js/validate.mjs)."""
    node = shutil.which("node")
    if node is None or not (JS_DIR / "node_modules" / "ajv").is_dir():
        why = "node is missing" if node is None else "ajv is missing: run `make schema-js`"
        if services_required():
            pytest.fail(f"{why} (FLOWERGARDEN_REQUIRE_SERVICES=1)")
        pytest.skip(why)
    file = tmp_path / "samples.json"
    file.write_text(json.dumps({str(path): messages for path, messages in samples.items()}))
    done = subprocess.run(
        [node, str(JS_DIR / "validate.mjs"), str(file)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, f"ajv in strict mode refused a schema:\n{done.stderr}"
    verdicts: dict[str, Any] = json.loads(done.stdout)
    return verdicts


def test_ajv_strict_compiles_both_and_agrees(tmp_path: Path) -> None:
    client = VALID_CLIENT + list(INVALID_CLIENT.values())
    invalid = [*INVALID_SERVER.values(), *READ_ANYWAY.values(), *SHAPED.values()]
    server = VALID_SERVER + invalid
    verdicts = ajv_verdicts({CLIENT: client, SERVER: server}, tmp_path)
    expected = {
        str(CLIENT): [True] * len(VALID_CLIENT) + [False] * len(INVALID_CLIENT),
        str(SERVER): [True] * len(VALID_SERVER) + [False] * len(invalid),
    }
    for path, messages in ((CLIENT, client), (SERVER, server)):
        got = [verdict["valid"] for verdict in verdicts[str(path)]]
        wrong = [
            (message, verdict["errors"][:3])
            for message, verdict, want in zip(
                messages, verdicts[str(path)], expected[str(path)], strict=True
            )
            if verdict["valid"] != want
        ]
        assert got == expected[str(path)], wrong


def test_ajv_strict_refuses_pydantics_leaks(tmp_path: Path) -> None:
    """The check can fail: the schema as pydantic writes it is no strict JSON Schema."""
    from protocol import SERVER_ADAPTER

    leaky = tmp_path / "leaky.json"
    leaky.write_text(json.dumps(SERVER_ADAPTER.json_schema()))
    with pytest.raises(AssertionError, match="strict mode"):
        ajv_verdicts({leaky: [VALID_SERVER[0]]}, tmp_path)
