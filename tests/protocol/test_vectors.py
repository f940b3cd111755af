"""The dealing vectors the package ships are the shared contract's, and load as data."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.conformance import VECTORS, deal_vectors

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "conformance" / VECTORS
COPY = ROOT / "protocol" / "conformance" / VECTORS


def test_the_copy_is_the_shared_contracts() -> None:
    if not SHARED.exists():
        pytest.skip("the shared contract is not beside this checkout")
    assert COPY.read_bytes() == SHARED.read_bytes(), (
        f"{COPY.relative_to(ROOT)} is stale: copy ../shared/conformance/{VECTORS}"
    )


def test_there_is_one_copy_in_the_repository() -> None:
    copies = [path.relative_to(ROOT) for path in ROOT.rglob(VECTORS) if ".venv" not in path.parts]
    assert copies == [COPY.relative_to(ROOT)]


def test_the_package_reads_them() -> None:
    vectors = deal_vectors()
    assert len(vectors) == len(COPY.read_text().splitlines()) >= 4
    assert all(len(vector["seed"]) == 64 for vector in vectors)
