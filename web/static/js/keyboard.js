// The race's keys, as in the terminal client: 1-6 a bed's front card, a-p a bouquet card,
// r redeal (after the race: rematch), x resign, / the card prompt, Escape back to the
// lobby once the race is over. Keys typed into a field or a dialog are the field's.

import { BED_KEYS, BOUQUET_KEYS } from "./keys.js";

/** Handle one keydown on the race screen; ``act`` holds the race's actions. */
export function raceKey(event, race, act) {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return false;
  const target = event.target;
  if (target instanceof Element && target.closest("input, select, textarea, dialog")) {
    if (event.key === "Escape" && target.id === "card-input") {
      target.blur();
      return true;
    }
    return false;
  }
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (BED_KEYS.includes(key) || BOUQUET_KEYS.includes(key)) {
    act.key(key);
  } else if (key === "r" && (race.over || race.rules.redeals)) {
    if (race.over) act.rematch();
    else act.redeal(); // a race without a redeal has no r key, and says nothing of one
  } else if (key === "x") {
    act.resign();
  } else if (key === "/") {
    act.prompt();
  } else if (key === "Escape") {
    act.back();
  } else {
    return false;
  }
  return true;
}
