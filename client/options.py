"""What the command line asks of the app: where to connect, as whom, and what to do first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from protocol import BotRequest, Rules

__all__ = ["DEFAULT_SERVER", "RACE_RULES", "Options"]

DEFAULT_SERVER = "ws://127.0.0.1:8765/ws"
RACE_RULES = Rules(deal="mirror", winnable_only=True)
"""The rules quick match and rooms start from: the same layout for both, one that can be
cleared, so that speed alone decides. The command line's rules flags choose others."""


@dataclass(frozen=True, slots=True)
class Options:
    server: str = DEFAULT_SERVER
    name: str | None = None
    action: Literal["seek", "create_room", "join_room"] | None = None
    """Start straight into quick match, a new room, or the room ``room``."""
    room: str = ""
    rules: Rules = RACE_RULES
    bot: BotRequest | None = None
    """With ``seek``: the bot to race if nobody comes in ``after_s`` (0: at once). Also what
    the lobby's forms offer first (``--bot``, ``--bot-after``)."""
    public: bool = False
    ascii: bool = False
    practice: bool = False
    seed: int | None = None
