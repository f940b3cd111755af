"""The server's bots as the client offers them: five levels, each a name and a pace.

The names and paces are the server's own (:data:`core.bots.BOT_NAMES`,
:data:`core.bot_policy.PACES`), so that what the client offers is what comes
to race. A seek asks for one with ``bot``: ``{"after_s": N, "level": L}``
(PROTOCOL.md, "Bots"); the server answers ``seeking`` without it, so the client
keeps what it asked for (:class:`~client.race_view.Waiting`) to count down.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.bot_policy import PACES
from core.bots import BOT_NAMES
from lang import t

from .timing import clock_text, seconds_text

if TYPE_CHECKING:
    from .race_view import Waiting

__all__ = [
    "BOT_AFTER",
    "DEFAULT_LEVEL",
    "LEVELS",
    "BotLevel",
    "bot_name",
    "bot_wait_words",
]


@dataclass(frozen=True, slots=True)
class BotLevel:
    level: int
    name: str
    seconds: float
    """About this many seconds a card, on winnable deals."""

    @property
    def words(self) -> str:
        """``3  BOT-Hare  about 0.8 s a card``."""
        return f"{self.level}  {self.name:<12}  {self.pace}"

    @property
    def pace(self) -> str:
        """``about 0.8 s a card``."""
        return t("tui.bot.pace", time=seconds_text(round(self.seconds * 1000)))


LEVELS = tuple(BotLevel(level, BOT_NAMES[level], PACES[level].seconds) for level in sorted(PACES))
DEFAULT_LEVEL = 3
"""The level offered first: BOT-Hare, about 0.8 s a card."""
BOT_AFTER = (10, 30, 60)
"""The quick-match form's waits before a bot takes the seat (besides none)."""


def bot_name(level: int) -> str:
    """``BOT-Hare`` for level 3."""
    return BOT_NAMES.get(level, t("tui.bot.level", level=str(level)))


def bot_wait_words(waiting: Waiting, now: float) -> str:
    """``a bot (BOT-Hare) takes the seat in 23 s``, on the app's clock; "" without a bot."""
    if waiting.bot is None or waiting.bot_at is None:
        return ""
    name = bot_name(waiting.bot.level)
    left = waiting.bot_at - now
    if left <= 0:
        return t("tui.bot.now", name=name)
    whole = int(left + 0.999)  # rounded up, as the clocks are: 0.2 s left is "1 s"
    when = t("tui.time.seconds", seconds=whole) if whole < 60 else clock_text(left)
    return t("tui.bot.in", name=name, when=when)
