// "Deal verified": at game_over the server reveals each seat's seed; game_start had
// committed to it (its SHA-256). Each seed must hash to its commit and, when this page
// saw the boards as dealt, deal exactly those boards by PROTOCOL.md's algorithm.

import { layoutOf } from "./dealing.js";
import { t } from "./i18n.js";
import { seedFromHex, sha256, toHex } from "./sha256.js";

const short = (hex) => `${hex.slice(0, 12)}…`;

function differs(wire, layout) {
  for (let bed = 0; bed < 6; bed++) {
    if (wire.beds[bed].join(" ") !== layout.beds[bed].join(" ")) {
      return t("deal.bed_differs", { bed: bed + 1, dealt: wire.beds[bed].join(" "), seeded: layout.beds[bed].join(" ") });
    }
  }
  if (wire.bouquet.join(" ") !== layout.bouquet.join(" ")) return t("deal.bouquet_differs");
  return null;
}

/**
 * The verdict on a finished race's deal: {ok, full, words}. ``dealt``: the boards as dealt
 * (game_start, or a race's record), or null when this page only saw them later.
 */
export async function checkDeal({ rules, commits, seeds, dealt }) {
  const fail = (words) => ({ ok: false, full: false, words: t("deal.failed", { why: words }) });
  if (!Array.isArray(seeds) || !Array.isArray(commits) || seeds.length !== commits.length) {
    return fail(t("deal.seed_count"));
  }
  if (rules.deal === "mirror" && new Set(seeds).size !== 1) return fail(t("deal.mirror_differs"));
  const bytes = [];
  for (const [seat, seed] of seeds.entries()) {
    let seedBytes;
    try {
      seedBytes = seedFromHex(seed);
    } catch (error) {
      return fail(t("deal.bad_seed", { seat, why: error.message }));
    }
    const hashed = toHex(await sha256(seedBytes));
    if (hashed !== String(commits[seat]).toLowerCase()) {
      return fail(t("deal.wrong_hash", { seat, hashed: short(hashed), commit: short(String(commits[seat])) }));
    }
    bytes.push(seedBytes);
  }
  if (!dealt) {
    return {
      ok: true,
      full: false,
      words: t("deal.partly"),
    };
  }
  for (const [seat, seedBytes] of bytes.entries()) {
    const wrong = differs(dealt[seat], await layoutOf(seedBytes, Boolean(rules.winnable_only)));
    if (wrong) return fail(t("deal.board_differs", { seat, why: wrong }));
  }
  return { ok: true, full: true, words: t("deal.verified") };
}
