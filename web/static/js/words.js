// The page's words for rules, statuses, results and the server's errors, the same as the
// terminal client's (client/words.py, client/render.py), from the catalogues (i18n.js):
// the game's shared words in the common domain, the page's own in the browser domain.

import { botLabel } from "./bots.js";
import { ERROR, RACING as RACING_STATUSES } from "./facts.js";
import { formatNumber, t } from "./i18n.js";
import { secondsText } from "./timing.js";

const RACING = new Set(RACING_STATUSES);

/** Whether a board's status still races (its count is not final). */
export const isRacing = (status) => RACING.has(status);

/** A board's status in words ("" while it plays): common's status.* keys. */
export const statusWords = (status) => (status === "playing" ? "" : t(`status.${status}`));

/** "4:59", a time limit as a clock face. */
const clockFace = (limit) => `${Math.floor(limit / 60)}:${String(limit % 60).padStart(2, "0")}`;

/** "mirror · winnable · 1 redeal · tiebreak first · 5:00 clock · rated". */
export function rulesWords(rules, { clock = true } = {}) {
  const words = [t(rules.deal === "mirror" ? "rule.mirror" : "rule.independent")];
  if (rules.winnable_only) words.push(t("rule.winnable"));
  if (rules.redeals) words.push(t("rule.redeals", { count: rules.redeals }));
  if (rules.tiebreak === "first") words.push(t("rule.tiebreak_first"));
  const limit = rules.time_limit_s;
  if (limit !== null && limit !== undefined && clock) words.push(t("rule.clock", { clock: clockFace(limit) }));
  if (rules.rated) words.push(t("rule.rated"));
  return words.join(" · ");
}

/** A rating as a whole number, in the language's digits but never grouped: "1500". */
export const ratingNumber = (value) => formatNumber(Math.round(value), { useGrouping: false });

/** A rating as clients show it: a whole number, "?" beside a provisional one. */
export function ratingText(rating) {
  if (rating === null || rating === undefined) return "";
  if (typeof rating === "number") return ratingNumber(rating);
  return `${ratingNumber(rating.rating)}${rating.provisional ? "?" : ""}`;
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
  if (count === 52) return t("count.cleared_in", { time: secondsText(tMs) });
  return t("count.last_card", { count, time: secondsText(tMs) });
}

/**
 * How far the winner finished ahead: "22 cards ahead" when the counts differ, "2.0 s
 * sooner" at equal counts (the winner got there first), "" when the winner had fewer.
 */
export function marginWords(winner, counts, timesMs) {
  const loser = 1 - winner;
  const ahead = counts[winner] - counts[loser];
  if (ahead > 0) return t("margin.cards_ahead", { count: ahead });
  const wonAt = timesMs[winner] ?? null;
  const lostAt = timesMs[loser] ?? null;
  if (ahead === 0 && wonAt !== null && lostAt !== null && wonAt < lostAt) return t("margin.sooner", { time: secondsText(lostAt - wonAt) });
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
export const idleLeftWords = (left, canRedeal) => t(canRedeal ? "race.idle_left_redeal" : "race.idle_left", { left });

/** The headline ("You won") and the reason in words, for a player (seat) or a spectator. */
export function outcomeWords(over, seat, players, { idleS = null, statuses = [] } = {}) {
  const winner = over.winner === null ? t("result.nobody") : players[over.winner];
  const loser = over.winner === null ? t("result.nobody") : players[1 - over.winner];
  let headline;
  if (over.result === "draw") headline = t("result.draw");
  else if (seat === null || seat === undefined) headline = t("result.won", { winner });
  else headline = t(over.winner === seat ? "result.you_won" : "result.you_lost");
  if (over.reason === "time") return [headline, clockWords(over, winner)];
  const known = ["cleared", "resigned", "abandoned", "most_cards", "equal_cards", "first_to_count", "aborted"];
  const reason = known.includes(over.reason) ? t(`reason.${over.reason}`, { winner, loser }) : over.reason;
  return [headline, timedOutWords(over, players, reason, idleS, statuses)];
}

function timedOutWords(over, players, reason, idleS, statuses) {
  const timed = statuses.flatMap((status, seat) => (status === "timed_out" ? [seat] : []));
  if (!timed.length || !["most_cards", "equal_cards", "first_to_count"].includes(over.reason)) {
    return reason;
  }
  const idle = idleS ? t("result.idle_for", { seconds: idleS }) : t("result.idle");
  const who = timed.map((seat) => players[seat]).join(t("result.and"));
  const out = t("result.timed_out", { who, idle });
  if (over.reason === "most_cards" && !timed.includes(over.winner)) return out;
  if (over.reason === "most_cards") return `${reason} (${out})`;
  return `${out}; ${reason}`;
}

function clockWords(over, winner) {
  if (over.result === "draw") return t("reason.time_draw");
  if (over.counts[0] === over.counts[1]) return t("reason.time_first", { winner });
  return t("reason.time", { winner });
}

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
export const unratedWords = (why) => (["no_play", "fair_play"].includes(why) ? t(`unrated.${why}`) : t("result.unrated", { why }));

/**
 * An error from the server in words, by its code (common's error.* keys), never by the
 * English of its `message`; a code this page does not know is shown as it came.
 */
export function errorWords(error) {
  if (error.code === ERROR.game_not_found && error.id === REMATCH_ID) return t("error.rematch_lapsed");
  if (Object.hasOwn(ERROR, error.code)) return t(`error.${error.code}`);
  return `${error.code}: ${error.message}`;
}
