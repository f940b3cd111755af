"""web/static/js/i18n.js in chromium: the page says what the terminal client says.

The page's catalogues are made from the same .po files (``python -m web.catalogues``);
these tests hold the module's choices to Python's: the same text for every key in
every language (plurals through Intl.PluralRules, numbers through Intl.NumberFormat),
English behind a language key by key, and the language chosen from
``navigator.languages`` unless the player switched, which the page remembers.
"""

from __future__ import annotations

import pytest

import lang
from lang import BROWSER, ENGLISH, LANGUAGES, PSEUDO
from lang.catalogues import messages, placeholders
from lang.guide import sections

from .helpers import expect


def samples() -> list[tuple[str, dict[str, object]]]:
    """Every browser key with parameters for it; each plural at each kind of count."""
    found = []
    for message in messages(ENGLISH, BROWSER):
        params: dict[str, object] = {name: f"<{name}>" for name in placeholders(message.text)}
        counts = (0, 1, 2, 21, 1000, 10**6) if message.plural else (None,)
        for count in counts:
            found.append((message.key, params if count is None else {**params, "count": count}))
    return found


@pytest.mark.parametrize("language", [*LANGUAGES, PSEUDO])
def test_the_page_says_what_python_says_for_every_key(web, new_page, language):
    page = new_page(web.base)
    cases = samples()
    said = page.evaluate(
        """async ([language, cases]) => {
          const i18n = await import("/js/i18n.js");
          await i18n.useLanguage(language);
          return cases.map(([key, params]) => i18n.t(key, params));
        }""",
        [language, cases],
    )
    catalogue = lang.catalogue(language, BROWSER)
    assert said == [catalogue.text(key, **params) for key, params in cases]
    assert len(cases) > 60


def test_numbers_seconds_and_dates_follow_the_language(web, new_page):
    page = new_page(web.base)
    written = page.evaluate(
        """async (languages) => {
          const i18n = await import("/js/i18n.js");
          const out = {};
          for (const code of languages) {
            await i18n.useLanguage(code);
            out[code] = [
              i18n.formatNumber(1234.5),
              i18n.formatSeconds(41.25),
              i18n.formatDate(Date.UTC(2026, 11, 2, 12)),
              document.documentElement.lang,
            ];
          }
          return out;
        }""",
        list(LANGUAGES),
    )
    for language in LANGUAGES:
        with lang.using(language):
            assert written[language][:2] == [lang.number(1234.5), lang.seconds(41.25)], language
        assert written[language][3] == language
    assert written["de"][2] == "02.12.2026"
    assert len({w[2] for w in written.values()}) == 4


def test_english_stands_behind_a_language_key_by_key(web, new_page):
    page = new_page(web.base)
    said = page.evaluate(
        """async () => {
          const i18n = await import("/js/i18n.js");
          const english = await (await fetch("/i18n/en.json")).json();
          const german = await (await fetch("/i18n/de.json")).json();
          delete german.messages["word.front_card"];
          delete german.messages["margin.cards_ahead"];
          i18n.install(german, english);
          return [
            i18n.t("word.front_card"),
            i18n.t("margin.cards_ahead", { count: 2 }),
            i18n.t("word.bed"),
            i18n.t("no.such.key"),
          ];
        }"""
    )
    assert said == ["front card", "2 cards ahead", "Beet", "no.such.key"]


def test_a_missing_parameter_is_the_callers_mistake(web, new_page):
    page = new_page(web.base)
    error = page.evaluate(
        """async () => {
          const i18n = await import("/js/i18n.js");
          await i18n.useLanguage("nl");
          try { i18n.t("reason.cleared"); } catch (e) { return String(e); }
          return "";
        }"""
    )
    assert "reason.cleared needs the parameter winner" in error


def test_the_language_comes_from_the_browsers_list_unless_remembered(web, new_page):
    page = new_page(web.base)
    chosen = page.evaluate(
        """async () => {
          const { chooseLanguage, supported } = await import("/js/i18n.js");
          return [
            chooseLanguage(["fr-FR", "it-CH", "de"], null),
            chooseLanguage(["nl-BE"], null),
            chooseLanguage(["fr", "pt-BR"], null),
            chooseLanguage([], null),
            chooseLanguage(["it"], "de"),
            chooseLanguage(["it"], "fr"),
            chooseLanguage(["it"], "qps"),
            supported("de_AT.UTF-8"),
          ];
        }"""
    )
    assert chosen == ["it", "nl", "en", "en", "de", "it", "qps", "de"]


def test_a_dutch_browser_speaks_dutch_and_a_switch_is_remembered(web, new_page):
    page = new_page(web.base, locale="nl-NL")
    start = """async () => {
      const i18n = await import("/js/i18n.js");
      await i18n.startLanguage();
      return [i18n.language(), i18n.t("word.bouquet"), document.documentElement.lang];
    }"""
    assert page.evaluate(start) == ["nl", "boeket", "nl"]
    heard = page.evaluate(
        """async () => {
          const i18n = await import("/js/i18n.js");
          const heard = [];
          const stop = i18n.onLanguageChange((code) => heard.push([code, i18n.t("word.bed")]));
          await i18n.switchLanguage("it");
          stop();
          await i18n.switchLanguage("de");
          let refused = "";
          try { await i18n.switchLanguage("fr"); } catch (e) { refused = String(e); }
          return [heard, refused, i18n.language()];
        }"""
    )
    assert heard == [[["it", "aiuola"]], "Error: no catalogue for fr", "de"]
    page.reload()
    assert page.evaluate(start) == ["de", "Strauß", "de"]


# -- the example view: How to play and the switch, at a phone's width and a desk's ---------

SHOW_HOWTO = """async (language) => {
  const i18n = await import("/js/i18n.js");
  const { howToView, languageSwitch } = await import("/js/view_howto.js");
  await i18n.useLanguage(language);
  const main = document.createElement("main");
  main.append(languageSwitch(), howToView());
  document.body.replaceChildren(main);
  const cut = [...main.querySelectorAll("*")]
    .filter((el) => el.scrollWidth > el.clientWidth + 1
      || el.getBoundingClientRect().right > innerWidth + 1)
    .map((el) => `${el.tagName}: ${el.textContent.slice(0, 40)}`);
  return { cut, wide: document.documentElement.scrollWidth > innerWidth, text: main.innerText };
}"""


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("language", [*LANGUAGES, PSEUDO])
def test_how_to_play_shows_whole_at_a_phones_width_and_a_desks(
    web, new_page, language, width, tmp_path
):
    page = new_page(web.base, width=width, height=800)
    found = page.evaluate(SHOW_HOWTO, language)
    page.screenshot(path=tmp_path / f"howto-{language}-{width}.png", full_page=True)
    assert found["cut"] == [] and not found["wide"], found["cut"]
    text = " ".join(found["text"].split())
    for title, paragraphs in sections(language):
        assert title in text
        for paragraph in paragraphs:
            assert " ".join(paragraph.split()) in text


def test_the_switch_names_each_language_in_its_own_words_and_speaks_it(web, new_page):
    page = new_page(web.base)
    page.evaluate(SHOW_HOWTO, "en")
    switch = page.get_by_label("Language")
    assert switch.input_value() == "en"
    options = page.locator("#language option").all_text_contents()
    assert options == ["English", "Deutsch", "Nederlands", "Italiano"]
    page.evaluate(
        """async () => {
          const i18n = await import("/js/i18n.js");
          const { howToView, languageSwitch } = await import("/js/view_howto.js");
          i18n.onLanguageChange(() => {
            document.querySelector("main").replaceChildren(languageSwitch(), howToView());
          });
        }"""
    )
    switch.select_option("it")
    expect(page.get_by_role("heading", name="Come si gioca")).to_be_visible()
    assert page.get_by_label("Lingua").input_value() == "it"
    assert page.evaluate("localStorage.getItem('flowergarden.language')") == "it"
