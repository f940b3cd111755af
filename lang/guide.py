"""How to play, in sections, the same in both clients.

The texts are in the ``common`` catalogue (``howto.*``), written from the rules as
engine/ implements them; this module fixes their order and grouping once, and
``python -m web.catalogues`` writes the same order into ``web/static/js/languages.js``
for the page. Each section fits a page of an 80x24 terminal in every language, the
pseudo-language too (tests/lang/test_howto.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from .catalogues import TERMINAL, catalogue

__all__ = ["HOWTO", "TITLE", "Section", "sections"]

TITLE = "howto.title"
"""The key of the whole text's title ("How to play")."""


@dataclass(frozen=True, slots=True)
class Section:
    """A titled part of How to play: its title's key and its paragraphs' keys."""

    title: str
    texts: tuple[str, ...]


HOWTO = (
    Section("howto.layout.title", ("howto.layout",)),
    Section("howto.plays.title", ("howto.plays",)),
    Section("howto.goal.title", ("howto.goal",)),
    Section("howto.race.title", ("howto.race", "howto.rated")),
    Section(
        "howto.options.title", ("howto.mirror", "howto.winnable", "howto.redeal", "howto.tiebreak")
    ),
)


def sections(language: str) -> list[tuple[str, list[str]]]:
    """How to play in ``language``: each section's title and paragraphs, in order."""
    words = catalogue(language, TERMINAL)
    return [(words.text(s.title), [words.text(key) for key in s.texts]) for s in HOWTO]
