"""Who the server's bots are: one player per level, with a fixed id and name.

A bot is a player the server runs itself (PROTOCOL.md, "Bots"): its seat's
moves are made by the race core from :class:`~core.bot_policy.BotPolicy`.
Each level is one player, kept in the store like anyone (so it has a profile
and a history), whose id says its level: ``bot1`` to ``bot5``. Human ids are
``p`` and hex, and human names may not start with ``BOT-``, so neither can be
taken for a bot's. A bot may sit in any number of races at once; the lobby
never holds it as one of its players. The ghost of a daily race
(:mod:`core.ghost`) is one more such player, :data:`~core.ghost.GHOST_ID`: a
bot with no level, whose policy is the line its race carries.
"""

from __future__ import annotations

import random

from .bot_policy import LEVELS, BotPolicy
from .ghost import GHOST_ID
from .identity import BOT_NAME

__all__ = ["BOT_NAMES", "BOT_PREFIX", "NAME_PREFIX", "bot_id", "bot_of", "is_bot", "level_of"]

BOT_PREFIX = "bot"
NAME_PREFIX = BOT_NAME
"""What every bot's name starts with; no human name may (``core/identity.py``)."""
BOT_NAMES = {1: "BOT-Snail", 2: "BOT-Tortoise", 3: "BOT-Hare", 4: "BOT-Falcon", 5: "BOT-Swift"}
"""Each level's bot, slowest first."""
assert set(BOT_NAMES) == set(LEVELS)


def bot_id(level: int) -> str:
    return f"{BOT_PREFIX}{level}"


def level_of(player_id: str) -> int:
    """The level of the bot with this id; ``ValueError`` for a player who is not one."""
    if not _has_level(player_id):
        raise ValueError(f"{player_id!r} is not a bot of a level")
    return int(player_id[len(BOT_PREFIX) :])


def is_bot(player_id: str) -> bool:
    """Whether the server plays this player: a bot of a level, or the ghost."""
    return _has_level(player_id) or player_id == GHOST_ID


def _has_level(player_id: str) -> bool:
    return player_id.startswith(BOT_PREFIX) and player_id[len(BOT_PREFIX) :].isdigit()


def bot_of(player_id: str, rng: random.Random | None) -> BotPolicy | None:
    """The policy for a seat, if a bot of a level sits in it; ``rng`` is seeded per bot
    from it. None for anyone else, the ghost included (its line is its race's)."""
    if not _has_level(player_id):
        return None
    seeded = random.Random((rng or random.SystemRandom()).getrandbits(64))
    return BotPolicy(level_of(player_id), seeded)
