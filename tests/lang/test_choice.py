"""The terminal client's language: ``--lang``, else the environment as gettext reads it,
else English."""

from __future__ import annotations

import pytest

import lang
from lang import choose, supported


@pytest.mark.parametrize(
    ("tag", "language"),
    [("de", "de"), ("de_DE.UTF-8", "de"), ("nl-BE", "nl"), ("it_IT@euro", "it"), ("EN", "en")],
)
def test_a_locale_name_or_tag_means_its_language(tag, language):
    assert supported(tag) == language


@pytest.mark.parametrize("tag", ["fr_FR.UTF-8", "C", "C.UTF-8", "POSIX", "", "deu", "qps"])
def test_a_language_without_catalogue_is_not_supported(tag):
    assert supported(tag) is None


def test_the_flag_comes_first():
    assert choose("nl", {"LC_ALL": "de_DE.UTF-8", "LANG": "it_IT"}) == "nl"
    assert choose("it_IT.UTF-8", {}) == "it"
    assert choose("qps", {}) == "qps"  # the pseudo-language, for tests, by the flag only


def test_a_flag_without_catalogue_says_which_there_are():
    with pytest.raises(ValueError, match="choose one of en, de, nl, it"):
        choose("fr", {"LANG": "de_DE"})


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "de_DE.UTF-8"}, "de"),
        ({"LC_MESSAGES": "nl_NL.UTF-8", "LANG": "de_DE.UTF-8"}, "nl"),
        ({"LC_ALL": "it_IT.UTF-8", "LC_MESSAGES": "nl_NL", "LANG": "de_DE"}, "it"),
        ({"LANGUAGE": "fr:nl:de", "LC_ALL": "it_IT.UTF-8"}, "nl"),
        ({"LANGUAGE": "", "LANG": "it_IT"}, "it"),  # set but empty: passed over, as gettext does
        # The variable that decides names no catalogue: English, not a later variable's.
        ({"LC_ALL": "fr_FR.UTF-8", "LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "qps"}, "en"),
        ({}, "en"),
    ],
)
def test_else_the_environment_as_gettext_reads_it(environ, language):
    assert choose(None, environ) == language


def test_without_environ_it_reads_the_process_environment(monkeypatch):
    for variable in lang.choice.ENVIRONMENT:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "nl_NL.UTF-8")
    assert choose() == "nl"


def test_use_speaks_a_language_until_told_otherwise():
    assert lang.language() == "en"
    with lang.using("de"):
        assert lang.language() == "de"
        assert lang.t("word.bouquet") == "Strauß"
        with lang.using("it"):
            assert lang.t("word.bouquet") == "bouquet"
        assert lang.t("word.front_card") == "Vorderkarte"
    assert lang.t("word.bouquet") == "bouquet"
    with pytest.raises(ValueError, match="no catalogue"):
        lang.use("fr")
    assert lang.language() == "en"
