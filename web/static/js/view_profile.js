// A player's profile and race history, newest first, a page at a time (the API's cursor
// ``next``); each race links to its replay and the opponent's profile.

import { h } from "./dom.js";
import { secondsText } from "./timing.js";
import { botLabel, botWords } from "./bots.js";
import { BOTS } from "./facts.js";
import { formatDate, formatNumber, t } from "./i18n.js";
import { ratingNumber, ratingText, rulesWords } from "./words.js";

const REASONS = ["cleared", "resigned", "abandoned", "most_cards", "equal_cards", "first_to_count", "time", "aborted"];
const reasonWord = (reason) => (REASONS.includes(reason) ? t(`profile.reason.${reason}`) : reason);

/** Who plays a bot: the server (one of its levels) or a program for an account (a declared bot). */
function botNote(name) {
  const server = BOTS.some((bot) => bot.name === name);
  return t(server ? "profile.bot_server" : "profile.bot_program", { bot: botWords(name) });
}

/** A history row from the viewed player's side: their result, their count and time first. */
function raceItem(race, name) {
  const found = race.players.findIndex((player) => player.toLowerCase() === name.toLowerCase());
  const seat = found < 0 ? 0 : found;
  const sides = [seat, 1 - seat];
  const opponent = race.players[1 - seat] ?? "?";
  const outcome = t(race.result === "draw" ? "profile.draw" : race.winner === seat ? "profile.won" : "profile.lost");
  const counts = sides.map((s) => race.counts[s]).join("–");
  const times = sides.map((s) => race.times_ms?.[s] ?? null).map((t) => (t === null ? "–" : secondsText(t))).join(" / ");
  const change = Array.isArray(race.ratings) && race.ratings[seat]
    ? ` · ${t("profile.rating_change", { before: ratingNumber(race.ratings[seat].before), after: ratingNumber(race.ratings[seat].after) })}`
    : "";
  const ended = race.ended ? formatDate(race.ended, { dateStyle: "medium", timeStyle: "short" }) : "";
  return h("li", { "data-race": race.game_id },
    h("span", { class: "when" }, ended), ` · ${t("profile.vs")} `,
    h("a", { href: `#player=${encodeURIComponent(opponent)}` }, opponent),
    race.bots?.[1 - seat] ? h("span", { class: "bot-tag" }, ` · ${t("bot.tag")}`) : "",
    ` · ${outcome} (${reasonWord(race.reason)}) · ${counts} · ${times}${change}`,
    h("span", { class: "hint" }, ` · ${rulesWords(race.rules)} `),
    h("a", { href: `#race=${race.game_id}`, "aria-label": t("profile.replay_label", { name: opponent, ended }) }, t("profile.replay")));
}

export async function profileView(api, name) {
  const [player, first] = await Promise.all([api.player(name), api.races(name)]);
  const facts = [
    ["table.rating", ratingText({ rating: player.rating, provisional: player.provisional })
      + (player.provisional ? ` ${t("profile.provisional")}` : "")],
    ["profile.races", formatNumber(player.races)],
    ["profile.record", [player.wins, player.draws, player.losses].map((n) => formatNumber(n)).join(" · ")],
    ["profile.best", player.best_clear_ms === null || player.best_clear_ms === undefined ? t("profile.none_yet") : secondsText(player.best_clear_ms)],
    ["profile.since", player.joined ? formatDate(player.joined) : ""],
  ];
  if (player.daily_streak !== undefined) facts.push(["profile.daily_streak", t("daily.days", { count: player.daily_streak ?? 0 })]);
  const items = h("ul", { class: "history", id: "history" }, first.races.map((race) => raceItem(race, player.name)));
  const more = h("button", { type: "button", id: "older-races" }, t("profile.older"));
  let next = first.next;
  more.hidden = !next;
  more.addEventListener("click", async () => {
    more.disabled = true;
    try {
      const page = await api.races(player.name, { before: next });
      items.append(...page.races.map((race) => raceItem(race, player.name)));
      next = page.next;
      more.hidden = !next;
    } finally {
      more.disabled = false;
    }
  });
  return [
    h("h2", { id: "page-title", tabindex: "-1" }, player.bot ? botLabel(player.name) : player.name),
    player.bot ? h("p", { class: "bot-note" }, botNote(player.name)) : null,
    h("dl", { class: "facts" }, facts.flatMap(([term, value]) => [h("dt", {}, t(term)), h("dd", {}, value)])),
    h("h3", {}, t("profile.races")),
    first.races.length ? items : h("p", { class: "hint" }, t("profile.no_races")),
    more,
  ];
}
