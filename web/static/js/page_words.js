// The page's fixed words (index.html) in the player's language, and the language switch.
// An element of index.html names its text's key in `data-i18n` (its English stays in
// the file, for a page whose script has not run) and its attributes' keys in
// `data-i18n-attr` ("aria-label:page.nav_label;placeholder:race.card_placeholder").
// Everything the views draw asks i18n.js's t() itself.

import { byId } from "./dom.js";
import { language, LANGUAGES, switchLanguage, t } from "./i18n.js";

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

/** The switch: each language in its own words; a choice is remembered (i18n.js). */
export function bindLanguageSwitch() {
  const select = byId("language");
  select.replaceChildren(...LANGUAGES.map(({ code, name }) => {
    const option = document.createElement("option");
    option.value = code;
    option.lang = code;
    option.textContent = name;
    return option;
  }));
  select.value = language();
  select.addEventListener("change", () => {
    switchLanguage(select.value).catch(() => {
      select.value = language(); // the catalogue did not come: the page stays as it was
    });
  });
}

/** The switch shows the language spoken (the pseudo-language, for tests, is not offered). */
export function showLanguage() {
  const select = byId("language");
  if ([...select.options].some((option) => option.value === language())) select.value = language();
}
