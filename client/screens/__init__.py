"""The screens: the lobby, the race, the modal ones (help, confirm, forms), a
player's standing (banned, a rated race refused, a report), and those of the
HTTP API: the leaderboard, profiles, race histories and replays."""

from __future__ import annotations

from .base import StateScreen
from .browse import BrowseScreen, HistoryScreen, LeaderboardScreen, ProfileScreen
from .forms import BotScreen, RulesChoice, RulesScreen
from .lobby_screen import LobbyScreen
from .modals import ConfirmScreen, HelpScreen, JoinScreen, NameScreen
from .race_screen import RaceScreen
from .replay_screen import ReplayScreen
from .standing import BannedScreen, RatedRefusedScreen, ReportScreen

__all__ = [
    "BannedScreen",
    "BotScreen",
    "BrowseScreen",
    "ConfirmScreen",
    "HelpScreen",
    "HistoryScreen",
    "JoinScreen",
    "LeaderboardScreen",
    "LobbyScreen",
    "NameScreen",
    "ProfileScreen",
    "RaceScreen",
    "RatedRefusedScreen",
    "ReplayScreen",
    "ReportScreen",
    "RulesChoice",
    "RulesScreen",
    "StateScreen",
]
