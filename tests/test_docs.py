"""The documents a newcomer reads stay true to the project."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def test_protocol_copy_matches_the_shared_contract() -> None:
    original = SHARED / "PROTOCOL.md"
    if not original.exists():
        pytest.skip("the shared contract is not beside this checkout")
    copy = (ROOT / "docs" / "PROTOCOL.md").read_text()
    assert copy == original.read_text(), "docs/PROTOCOL.md is stale: copy ../shared/PROTOCOL.md"


def test_readme_names_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "make serve" in readme
    assert "make test" in readme


def test_readme_links_resolve() -> None:
    readme = (ROOT / "README.md").read_text()
    for target in ("docs/PROTOCOL.md", "docs/protocol-notes.md", "protocol/schema/client.json"):
        assert f"]({target})" in readme
        assert (ROOT / target).exists(), target
