"""The engine tests' fixtures: ``cleared``, a race record whose seat 0 clears."""

from __future__ import annotations

import pytest

from engine import SeedDealer

from .verify_helpers import Record, play, seed_of


@pytest.fixture(scope="module")
def cleared() -> Record:
    """Winnable deals: seat 0 clears first (it plays first), seat 1 has 51 cards."""
    return play([SeedDealer(seed_of(1)), SeedDealer(seed_of(2))])
