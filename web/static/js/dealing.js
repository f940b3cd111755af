// PROTOCOL.md's verifiable dealing, from a 32-byte seed: the same layouts as the server's
// (engine/dealing.py). Words come from SHA-256 blocks of seed ‖ label ‖ k, k as 4 bytes
// big-endian; below(n) rejects words past the last multiple of n; shuffle is Fisher-Yates
// from the end; deal_out puts card k on bed k mod 6 while k < 36, the rest in the bouquet.

import { DECK } from "./cards.js";
import { sha256, toHex } from "./sha256.js";

const WORD = 2 ** 32;
const BEDS = 6;
const BED_SIZE = 6;
const BOUQUET_SIZE = 52 - BEDS * BED_SIZE;

/** The endless stream of 32-bit words for one label ("deal" or "redeal"). */
export class Words {
  constructor(seed, label) {
    this.prefix = new Uint8Array([...seed, ...new TextEncoder().encode(label), 0, 0, 0, 0]);
    this.block = 0;
    this.words = [];
    this.next = 0;
  }

  async take() {
    if (this.next >= this.words.length) {
      new DataView(this.prefix.buffer).setUint32(this.prefix.length - 4, this.block++);
      const digest = new DataView((await sha256(this.prefix)).buffer);
      this.words = Array.from({ length: 8 }, (_, i) => digest.getUint32(i * 4));
      this.next = 0;
    }
    return this.words[this.next++];
  }
}

/** A uniform index under n (1 to 2**32), by rejection. */
export async function below(words, n) {
  const limit = WORD - (WORD % n);
  let word = await words.take();
  while (word >= limit) word = await words.take();
  return word % n;
}

/** Shuffle ``items`` in place: for i from the end down to 1, swap i and below(i + 1). */
export async function shuffle(items, words) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = await below(words, i + 1);
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** Card k onto bed k mod 6 (as its new front) while k < 36; the rest is the bouquet. */
export function dealOut(cards) {
  const beds = Array.from({ length: BEDS }, () => []);
  const bouquet = [];
  cards.forEach((card, k) => (k < BEDS * BED_SIZE ? beds[k % BEDS].push(card) : bouquet.push(card)));
  return { beds, bouquet };
}

/** The commitment to a seed: the lowercase hex SHA-256 of its bytes. */
export const commit = async (seed) => toHex(await sha256(seed));

/** The uniformly random layout of ``seed``. */
export async function classic(seed) {
  return dealOut(await shuffle([...DECK], new Words(seed, "deal")));
}

/** The layout of ``seed`` that can always be cleared: PROTOCOL.md's three steps. */
export async function winnable(seed) {
  const words = new Words(seed, "deal");
  // (1) A play order: a random interleaving of the four suits, each Ace to King.
  const nextRank = [0, 0, 0, 0];
  const suits = [0, 1, 2, 3];
  const order = [];
  for (let n = 0; n < 52; n++) {
    const suit = suits[await below(words, suits.length)];
    order.push(DECK[suit * 13 + nextRank[suit]]);
    if (++nextRank[suit] === 13) suits.splice(suits.indexOf(suit), 1);
  }
  // (2) Last play first, each card into an open place: the bouquet's share, then each bed's.
  const places = Array.from({ length: 1 + BEDS }, () => []);
  const free = [BOUQUET_SIZE, ...Array(BEDS).fill(BED_SIZE)];
  for (let open = 52; open > 0; open--) {
    let r = await below(words, open);
    let place = 0;
    while (r >= free[place]) r -= free[place++];
    places[place].push(order[open - 1]);
    free[place]--;
  }
  // (3) The bouquet's order is free: shuffle it.
  const [bouquet, ...beds] = places;
  await shuffle(bouquet, words);
  return { beds, bouquet };
}

/** The cards in play (beds 0 to 5 bottom to front, then the bouquet) shuffled and dealt again. */
export async function redeal(seed, cards) {
  return dealOut(await shuffle([...cards], new Words(seed, "redeal")));
}

/** The layout a seat of these rules is dealt from ``seed``. */
export const layoutOf = (seed, winnableOnly) => (winnableOnly ? winnable(seed) : classic(seed));
