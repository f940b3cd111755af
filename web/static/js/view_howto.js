// How to play: the rules in the player's language, from the common domain's howto.*
// texts, in the sections both clients show (languages.js's HOWTO, lang/howto.py's).
// Reached from the header's link, from the lobby, and from the ? key.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { HOWTO } from "./languages.js";

export function howtoView() {
  return [
    h("h2", { id: "page-title", tabindex: "-1" }, t("howto.title")),
    HOWTO.map((section) => h("section", { class: "howto" },
      h("h3", {}, t(section.title)),
      section.texts.map((key) => h("p", {}, t(key))))),
    h("p", {}, h("a", { href: "#", id: "howto-back" }, t("page.back_to_play"))),
  ];
}
