// One player's board and the moves on it, as engine/board.py has them: a play checks
// first and changes nothing when it is refused, and whyIllegal says why in the same
// words as the server (with cards written as they are shown: "Q♥").

import { cardOf, cardShort, rankOf, SUITS, suitOf } from "./cards.js";
import { t } from "./i18n.js";

export class Board {
  constructor({ beds, bouquet, foundations = { S: 0, H: 0, D: 0, C: 0 }, redeals_left = 0 }) {
    this.beds = beds.map((bed) => [...bed]);
    this.bouquet = [...bouquet];
    this.foundations = { ...foundations };
    this.redealsLeft = redeals_left;
  }

  static fromWire(wire) {
    return new Board(wire);
  }

  copy() {
    return new Board({ ...this, redeals_left: this.redealsLeft });
  }

  get count() {
    return SUITS.split("").reduce((sum, suit) => sum + this.foundations[suit], 0);
  }

  /** Where a card is: {bed, depth} for a bed card, {bouquet: true}, or null when played. */
  locate(code) {
    if (this.bouquet.includes(code)) return { bouquet: true };
    for (let bed = 0; bed < this.beds.length; bed++) {
      const depth = this.beds[bed].indexOf(code);
      if (depth >= 0) return { bed, depth };
    }
    return null;
  }

  isFront(code) {
    return this.beds.some((bed) => bed.length && bed[bed.length - 1] === code);
  }

  isLegal(code) {
    const ready = this.foundations[code[1]] === rankOf(code) - 1;
    return ready && (this.bouquet.includes(code) || this.isFront(code));
  }

  /** Every card that may be played now (at most one per suit). */
  playable() {
    const open = [...this.bouquet, ...this.beds.filter((bed) => bed.length).map((bed) => bed.at(-1))];
    return open.filter((code) => this.isLegal(code));
  }

  /** The rules' own status: cleared, playing, stuck (a redeal left) or stalled. */
  status() {
    if (this.count === 52) return "cleared";
    if (this.playable().length) return "playing";
    return this.redealsLeft ? "stuck" : "stalled";
  }

  /** null if ``code`` may be played now, else why not. */
  whyIllegal(code, name = cardShort) {
    if (this.isLegal(code)) return null;
    const top = this.foundations[code[1]];
    if (top >= rankOf(code)) return t("play.already_up", { card: name(code) });
    const where = this.locate(code);
    if (where && !where.bouquet && where.depth !== this.beds[where.bed].length - 1) {
      const above = this.beds[where.bed].length - 1 - where.depth;
      return t("play.covered", { card: name(code), count: above, bed: where.bed + 1 });
    }
    return t("play.must_wait", { card: name(code), first: name(cardOf(suitOf(code), top + 1)) });
  }

  /** Move ``code`` to its foundation: {from, bed}; throws, changing nothing, if illegal. */
  play(code) {
    const reason = this.whyIllegal(code);
    if (reason) throw new Error(reason);
    let bed = null;
    if (this.bouquet.includes(code)) {
      this.bouquet.splice(this.bouquet.indexOf(code), 1);
    } else {
      bed = this.beds.findIndex((cards) => cards.at(-1) === code);
      this.beds[bed].pop();
    }
    this.foundations[code[1]] += 1;
    return { from: bed === null ? "bouquet" : "bed", bed };
  }

  /** The cards in play in PROTOCOL.md's redeal order: beds 0 to 5 bottom to front, the bouquet. */
  gathered() {
    return [...this.beds.flat(), ...this.bouquet];
  }

  /** Lay out the cards again as ``layout`` deals them, one redeal used. */
  redealAs(layout) {
    this.beds = layout.beds.map((bed) => [...bed]);
    this.bouquet = [...layout.bouquet];
    this.redealsLeft -= 1;
  }
}
