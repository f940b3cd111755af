"""The published JSON Schema matches the models."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import protocol.schema
from protocol import ERROR_CODES
from protocol.schema import SCHEMA_DIR, generate, main

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def test_schema_files_are_up_to_date() -> None:
    for name, text in generate().items():
        path = SCHEMA_DIR / name
        assert path.exists(), f"{path} is missing: run `make schema`"
        assert path.read_text(encoding="utf-8") == text, f"{path} is out of date: run `make schema`"


def test_schema_lists_every_type_and_error_code() -> None:
    client = json.loads(generate()["client.json"])
    server = json.loads(generate()["server.json"])
    assert len(client["discriminator"]["mapping"]) == 11
    assert len(server["discriminator"]["mapping"]) == 16
    assert server["$defs"]["Error"]["properties"]["code"]["enum"] == list(ERROR_CODES)
    assert server["$defs"]["Played"]["required"] == [
        "type", "game_id", "seat", "card", "from", "bed", "count", "status", "t_ms", "seq",
    ]  # fmt: skip
    for definition in client["$defs"].values():
        if "type" in definition.get("properties", {}):
            assert definition["required"][0] == "type"


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
