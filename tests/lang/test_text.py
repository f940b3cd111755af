"""A text with its placeholders and plural, English behind each language key by key,
numbers and dates in the language's way, and the pseudo-language."""

from __future__ import annotations

import datetime
import re
import shutil

import pytest

import lang
from lang import catalogues
from lang.catalogues import ENGLISH, LANGUAGES, PSEUDO, Catalogue, messages, pseudo

CARDS_AHEAD = {
    "en": ("1 card ahead", "2 cards ahead", "0 cards ahead", "1,000,000 cards ahead"),
    "de": ("1 Karte Vorsprung", "2 Karten Vorsprung", "0 Karten Vorsprung",
           "1.000.000 Karten Vorsprung"),
    "nl": ("1 kaart voor", "2 kaarten voor", "0 kaarten voor", "1.000.000 kaarten voor"),
    "it": ("1 carta di vantaggio", "2 carte di vantaggio", "0 carte di vantaggio",
           "1.000.000 carte di vantaggio"),
}  # fmt: skip


@pytest.mark.parametrize("language", LANGUAGES)
def test_plurals_in_each_language(language):
    with lang.using(language):
        said = tuple(lang.t("margin.cards_ahead", count=n) for n in (1, 2, 0, 10**6))
    assert said == CARDS_AHEAD[language]


def test_placeholders_are_filled_and_numbers_written_the_languages_way():
    catalogue = lang.catalogue("de")
    assert catalogue.text("reason.first_to_count", winner="ann") == (
        "gleich viele Karten: ann war zuerst so weit"
    )
    assert catalogue.text("name.rule", max=20).startswith("1 bis 20 Buchstaben")
    assert catalogue.text("count.last_card", count=40, time="38,1 s") == (
        "40/52, letzte Karte bei 38,1 s"
    )
    with pytest.raises(KeyError, match="winner"):
        catalogue.text("reason.cleared")
    with pytest.raises(KeyError, match="count"):
        catalogue.text("word.cards")
    with pytest.raises(TypeError, match="count must be an int"):
        catalogue.text("word.cards", count="3")


def test_a_key_no_catalogue_has_comes_back_as_itself():
    assert lang.catalogue("nl").text("no.such.key") == "no.such.key"


@pytest.fixture
def locales(tmp_path, monkeypatch):
    """A copy of lang/locales that a test may break."""
    copy = tmp_path / "locales"
    shutil.copytree(catalogues.LOCALES, copy)
    monkeypatch.setattr(catalogues, "LOCALES", copy)
    return copy


def drop(path, key):
    """Leave ``key`` out of a .po file, as a catalogue that fell behind would."""
    text = path.read_text(encoding="utf-8")
    entry = re.compile(rf'msgid "{re.escape(key)}"\n(msgid_plural .*\n)?(msgstr.*\n)+\n?')
    path.write_text(entry.sub("", text, count=1), encoding="utf-8")


def test_english_stands_behind_a_language_key_by_key(locales):
    drop(catalogues.po_path("it", "common"), "word.front_card")
    drop(catalogues.po_path("it", "common"), "margin.cards_ahead")
    italian = Catalogue("it")
    assert italian.text("word.front_card") == "front card"
    assert italian.text("margin.cards_ahead", count=3) == "3 cards ahead"
    assert italian.text("word.bed") == "aiuola"  # the rest is still Italian


def test_an_empty_or_fuzzy_text_is_said_in_english(locales):
    path = catalogues.po_path("nl", "common")
    text = path.read_text(encoding="utf-8")
    text = text.replace('msgstr "boeket"', 'msgstr ""')
    text = text.replace('msgid "word.front_card"', '#, fuzzy\nmsgid "word.front_card"')
    path.write_text(text, encoding="utf-8")
    dutch = Catalogue("nl")
    assert dutch.text("word.bouquet") == "bouquet"
    assert dutch.text("word.front_card") == "front card"
    assert {m.key: m.text for m in messages("nl", ("common",))}["word.front_card"] == ""


def test_numbers_dates_and_times_are_written_the_languages_way():
    day = datetime.datetime(2026, 12, 2, 16, 5, tzinfo=datetime.UTC)
    written = {}
    for language in LANGUAGES:
        with lang.using(language):
            written[language] = (
                lang.number(1234.5),
                lang.number(41.25, decimals=1),
                lang.seconds(41.25),
                lang.date(day.date()),
                lang.time(day),
            )
    assert written["en"][:3] == ("1,234.5", "41.3", "41.3 sec")
    assert written["de"][:3] == ("1.234,5", "41,3", "41,3 Sek.")
    assert written["nl"][:2] == ("1.234,5", "41,3")
    assert written["it"][:2] == ("1.234,5", "41,3")
    assert written["de"][3:] == ("02.12.2026", "16:05")
    assert written["en"][4] == "4:05\u202fPM"
    assert len({w[3] for w in written.values()}) == 4  # four ways to write a date


def test_the_pseudo_language_is_english_accented_lengthened_and_bracketed():
    assert pseudo("{winner} cleared every card") == "[{winner} çĺééààŕééď éévééŕý çààŕď]"
    english = {m.key: m for m in messages(ENGLISH, lang.TERMINAL)}
    with lang.using(PSEUDO):
        for key, message in english.items():
            params: dict[str, object] = {n: "X" for n in catalogues.placeholders(message.text)}
            said = lang.t(key, **{**params, "count": 3})
            assert said.startswith("[") and said.endswith("]"), key
            left = said.replace("X", "").replace("3", "")
            assert not re.search(r"[A-Za-z]{3,}", left), (key, said)
        assert lang.number(1234.5) == "1,234.5"  # numbers as English writes them
    texts = [m.text for m in english.values() if len(m.text) > 20]
    lengths = [(len(pseudo(text)) - 2) / len(text) for text in texts]
    assert 1.25 < sum(lengths) / len(lengths) < 1.45  # about a third longer, as German runs
