// "Deal verified": at game_over the server reveals each seat's seed; game_start had
// committed to it (its SHA-256). Each seed must hash to its commit and, when this page
// saw the boards as dealt, deal exactly those boards by PROTOCOL.md's algorithm.

import { layoutOf } from "./dealing.js";
import { seedFromHex, sha256, toHex } from "./sha256.js";

const short = (hex) => `${hex.slice(0, 12)}…`;

function differs(wire, layout) {
  for (let bed = 0; bed < 6; bed++) {
    if (wire.beds[bed].join(" ") !== layout.beds[bed].join(" ")) {
      return `beds[${bed}] is ${wire.beds[bed].join(" ")}; the seed deals ${layout.beds[bed].join(" ")}`;
    }
  }
  if (wire.bouquet.join(" ") !== layout.bouquet.join(" ")) return "the bouquet is not what the seed deals";
  return null;
}

/**
 * The verdict on a finished race's deal: {ok, full, words}. ``dealt``: the boards as dealt
 * (game_start, or a race's record), or null when this page only saw them later.
 */
export async function checkDeal({ rules, commits, seeds, dealt }) {
  const fail = (words) => ({ ok: false, full: false, words: `deal NOT verified: ${words}` });
  if (!Array.isArray(seeds) || !Array.isArray(commits) || seeds.length !== commits.length) {
    return fail("not one seed for each commit");
  }
  if (rules.deal === "mirror" && new Set(seeds).size !== 1) return fail("a mirror race, but the seats' seeds differ");
  const bytes = [];
  for (const [seat, seed] of seeds.entries()) {
    let seedBytes;
    try {
      seedBytes = seedFromHex(seed);
    } catch (error) {
      return fail(`seat ${seat}'s seed: ${error.message}`);
    }
    const hashed = toHex(await sha256(seedBytes));
    if (hashed !== String(commits[seat]).toLowerCase()) {
      return fail(`seat ${seat}'s seed hashes to ${short(hashed)}, not ${short(String(commits[seat]))}`);
    }
    bytes.push(seedBytes);
  }
  if (!dealt) {
    return {
      ok: true,
      full: false,
      words: "deal partly verified: the seeds match their commits (layouts dealt before you came)",
    };
  }
  for (const [seat, seedBytes] of bytes.entries()) {
    const wrong = differs(dealt[seat], await layoutOf(seedBytes, Boolean(rules.winnable_only)));
    if (wrong) return fail(`board ${seat}: ${wrong}`);
  }
  return { ok: true, full: true, words: "deal verified" };
}
