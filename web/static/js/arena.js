// The arena this page has joined (PROTOCOL.md, "Arenas"): the last `arena` message, the
// time left on this page's wall clock (the server gives ISO 8601 instants), and what
// the page offers to join from the lobby's `arenas`.

/** Seconds from now to an ISO 8601 instant (negative once past); null without one. */
export function secondsTo(instant, nowMs = Date.now()) {
  const at = Date.parse(instant ?? "");
  return Number.isNaN(at) ? null : (at - nowMs) / 1000;
}

/** What the countdown counts to: the start of an upcoming arena, the end of a running one. */
export function countdown(arena, nowMs = Date.now()) {
  if (arena.status === "upcoming") return { to: "start", left: secondsTo(arena.starts_at, nowMs) };
  if (arena.status === "running") return { to: "end", left: secondsTo(arena.ends_at, nowMs) };
  return { to: "over", left: null };
}

/** The standings' lines shown beside a race: the first ``top``, and one's own if below them. */
export function shownStandings(arena, top = 10) {
  const lines = arena.standings.slice(0, top);
  const you = arena.you;
  if (you && you.rank > top) {
    const own = arena.standings.find((line) => line.rank === you.rank);
    if (own) lines.push(own);
  }
  return lines;
}
