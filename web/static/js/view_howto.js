// How to play, every section on one page, and the page's language switch: the example
// of a view whose every word comes from the catalogues (docs/translating.md). The
// texts and their order are lang's (HOWTO in languages.js, the common catalogue), the
// same the terminal client pages through; the view only lays them out.

import { h } from "./dom.js";
import { HOWTO } from "./languages.js";
import { LANGUAGES, language, switchLanguage, t } from "./i18n.js";

/** How to play: a heading, then each section's title and paragraphs. */
export function howToView() {
  return h("section", { class: "howto", "aria-labelledby": "howto-title" },
    h("h2", { id: "howto-title" }, t("howto.title")),
    HOWTO.map((section) => [
      h("h3", {}, t(section.title)),
      section.texts.map((key) => h("p", {}, t(key))),
    ]));
}

/**
 * The language switch: each language named in its own words; choosing one speaks it
 * and remembers it (switchLanguage), and the page draws again on onLanguageChange.
 */
export function languageSwitch() {
  const current = language();
  const select = h("select", { id: "language", onchange: (event) => switchLanguage(event.target.value) },
    LANGUAGES.map(({ code, name }) => h("option", { value: code, lang: code, selected: code === current }, name)));
  return h("label", { class: "language-switch" }, `${t("language.label")} `, select);
}

/** The #howto page: How to play, and the way back to the game. */
export const howToPage = () => [
  howToView(),
  h("p", {}, h("a", { href: "#", id: "howto-back" }, t("page.back_to_play"))),
];
