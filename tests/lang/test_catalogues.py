"""Every catalogue is complete: each key in each language, with the same placeholders.

A language's ``.po`` files must hold every key English has, in the same domain, with
the same ``{placeholders}`` and as many plural forms as its ``Plural-Forms`` says; no
text may be empty, fuzzy, or English left standing (save the few words that are the
same, in :data:`SAME_AS_ENGLISH`). Every error code of the protocol has its words in
``common``, and every key the clients ask for by name exists.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest
from babel import Locale
from babel.messages.plurals import get_plural

import lang
from lang.catalogues import (
    BROWSER,
    DOMAINS,
    ENGLISH,
    LANGUAGES,
    TERMINAL,
    messages,
    placeholders,
    po_path,
    read,
)
from protocol import ERROR_CODES, BoardStatus, GameOver, Unrated

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = [language for language in LANGUAGES if language != ENGLISH]

SAME_AS_ENGLISH = {
    "nl": {"bed", "race", "tiebreak"},
    "it": {"bouquet"},
}
"""Words a language says as English does: Dutch has its bed and race, Italian its bouquet."""


def keys(language: str, domain: str) -> dict[str, lang.catalogues.Message]:
    return {message.key: message for message in messages(language, (domain,))}


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_catalogue_exists_and_reads_as_gettext(language, domain):
    catalog = read(language, domain)  # abort_invalid: a syntax error raises here
    assert str(catalog.locale) == language
    nplurals, expression = get_plural(language)
    # The plural forms Babel knows for the language, so gettext and CLDR agree.
    assert catalog.plural_forms == f"nplurals={nplurals}; plural={expression};", po_path(
        language, domain
    )


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", TRANSLATED)
def test_every_key_is_in_every_language_with_the_same_placeholders(language, domain):
    english, translated = keys(ENGLISH, domain), keys(language, domain)
    assert sorted(translated) == sorted(english), po_path(language, domain)
    for key, message in english.items():
        theirs = translated[key]
        assert theirs.plural == message.plural, key
        wanted = set().union(*map(placeholders, message.forms))
        for form in theirs.forms:
            assert placeholders(form) <= wanted, (language, key, form)
        # A plural form may leave the count out ("one card"); every other text keeps all.
        found = set().union(*map(placeholders, theirs.forms))
        assert found == wanted, (language, key)


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_no_text_is_empty_and_none_is_english_left_standing(language, domain):
    english = keys(ENGLISH, domain)
    nplurals, _ = get_plural(language)
    for key, message in keys(language, domain).items():
        assert all(message.forms), f"{language} {key}: empty or fuzzy"
        if message.plural:
            assert len(message.forms) == nplurals, (language, key)
        if language == ENGLISH:
            continue
        for form in message.forms:
            if form in english[key].forms:
                assert form in SAME_AS_ENGLISH.get(language, set()), (
                    f"{language} {key}: {form!r} is the English"
                )


def test_no_key_is_in_two_domains():
    seen: dict[str, str] = {}
    for domain in DOMAINS:
        for key in keys(ENGLISH, domain):
            assert key not in seen, f"{key} is in {seen.get(key)} and {domain}"
            seen[key] = domain


def test_every_error_code_has_words_in_common():
    # Clients translate an error by its code, never by the English of its message.
    common = keys(ENGLISH, "common")
    assert len(ERROR_CODES) > 15
    assert [code for code in ERROR_CODES if f"error.{code}" not in common] == []


def test_every_status_reason_and_unrated_reason_has_words_in_common():
    common = keys(ENGLISH, "common")
    reasons = get_args(GameOver.model_fields["reason"].annotation)
    assert "first_to_count" in reasons
    wanted = [
        *(f"status.{status}" for status in get_args(BoardStatus)),
        *(f"reason.{reason}" for reason in reasons),
        *(f"unrated.{reason}" for reason in get_args(Unrated)),
    ]
    assert [key for key in wanted if key not in common] == []


def test_gettext_and_cldr_choose_the_same_form_for_every_count():
    # Python picks a plural form by the .po's Plural-Forms, the page by CLDR's
    # categories (Intl.PluralRules): for whole counts they must agree.
    for language in LANGUAGES:
        catalogue = lang.catalogue(language)
        rule = Locale.parse(language).plural_form
        for key in ("margin.cards_ahead", "word.cards"):
            by_category: dict[str, str] = {}
            for count in [*range(250), 1000, 10**6, 2 * 10**6]:
                with lang.using(language):
                    text = catalogue.text(key, count=count).replace(lang.number(count), "#")
                assert by_category.setdefault(rule(count), text) == text, (language, count)


CALLS = {
    "py": re.compile(r"""\bt\(\s*["']([a-z][\w.]*)["']"""),
    "js": re.compile(r"""\bt\(\s*["'`]([a-z][\w.]*)["'`]"""),
}
CLIENTS = {
    "terminal": (TERMINAL, "client/**/*.py"),
    "browser": (BROWSER, "web/static/js/*.js"),
}


def keys_in_code(pattern: str) -> dict[str, set[str]]:
    """Every literal key a client's files pass to ``t``, with the files that ask."""
    found: dict[str, set[str]] = {}
    for path in ROOT.glob(pattern):
        for key in CALLS[path.suffix[1:]].findall(path.read_text(encoding="utf-8")):
            found.setdefault(key, set()).add(str(path.relative_to(ROOT)))
    return found


@pytest.mark.parametrize("client", CLIENTS)
def test_every_key_a_client_asks_for_is_in_its_domains(client):
    # A key written out in the code: one built at run time (error.{code}) is held
    # complete by its own test above instead.
    domains, pattern = CLIENTS[client]
    known = {message.key for message in messages(ENGLISH, domains)}
    asked = keys_in_code(pattern)
    assert asked, f"no t(...) found in {pattern}: has the pattern drifted from the code?"
    missing = {key: sorted(paths) for key, paths in asked.items() if key not in known}
    assert missing == {}, f"add these keys to lang/locales/en ({'/'.join(domains)})"
