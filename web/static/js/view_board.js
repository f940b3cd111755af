// One board drawn as elements: foundations, six beds fanned from the bottom card to the
// front card, and the bouquet. On one's own board every card is a <button> named like
// "queen of hearts"; the opponent's (and a watched race's) cards are images with the
// same names. The test contract (docs/web.md): data-card on every card, data-playable
// on the playable ones, data-key on those a key plays, data-board on the board.

import { cardName, cardShort, isRed, rankShown, rankWord, SUIT_SYMBOLS, SUITS, suitWord } from "./cards.js";
import { t } from "./i18n.js";
import { h } from "./dom.js";
import { BED_KEYS, keyOf } from "./keys.js";

function cardElement(code, { board, labels, interactive, playable, front, onCard }) {
  const key = labels ? keyOf(code, board, labels) : null;
  const where = board.locate(code);
  const description = playable
    ? (key ? t("board.playable_key", { key }) : t("board.playable"))
    : t(where?.bouquet || front ? "board.must_wait" : "board.covered");
  const props = {
    class: `card ${isRed(code) ? "red" : "black"}${playable ? " playable" : ""}${front ? " front" : ""}`,
    "data-card": code,
    "data-playable": playable ? "true" : null,
    "data-key": key,
    "data-bed": where && !where.bouquet ? where.bed : null,
    "aria-label": cardName(code),
  };
  const face = [
    h("span", { class: "corner", "aria-hidden": "true" }, cardShort(code)),
    h("span", { class: "pip", "aria-hidden": "true" }, SUIT_SYMBOLS[SUITS.indexOf(code[1])]),
    key ? h("span", { class: "key", "aria-hidden": "true" }, key) : null,
  ];
  if (!interactive) return h("span", { ...props, role: "img" }, face);
  return h(
    "button",
    {
      ...props,
      type: "button",
      "data-focus": `card:${code}`,
      "aria-description": description,
      "aria-keyshortcuts": key,
      tabindex: where?.bouquet || front ? null : "-1",
      onclick: () => onCard(code),
    },
    face,
  );
}

function foundations(board) {
  return h(
    "div",
    { class: "foundations", role: "group", "aria-label": t("board.foundations") },
    [...SUITS].map((suit, i) => {
      const top = board.foundations[suit];
      const words = top === 13 ? t("board.foundation_complete")
        : top ? t("board.foundation_up_to", { rank: rankWord(top) }) : t("board.foundation_empty");
      return h(
        "span",
        {
          class: `foundation ${i === 1 || i === 2 ? "red" : "black"}${top ? "" : " empty"}`,
          "data-foundation": suit,
          role: "img",
          "aria-label": `${suitWord(i)}: ${words}`,
        },
        top ? rankShown(top) + SUIT_SYMBOLS[i] : SUIT_SYMBOLS[i],
      );
    }),
  );
}

/**
 * ``kind``: "own" (the player's own board, its cards buttons), "opponent", or "watched"
 * (a spectator's). ``header``: the board's title line. ``live``: its player may still play,
 * so its playable cards stand out. ``bot``: a bot plays it (``data-bot="true"``).
 */
export function boardView({ board, labels = null, kind, seat, header, live, interactive = false, onCard = null, bot = false }) {
  const playable = new Set(live ? board.playable() : []);
  const context = (code, front) => ({
    board, labels, interactive, onCard, front, playable: playable.has(code),
  });
  const beds = board.beds.map((bed, i) =>
    h(
      "div",
      {
        class: `bed${bed.length ? "" : " empty"}`,
        role: "group",
        "aria-label": t(bed.length ? "board.bed" : "board.bed_empty", { bed: BED_KEYS[i] }),
        style: `--cards: ${Math.max(bed.length, 1)}`,
      },
      bed.map((code, depth) => cardElement(code, context(code, depth === bed.length - 1))),
    ),
  );
  return h(
    "section",
    {
      class: `board board-${kind}`,
      id: kind === "own" || kind === "opponent" ? `board-${kind}` : `board-${kind}-${seat}`,
      "data-board": kind,
      "data-seat": seat,
      "data-bot": bot ? "true" : null,
      "aria-label": header,
      tabindex: "-1",
    },
    h("h3", { class: "board-title" }, header),
    foundations(board),
    h("div", { class: "beds" }, beds),
    h(
      "div",
      { class: "bouquet", role: "group", "aria-label": t("board.bouquet", { count: board.bouquet.length }) },
      board.bouquet.map((code) => cardElement(code, context(code, false))),
    ),
  );
}
