"""The core tests' fixtures: ``lobby``, a lobby core with Ann, Bob, Cat and Dan online."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .lobby_helpers import new_lobby

if TYPE_CHECKING:
    from core.lobby import Lobby


@pytest.fixture
def lobby() -> Lobby:
    return new_lobby()
