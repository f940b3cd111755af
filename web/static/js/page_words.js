// The page's fixed words (index.html) in the player's language, and the header's switch.
// An element of index.html names its text's key in `data-i18n` (its English stays in
// the file, for a page whose script has not run) and its attributes' keys in
// `data-i18n-attr` ("aria-label:page.nav_label;placeholder:race.card_placeholder").
// Everything the views draw asks i18n.js's t() itself.

import { byId } from "./dom.js";
import { t } from "./i18n.js";
import { languageSwitch } from "./view_howto.js";

/** Put every fixed text of ``root`` in the language spoken now. */
export function translateStatic(root = document) {
  for (const element of root.querySelectorAll("[data-i18n]")) {
    const text = t(element.dataset.i18n);
    if (element.textContent !== text) element.textContent = text;
  }
  for (const element of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of element.dataset.i18nAttr.split(";")) {
      const [name, key] = pair.split(":");
      element.setAttribute(name.trim(), t(key.trim()));
    }
  }
}

/** The header's switch (view_howto.js's), drawn again in each language. */
export function drawLanguageSwitch() {
  byId("language-switch").replaceChildren(languageSwitch());
}
