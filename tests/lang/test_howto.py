"""How to play fits: each section a page of an 80x24 terminal, in every language.

The clients page the text by section (lang.HOWTO, and HOWTO in the page's
languages.js): a section's title, a blank line, and its paragraphs wrapped at 76
columns with a blank line between them must leave room for the screen's own top and
bottom lines. The pseudo-language, a third longer than English, must fit too, so a
language that runs longer than German still does.
"""

from __future__ import annotations

import textwrap

import pytest

import lang
from lang import HOWTO, LANGUAGES, PSEUDO
from lang.guide import sections

COLUMNS, ROWS = 74, 19  # 80x24, less the border, padding, a blank line and the keys line


@pytest.mark.parametrize("language", [*LANGUAGES, PSEUDO])
def test_each_section_fits_a_terminal_page(language):
    for title, paragraphs in sections(language):
        lines = [title, ""]
        for paragraph in paragraphs:
            lines += [*textwrap.wrap(paragraph, COLUMNS), ""]
        assert len(lines) - 1 <= ROWS, (language, title)
        assert len(title) <= COLUMNS


def test_the_text_names_the_games_own_words_in_each_language():
    words = {
        "en": ("bed", "bouquet", "foundation", "front card"),
        "de": ("Beet", "Strauß", "Fundament", "Vorderkarte"),
        "nl": ("bed", "boeket", "fundering", "voorste kaart"),
        "it": ("aiuola", "bouquet", "base", "carta anteriore"),
    }
    for language, wanted in words.items():
        text = " ".join(" ".join(paragraphs) for _, paragraphs in sections(language))
        for word in wanted:
            assert word in text, (language, word)


def test_the_sections_cover_the_issues_list_in_order():
    keys = [key for section in HOWTO for key in section.texts]
    assert keys == [
        "howto.layout",
        "howto.plays",
        "howto.goal",
        "howto.race",
        "howto.rated",
        "howto.mirror",
        "howto.winnable",
        "howto.redeal",
        "howto.tiebreak",
    ]
    with lang.using("nl"):
        assert lang.howto()[0][0] == "De opstelling"
