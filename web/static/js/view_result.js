// The end of a race in words (client/result.py): the result, the reason, each player's
// count and time with the winner's margin (words.js), the rating change, and the deal's check.

import { botWords } from "./bots.js";
import { byId, h, setText } from "./dom.js";
import { dailyResultView } from "./view_daily.js";
import { formatNumber, t } from "./i18n.js";
import { outcomeWords, ratingNumber, timesWords, unratedWords } from "./words.js";

function ratingWords(race) {
  const ratings = race.over.ratings;
  if (!Array.isArray(ratings) || ratings.length !== race.players.length) return null;
  return t("result.ratings", { changes: race.players.map((name, seat) => {
    const { before, after } = ratings[seat];
    const change = Math.round(after) - Math.round(before);
    const sign = change > 0 ? "+" : change < 0 ? "−" : "±";
    const [from, to] = [before, after].map(ratingNumber);
    return `${name} ${from} → ${to} (${sign}${formatNumber(Math.abs(change))})`;
  }).join("   ·   ") });
}

/** "ann vs BOT-Hare · bot, level 3, about 0.8 s a card (a race with a bot is never rated)". */
function botRaceWords(race) {
  if (!race.bots.some(Boolean)) return null;
  const names = race.players.map((name, seat) => (race.bots[seat] ? botWords(name) : name));
  return h("p", { class: "bot-race" }, t("result.bot_race", { names: names.join(t("race.vs")) }));
}

function dealWords(check) {
  if (check === null) return h("p", { class: "deal pending", "data-deal": "checking" }, t("deal.checking"));
  return h(
    "p",
    { class: `deal ${check.ok ? "ok" : "bad"}`, "data-deal": check.ok ? (check.full ? "verified" : "partly") : "failed" },
    check.words,
  );
}

/** Who won from this page's side: "won", "lost", "draw", or "watched". */
export function outcomeOf(race) {
  if (race.over.result === "draw") return "draw";
  if (race.seat === null) return "watched";
  return race.over.winner === race.seat ? "won" : "lost";
}

/** An arena race's points: "arena: ann +2 · bob +0". */
function arenaWords(race) {
  const points = race.over.arena?.points;
  if (!Array.isArray(points)) return null;
  const parts = race.players.map((name, seat) => `${name} +${formatNumber(points[seat])}`);
  return h("p", { class: "arena-points" }, t("result.arena_points", { points: parts.join(" · ") }));
}

export function resultView(race, { idleS, state }) {
  const [headline, reason] = outcomeWords(race.over, race.seat, race.players, {
    idleS,
    statuses: race.statuses,
  });
  const opponent = race.seat === null ? null : race.players[1 - race.seat];
  return [
    h("h2", { class: "headline", id: "result-headline", tabindex: "-1" }, headline),
    h("p", { class: "reason" }, reason),
    h("p", { class: "times" }, timesWords(race.players, race.over)),
    botRaceWords(race),
    ratingWords(race) ? h("p", { class: "ratings" }, ratingWords(race)) : null,
    race.over.unrated ? h("p", { class: "unrated", "data-unrated": race.over.unrated },
      unratedWords(race.over.unrated)) : null,
    arenaWords(race),
    dailyResultView(race, state),
    dealWords(race.dealCheck),
    race.rematchOffered && opponent ? h("p", { class: "offer" }, t("result.rematch_offered", { name: opponent })) : null,
    race.rematchAsked ? h("p", { class: "asked" }, t("result.rematch_asked")) : null,
  ];
}

/** Whether this page may report the race on screen: a player's, over, against a person. */
export const reportable = (race) => race.over !== null && !race.watching && !race.bots[race.other];

const REPORT_WORDS = { sending: "report.sending", done: "report.done" };

/** The report's part of the result: the button, the form while it is written, its answer. */
export function renderReport(race) {
  const report = race.report ?? null;
  byId("report").hidden = !reportable(race);
  byId("report-open").hidden = report !== null;
  byId("report-form").hidden = report?.state !== "writing";
  byId("report-send").disabled = report?.state !== "writing";
  const words = report === null ? "" : report.state === "refused" ? report.words : REPORT_WORDS[report.state] ? t(REPORT_WORDS[report.state]) : "";
  const status = byId("report-state");
  setText(status, words);
  status.classList.toggle("error", report?.state === "refused");
}
