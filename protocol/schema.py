"""The JSON Schema of both directions, generated from the models.

``python -m protocol.schema`` (``make schema``) writes ``protocol/schema/client.json``
and ``protocol/schema/server.json``; ``--check`` writes nothing and exits 1 if
either file differs from what would be written.

Each file says what one side may send, for any validator of JSON Schema 2020-12
(the tests hold them to Python's ``jsonschema`` with format checks and to ajv in
strict mode):

- ``client.json`` is a request the server can carry out: what the decoder
  accepts (pydantic's validation mode, so a field with a default may be left
  out), with the patterns of names, tokens, room codes and game ids, which the
  decoder leaves to the server (``bad_name``, ``bad_token``, ...).
- ``server.json`` is what the server writes (pydantic's serialization mode):
  every field is required but those left out when empty (``id``, a
  spectator's ``seat``, a lobby's ``daily``), and those are never null.

Neither carries pydantic's OpenAPI ``discriminator``, which is no keyword of
JSON Schema: each message's ``type`` is a ``const``, so ``oneOf`` picks it alone.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic.json_schema import GenerateJsonSchema

from .client import CLIENT_ADAPTER
from .common import PROTOCOL_VERSION, REVISION
from .server import SERVER_ADAPTER

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic import TypeAdapter
    from pydantic.json_schema import JsonSchemaValue
    from pydantic_core import core_schema

__all__ = ["SCHEMA_DIR", "generate", "main"]

SCHEMA_DIR = Path(__file__).parent / "schema"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


class _WireSchema(GenerateJsonSchema):
    """Pydantic's generator, but a field left out when empty is never null.

    Every ``exclude_if`` of the models leaves a field out when it is None, so
    on the wire such a field is either absent or a value: its schema loses the
    ``null`` branch and the default (pydantic already leaves it unrequired).
    """

    def model_field_schema(self, schema: core_schema.ModelField) -> JsonSchemaValue:
        value = super().model_field_schema(schema)
        if self.mode != "serialization" or schema.get("serialization_exclude_if") is None:
            return value
        value = {key: item for key, item in value.items() if key != "default"}
        branches = [branch for branch in value.pop("anyOf", []) if branch != {"type": "null"}]
        if len(branches) == 1:
            return {**branches[0], **value}
        return {**value, "anyOf": branches} if branches else value


def _document(
    adapter: TypeAdapter[Any], title: str, mode: Literal["validation", "serialization"]
) -> str:
    schema = adapter.json_schema(mode=mode, schema_generator=_WireSchema)
    del schema["discriminator"]
    document = {"$schema": DIALECT, "title": title, **schema}
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def generate() -> dict[str, str]:
    """Each schema file's name and the text it should hold."""
    version = f"Flower Garden race protocol {PROTOCOL_VERSION} (revision {REVISION})"
    return {
        "client.json": _document(
            CLIENT_ADAPTER, f"{version}: a client to server message", "validation"
        ),
        "server.json": _document(
            SERVER_ADAPTER, f"{version}: a server to client message", "serialization"
        ),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m protocol.schema", description=__doc__)
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if the files are out of date; write nothing"
    )
    args = parser.parse_args(argv)
    stale = []
    for name, text in generate().items():
        path = SCHEMA_DIR / name
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(path)
        if not args.check:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if args.check and stale:
        for path in stale:
            print(f"{path} is out of date: run `make schema`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
