// Cards as the wire writes them: two characters, a rank of RANKS ("A23456789TJQK") and
// a suit of SUITS ("SHDC"), the engine's own (facts.js). Names for people: "queen of
// hearts" (spoken, the buttons' names) and "Q♥" (shown).

import { RANKS, SUITS } from "./facts.js";
import { t } from "./i18n.js";

export { RANKS, SUITS };
export const SUIT_SYMBOLS = "♠♥♦♣";
const SUIT_KEYS = ["spades", "hearts", "diamonds", "clubs"];
const RANK_KEYS = [
  "ace", "two", "three", "four", "five", "six", "seven",
  "eight", "nine", "ten", "jack", "queen", "king",
];

/** A suit in words, by its index: "hearts" ("Herz"). */
export const suitWord = (suit) => t(`card.suit.${SUIT_KEYS[suit]}`);
const RANK_SHOWN = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

/** Every card in the deck's own order: AS..KS AH..KH AD..KD AC..KC. */
export const DECK = Object.freeze(
  [...SUITS].flatMap((suit) => [...RANKS].map((rank) => rank + suit)),
);

/** 1 (Ace) to 13 (King). */
export const rankOf = (code) => RANKS.indexOf(code[0]) + 1;

/** 0 spades, 1 hearts, 2 diamonds, 3 clubs. */
export const suitOf = (code) => SUITS.indexOf(code[1]);

export const isCard = (code) =>
  typeof code === "string" && code.length === 2 && rankOf(code) > 0 && suitOf(code) >= 0;

export const isRed = (code) => code[1] === "H" || code[1] === "D";

/** "queen of hearts": what a screen reader says, and each card button's name. */
export const cardName = (code) => t("card.name", { rank: rankWord(rankOf(code)), suit: suitWord(suitOf(code)) });

/** "Q♥", "10♠": what the card shows. */
export const cardShort = (code) => RANK_SHOWN[rankOf(code) - 1] + SUIT_SYMBOLS[suitOf(code)];

/** The card of that suit (index) and rank (1-13). */
export const cardOf = (suit, rank) => RANKS[rank - 1] + SUITS[suit];

/** Rank in words: "queen"; for 1 to 13. */
export const rankWord = (rank) => t(`card.rank.${RANK_KEYS[rank - 1]}`);

/** Rank as shown: "A", "10", "K"; "" for 0 (an empty foundation). */
export const rankShown = (rank) => (rank > 0 ? RANK_SHOWN[rank - 1] : "");

const GLYPHS = { "♠": "S", "♤": "S", "♥": "H", "♡": "H", "♦": "D", "♢": "D", "♣": "C", "♧": "C" };

/** The card a person typed: "qh", "10h", "Th", "q♥", "♥q"; null if none. */
export function parseLenient(text) {
  let cleaned = [...String(text).trim().toUpperCase()]
    .filter((ch) => !/\s/.test(ch))
    .map((ch) => GLYPHS[ch] ?? ch)
    .join("");
  if (cleaned.length > 1 && SUITS.includes(cleaned[0]) && !SUITS.includes(cleaned.slice(1))) {
    cleaned = cleaned.slice(1) + cleaned[0];
  }
  let rank = cleaned.slice(0, -1);
  const suit = cleaned.slice(-1);
  rank = { 10: "T", 1: "A" }[rank] ?? rank;
  const code = rank + suit;
  return isCard(code) ? code : null;
}
