// One key per playable card, as the terminal client has them (client/keys.py): beds take
// the digits 1-6 (the bed's front card), bouquet cards the letters a-p, and a card keeps
// its letter until it is played, so that a racer's fingers learn where a card is.

import { t } from "./i18n.js";

export const BED_KEYS = ["1", "2", "3", "4", "5", "6"];
export const BOUQUET_KEYS = [..."abcdefghijklmnop"];

/** Labels for ``bouquet``: each card keeps its old letter; new cards take the first free ones. */
export function assignLabels(previous, bouquet) {
  const labels = new Map();
  for (const card of bouquet) if (previous.has(card)) labels.set(card, previous.get(card));
  const taken = new Set(labels.values());
  const free = BOUQUET_KEYS.filter((key) => !taken.has(key));
  for (const card of bouquet) if (!labels.has(card)) labels.set(card, free.shift());
  return labels;
}

/** The key that plays ``code`` on ``board`` now, if any: a bed's digit or a bouquet letter. */
export function keyOf(code, board, labels) {
  const bed = board.beds.findIndex((cards) => cards.at(-1) === code);
  if (bed >= 0) return BED_KEYS[bed];
  return board.bouquet.includes(code) ? labels.get(code) ?? null : null;
}

/** What ``key`` plays: {card}, {refusal} in words, or null for a key that names no card. */
export function resolveKey(key, board, labels) {
  let card;
  if (BED_KEYS.includes(key)) {
    const bed = board.beds[BED_KEYS.indexOf(key)];
    if (!bed.length) return { refusal: t("play.bed_empty", { bed: key }) };
    card = bed.at(-1);
  } else if (BOUQUET_KEYS.includes(key)) {
    card = [...labels].find(([, label]) => label === key)?.[0];
    if (!card || !board.bouquet.includes(card)) {
      return { refusal: t("play.no_label", { key }) };
    }
  } else {
    return null;
  }
  const refusal = board.whyIllegal(card);
  return refusal ? { refusal } : { card };
}
