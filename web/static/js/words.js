// The page's words for rules, statuses, results and the server's errors, the same as the
// terminal client's (client/words.py, client/render.py).

import { botLabel } from "./bots.js";
import { ERROR, RACING as RACING_STATUSES } from "./facts.js";
import { secondsText } from "./timing.js";

const RACING = new Set(RACING_STATUSES);

/** Whether a board's status still races (its count is not final). */
export const isRacing = (status) => RACING.has(status);

export const STATUS_WORDS = {
  playing: "",
  stuck: "stuck: redeal",
  stalled: "no more plays",
  cleared: "cleared!",
  timed_out: "timed out",
  resigned: "resigned",
  abandoned: "left the race",
};

/** "mirror · winnable · 1 redeal · tiebreak first · 5:00 clock · rated". */
export function rulesWords(rules, { clock = true } = {}) {
  const words = [rules.deal ?? "independent"];
  if (rules.winnable_only) words.push("winnable");
  if (rules.redeals) words.push("1 redeal");
  if (rules.tiebreak === "first") words.push("tiebreak first");
  const limit = rules.time_limit_s;
  if (limit !== null && limit !== undefined && clock) {
    words.push(`${Math.floor(limit / 60)}:${String(limit % 60).padStart(2, "0")} clock`);
  }
  if (rules.rated) words.push("rated");
  return words.join(" · ");
}

/** A rating as clients show it: a whole number, "?" beside a provisional one. */
export function ratingText(rating) {
  if (rating === null || rating === undefined) return "";
  if (typeof rating === "number") return String(Math.round(rating));
  return `${Math.round(rating.rating)}${rating.provisional ? "?" : ""}`;
}

/** Names, a bot's labelled: "BOT-Hare · bot". */
export const playerNames = (players, bots = []) =>
  players.map((name, i) => (bots[i] ? botLabel(name) : name));

/**
 * One board's end: "cleared in 41.2 s", "40/52, last card at 38.1 s", "0/52". Only a clear
 * is a finishing time; a count's time is when its last card went up (client/words.py).
 */
export function countWords(count, tMs) {
  if (tMs === null || tMs === undefined) return `${count}/52`;
  if (count === 52) return `cleared in ${secondsText(tMs)}`;
  return `${count}/52, last card at ${secondsText(tMs)}`;
}

/**
 * How far the winner finished ahead: "22 cards ahead" when the counts differ, "2.0 s
 * sooner" at equal counts (the winner got there first), "" when the winner had fewer.
 */
export function marginWords(winner, counts, timesMs) {
  const loser = 1 - winner;
  const ahead = counts[winner] - counts[loser];
  if (ahead > 0) return `${ahead} card${ahead === 1 ? "" : "s"} ahead`;
  const wonAt = timesMs[winner] ?? null;
  const lostAt = timesMs[loser] ?? null;
  if (ahead === 0 && wonAt !== null && lostAt !== null && wonAt < lostAt) return `${secondsText(lostAt - wonAt)} sooner`;
  return "";
}

/** "BOT-Swift cleared in 16.8 s, 22 cards ahead   ·   ann 30/52, last card at 13.3 s". */
export function timesWords(names, { result, winner, counts, times_ms: timesMs = [] }) {
  return names.map((name, seat) => {
    let part = `${name} ${countWords(counts[seat], timesMs[seat] ?? null)}`;
    if (result === "win" && seat === winner && counts.length === 2 && timesMs.length === 2) {
      const margin = marginWords(winner, counts, timesMs);
      if (margin) part += `, ${margin}`;
    }
    return part;
  }).join("   ·   ");
}

/** The idle warning's seconds: "0:14 left to play or redeal"; no redeal left, none named. */
export const idleLeftWords = (left, canRedeal) => `${left} left to ${canRedeal ? "play or redeal" : "play"}`;

/** The headline ("You won") and the reason in words, for a player (seat) or a spectator. */
export function outcomeWords(over, seat, players, { idleS = null, clockS = null, statuses = [] } = {}) {
  const winner = over.winner === null ? "nobody" : players[over.winner];
  const loser = over.winner === null ? "nobody" : players[1 - over.winner];
  let headline;
  if (over.result === "draw") headline = "Draw";
  else if (seat === null || seat === undefined) headline = `${winner} won`;
  else headline = over.winner === seat ? "You won" : "You lost";
  if (over.reason === "time") return [headline, clockWords(over, winner, clockS)];
  const reasons = {
    cleared: `${winner} cleared every card`,
    resigned: `${loser} resigned`,
    abandoned: `${loser} left and did not come back in time`,
    most_cards: `${winner} has more cards and no play can change it`,
    equal_cards: "equal counts, and neither can play on",
    first_to_count: `equal counts: ${winner} got there first`,
    aborted: "the race was aborted: the server could not restore it",
  };
  const reason = reasons[over.reason] ?? over.reason;
  return [headline, timedOutWords(over, players, reason, idleS, statuses)];
}

function timedOutWords(over, players, reason, idleS, statuses) {
  const timed = statuses.flatMap((status, seat) => (status === "timed_out" ? [seat] : []));
  if (!timed.length || !["most_cards", "equal_cards", "first_to_count"].includes(over.reason)) {
    return reason;
  }
  const idle = idleS ? `no play for ${idleS} s` : "no play in time";
  const who = timed.map((seat) => players[seat]).join(" and ");
  if (over.reason === "most_cards" && !timed.includes(over.winner)) return `${who} timed out: ${idle}`;
  if (over.reason === "most_cards") return `${reason} (${who} timed out: ${idle})`;
  return `${who} timed out: ${idle}; ${reason}`;
}

function clockWords(over, winner, clockS) {
  const clock = clockS === null || clockS === undefined
    ? "the clock"
    : `the ${Math.floor(clockS / 60)}:${String(clockS % 60).padStart(2, "0")} clock`;
  if (over.result === "draw") return `${clock} ran out at equal counts`;
  if (over.counts[0] === over.counts[1]) return `${clock} ran out at equal counts: ${winner} got there first`;
  return `${clock} ran out: ${winner} has more cards`;
}

const ERROR_WORDS = {
  [ERROR.illegal_move]: "the server refused that play",
  [ERROR.room_not_found]: "no open room has that code",
  [ERROR.room_full]: "that room's race has already started",
  [ERROR.game_not_found]: "that race is not there any more",
  [ERROR.busy]: "you are busy",
  [ERROR.rate_limited]: "slow down: too many messages",
  [ERROR.game_over]: "the race is over",
  [ERROR.not_in_game]: "you are not in a race",
  [ERROR.unavailable]: "the server cannot do that right now (nothing changed); try again in a moment",
  [ERROR.not_allowed]: "not allowed",
  [ERROR.banned]: "this player is banned from this server",
};

/**
 * The `id` the page puts on `rematch`. The server copies it into the answer, so an error
 * that carries it answers the rematch (game_not_found: the offer lapsed): the page tells
 * the cases apart by code and id, never by the English of `message` (client/words.py).
 */
export const REMATCH_ID = "rematch";

/** The `id` on a rated seek or room: a not_allowed with it offers the race unrated. */
export const RATED_ID = "rated";

/** The `id` on `report`: its errors are shown on the result, beside the report. */
export const REPORT_ID = "report";

/** Why a race with rated rules changed no rating (game_over.unrated), in words. */
export const UNRATED_WORDS = {
  no_play: "not rated: a player made no play",
  fair_play: "not rated: the timing of the play was flagged for the server's operator to review",
};

/** An error from the server in words. */
export function errorWords(error) {
  if (error.code === ERROR.game_not_found && error.id === REMATCH_ID) return "the rematch offer has lapsed";
  return `${ERROR_WORDS[error.code] ?? error.code}: ${error.message}`;
}
