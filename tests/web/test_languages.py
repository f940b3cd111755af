"""The page in the players' languages (issue 28): every view drawn in the pseudo-language
shows no English left, every view fits 360 px and 1280 px in each language with no
text cut off, the switch in the header is remembered, and How to play is reached from
the lobby and from the ? key.

The pseudo-language (``qps``) writes each catalogue text accented, its vowels doubled,
in brackets: a run of three plain ASCII letters on screen is English that skipped the
catalogue (the few letters it leaves plain, ``f j m p q v x``, never make three in a
row). Names, the brand and the languages' own names are set aside first.

Screenshots go to ``$FLOWERGARDEN_SCREENSHOTS`` or the test's temporary directory,
never into the repository.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from lang import LANGUAGES

from .helpers import OWN, RESULT, expect, fresh_name
from .test_fair_play import TOKEN, admin
from .wire import wire_player

ENGLISH_LEFT = re.compile(r"[A-Za-z]{3,}")
KEPT = ["Flower Garden", "English", "Deutsch", "Nederlands", "Italiano", "BOT-"]
"""Words that are the same in every language: the brand, each language's own name."""
INTL = re.compile(r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|AM|PM)\b")
"""What Intl writes for the pseudo-language's locale (English): months, the time of day."""

_WORDS = """() => {
  const seen = [];
  const visible = (el) => el.checkVisibility({ visibilityProperty: true });
  for (const el of document.querySelectorAll("body *")) {
    if (!visible(el) || ["SCRIPT", "STYLE", "NOSCRIPT", "OPTION"].includes(el.tagName)) continue;
    for (const node of el.childNodes) {
      if (node.nodeType === 3 && node.textContent.trim()) seen.push(node.textContent);
    }
    for (const name of ["aria-label", "aria-description", "title", "placeholder"]) {
      if (el.hasAttribute(name)) seen.push(el.getAttribute(name));
    }
  }
  for (const option of document.querySelectorAll("select:not(#language) option")) {
    if (visible(option.parentElement)) seen.push(option.textContent);
  }
  seen.push(document.title);
  return seen;
}"""


def english_left(page: Any, names: list[str]) -> list[str]:
    """Every text on screen (and in its labels) with a run of English in it."""
    left = []
    for text in page.evaluate(_WORDS):
        rest = text
        for kept in sorted([*KEPT, *names], key=len, reverse=True):
            rest = rest.replace(kept, " ")
        rest = INTL.sub(" ", rest)
        if ENGLISH_LEFT.search(rest):
            left.append(text)
    return left


def speaking(new_page: Any, url: str, language: str, width: int = 1280) -> Any:
    """A page whose player chose ``language`` before (the remembered switch)."""
    page = new_page(width=width, height=900)
    page.add_init_script(f"localStorage.setItem('flowergarden.language', '{language}')")
    page.goto(url)
    # The page's module sets window.flowergarden last, once its catalogue is read and
    # its first view drawn: a check before that reads the English of index.html.
    page.wait_for_function("() => window.flowergarden !== undefined")
    return page


def shots_dir(tmp_path: Path) -> Path:
    where = Path(os.environ.get("FLOWERGARDEN_SCREENSHOTS", tmp_path))
    where.mkdir(parents=True, exist_ok=True)
    return where


def enter(page: Any) -> str:
    """Sign in in any language (by the fields' ids); back once online."""
    name = fresh_name()
    page.locator("#name").fill(name)
    page.locator("#signin-go").click()
    expect(page.locator("#link")).to_have_attribute("data-link", "online")
    return name


def race_a_bot_and_resign(page: Any) -> None:
    page.locator("#race-bot").click()
    expect(page.locator(OWN)).to_be_visible()
    page.locator("#resign").click()
    page.locator("#confirm-yes").click()
    expect(page.locator(RESULT)).to_be_visible()
    expect(page.locator("[data-deal]")).not_to_have_attribute("data-deal", "checking")


def lobby_views(web: Any, page: Any, names: list[str], check: Any) -> None:
    """The lobby with its lists full, seeking, a room, an arena listed and joined."""
    with wire_player(web.url) as host, wire_player(web.url) as seeker:
        names += [host.name, seeker.name]
        host.send(type="create_room", public=True)
        names.append(host.recv("room")["code"])
        seeker.send(type="seek", rules={"deal": "independent"})
        seeker.recv("seeking")
        expect(page.locator("#lobby-lists li")).to_have_count(2)
        page.locator("#rules-box summary").click()
        page.locator("#bot-after").select_option(index=1)
        check("lobby")
        page.locator("#quick-match").click()
        expect(page.locator("#bot-wait")).to_be_visible()
        check("lobby, seeking")
        page.locator("#cancel-seek").click()
        page.locator("#create-room").click()
        names.append(page.locator("[data-room-code]").inner_text())
        check("lobby, a room")
        page.locator("#close-room").click()
    made = admin(web, "arenas", name="Evening", minutes=30, rules={"deal": "mirror"})
    names.append("Evening")
    expect(page.locator(f"[data-arena='{made['arena_id']}'] button")).to_be_visible()
    check("lobby, an arena listed")
    page.locator(f"[data-arena='{made['arena_id']}'] button").click()
    expect(page.locator("#arena .standings li")).to_have_count(1)
    check("lobby, an arena joined")
    page.locator("#arena-pause").click()


def test_no_english_is_left_in_the_pseudo_language(start_web, new_page) -> None:
    web = start_web(admin_token=TOKEN)
    page = speaking(new_page, web.base, "qps")
    names = ["BOT-Hare", "BOT-Snail", "BOT-Tortoise", "BOT-Falcon", "BOT-Swift"]
    problems: dict[str, list[str]] = {}

    def check(view: str) -> None:
        found = english_left(page, names)
        if found:
            problems[view] = found

    check("signin")
    name = enter(page)
    names.append(name)
    lobby_views(web, page, names, check)
    race_a_bot_and_resign(page)
    page.keyboard.press("x")  # a key after the race: a notice
    check("race result")
    page.locator("#nav-profile").click()
    expect(page.locator("#history li")).to_have_count(1)
    check("profile")
    page.locator("#history li a[href^='#race=']").click()
    expect(page.locator("#replay-boards")).to_be_visible()
    page.locator("#replay-forward").click()
    check("replay")
    page.locator("#nav-leaderboard").click()
    expect(page.locator("#page-title")).to_be_visible()
    check("leaderboard")
    page.keyboard.press("?")
    expect(page.locator(".howto").first).to_be_visible()
    check("how to play")
    admin(web, f"players/{name}/ban", reason="a test")
    expect(page.locator("#banned")).to_be_visible()
    check("banned")
    assert problems == {}


def overflows(page: Any) -> list[str]:
    """Text cut off or pushed out: an element wider inside than its box (a scroller
    aside), or a page wider than the window."""
    return page.evaluate(
        """() => {
          const found = [];
          if (document.documentElement.scrollWidth > window.innerWidth) {
            found.push(`page ${document.documentElement.scrollWidth} > ${window.innerWidth}`);
          }
          for (const el of document.querySelectorAll("main *, header *")) {
            if (!el.checkVisibility() || el.closest(".scroll-x, select, input")) continue;
            const style = getComputedStyle(el);
            if (["auto", "scroll"].includes(style.overflowX)) continue;
            if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0) {
              const what = `${el.tagName}#${el.id}.${el.className}`;
              const text = el.textContent.trim().slice(0, 40);
              found.push(`${what}: ${el.scrollWidth} > ${el.clientWidth} (${text})`);
            }
          }
          // A select shows its options on one line: each must fit its box beside the arrow.
          const probe = document.createElement("span");
          const hidden = { position: "absolute", visibility: "hidden", whiteSpace: "pre" };
          Object.assign(probe.style, hidden);
          document.body.append(probe);
          for (const select of document.querySelectorAll("main select, header select")) {
            if (!select.checkVisibility()) continue;
            const style = getComputedStyle(select);
            probe.style.font = style.font;
            const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
            const room = select.clientWidth - padding - 16; // the arrow
            for (const option of select.options) {
              probe.textContent = option.textContent;
              const text = option.textContent;
              if (probe.offsetWidth > room) found.push(`select#${select.id}: ${text}`);
            }
          }
          probe.remove();
          return found;
        }"""
    )


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("language", LANGUAGES)
def test_no_text_is_cut_off(start_web, new_page, tmp_path, language, width) -> None:
    web = start_web(admin_token=TOKEN)
    made = admin(web, "arenas", name="Evening", minutes=30, rules={"deal": "mirror"})
    shots = shots_dir(tmp_path)
    page = speaking(new_page, web.base, language, width)
    problems: dict[str, list[str]] = {}

    def look(view: str) -> None:
        page.screenshot(path=shots / f"{language}-{width}-{view}.png", full_page=True)
        found = overflows(page)
        if found:
            problems[view] = found

    look("signin")
    enter(page)
    page.locator("#rules-box summary").click()
    page.locator(f"[data-arena='{made['arena_id']}'] button").click()
    expect(page.locator("#arena .standings li")).to_have_count(1)
    look("lobby")
    page.locator("#arena-pause").click()  # an arena's player races nothing else
    race_a_bot_and_resign(page)
    look("result")
    page.locator("#nav-howto").click()
    expect(page.locator(".howto").first).to_be_visible()
    look("howto")
    page.locator("#nav-profile").click()
    expect(page.locator("#history li")).to_have_count(1)
    look("profile")
    assert problems == {}


def test_the_switch_speaks_at_once_and_is_remembered(web, new_page) -> None:
    page = new_page(web.base, locale="de-DE")
    expect(page.locator("#signin-title")).to_have_text("Ein Flower-Garden-Rennen gegen Freunde")
    sign_in_page = page.locator("#signin-go")
    expect(sign_in_page).to_have_text("Los geht's")
    page.get_by_label("Sprache").select_option("it")  # the header's switch
    expect(page.locator("#signin-title")).to_have_text("Sfida un amico a Flower Garden")
    expect(page.locator("html")).to_have_attribute("lang", "it")
    page.reload()
    expect(page.locator("#signin-go")).to_have_text("Gioca")
    expect(page.get_by_label("Lingua")).to_have_value("it")


def test_how_to_play_from_the_lobby_and_the_question_mark(web, new_page) -> None:
    page = new_page(web.base, locale="nl-NL")
    enter(page)
    page.locator("#lobby-howto").click()
    expect(page.get_by_role("heading", name="Zo speel je", exact=True)).to_be_visible()
    expect(page.locator(".howto h3")).to_have_count(5)
    expect(page.locator("main")).to_contain_text("boeket")
    page.locator("#howto-back").click()
    expect(page.locator("#quick-match")).to_be_visible()
    page.keyboard.press("?")
    expect(page.get_by_role("heading", name="Zo speel je", exact=True)).to_be_visible()
    assert page.evaluate("location.hash") == "#howto"


def test_a_race_speaks_the_language_numbers_too(web, new_page) -> None:
    page = new_page(web.base, locale="de-DE")
    name = sign_in_de(page)
    page.locator("#bot-level").select_option("5")
    expect(page.locator("#bot-level option:checked")).to_have_text("5 · BOT-Swift · 0,3 Sek./Karte")
    race_a_bot_and_resign(page)
    expect(page.locator("#result-headline")).to_have_text("Du hast verloren")
    expect(page.locator(".race-bar .vs")).to_have_text(f"{name} gegen BOT-Swift · Bot")
    expect(page.locator(f"{OWN} .board-title")).to_contain_text(f"{name} (du)")


def sign_in_de(page: Any) -> str:
    name = fresh_name()
    page.get_by_role("textbox", name="Dein Name").fill(name)
    page.get_by_role("button", name="Los geht's").click()
    expect(page.locator("#link")).to_have_attribute("data-link", "online")
    return name
