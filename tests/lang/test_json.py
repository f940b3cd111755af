"""The page's catalogues are what lang/ says: committed, current, and complete.

``python -m web.catalogues`` writes web/static/i18n/*.json and web/static/js/languages.js
from the .po files; these tests fail when a committed file is stale, as
tests/web/test_facts.py does for facts.js. The browser tests (tests/web/test_i18n.py)
hold web/static/js/i18n.js to the same texts.
"""

from __future__ import annotations

import json

import web.catalogues
from lang import BROWSER, ENGLISH, LANGUAGES, PSEUDO
from lang.catalogues import messages


def test_the_committed_catalogues_are_current():
    for path, text in web.catalogues.generate().items():
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run `make catalogues`"
    assert web.catalogues.main(["--check"]) == 0


def test_the_check_finds_a_stale_file_and_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(web.catalogues, "I18N", tmp_path / "i18n")
    monkeypatch.setattr(web.catalogues, "LANGUAGES_JS", tmp_path / "languages.js")
    assert web.catalogues.main(["--check"]) == 1
    assert "make catalogues" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    assert web.catalogues.main([]) == 0
    assert sorted(p.name for p in (tmp_path / "i18n").iterdir()) == sorted(
        f"{code}.json" for code in (*LANGUAGES, PSEUDO)
    )
    assert web.catalogues.main(["--check"]) == 0


def test_each_json_holds_every_browser_key_its_plurals_by_cldr_category():
    english = {m.key: m for m in messages(ENGLISH, BROWSER)}
    for language in (*LANGUAGES, PSEUDO):
        document = json.loads((web.catalogues.I18N / f"{language}.json").read_text())
        assert document["language"] == language
        assert document["locale"] == (ENGLISH if language == PSEUDO else language)
        assert sorted(document["messages"]) == sorted(english)
        for key, text in document["messages"].items():
            if english[key].plural:
                assert "other" in text and "one" in text, (language, key)
            else:
                assert isinstance(text, str) and text, (language, key)
    italian = json.loads((web.catalogues.I18N / "it.json").read_text())["messages"]
    assert italian["margin.cards_ahead"]["many"] == "{count} carte di vantaggio"


def test_the_page_offers_each_language_in_its_own_words():
    text = web.catalogues.LANGUAGES_JS.read_text()
    names = {"en": "English", "de": "Deutsch", "nl": "Nederlands", "it": "Italiano"}
    for code, name in names.items():
        assert f'{{"code": "{code}", "name": "{name}"}}' in text
