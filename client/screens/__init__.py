"""The screens: the lobby, the race, and the small modal ones (help, confirm, forms)."""

from __future__ import annotations

from .base import StateScreen
from .lobby import LobbyScreen
from .modals import ConfirmScreen, HelpScreen, JoinScreen, NameScreen, RulesChoice, RulesScreen
from .race import RaceScreen

__all__ = [
    "ConfirmScreen",
    "HelpScreen",
    "JoinScreen",
    "LobbyScreen",
    "NameScreen",
    "RaceScreen",
    "RulesChoice",
    "RulesScreen",
    "StateScreen",
]
