// A player's profile and race history, newest first, a page at a time (the API's cursor
// ``next``); each race links to its replay and the opponent's profile.

import { h } from "./dom.js";
import { secondsText } from "./timing.js";
import { botLabel, botWords } from "./bots.js";
import { BOTS } from "./facts.js";
import { ratingText, rulesWords } from "./words.js";

const REASONS = {
  cleared: "cleared", resigned: "resigned", abandoned: "left", most_cards: "more cards",
  equal_cards: "equal counts", first_to_count: "first to the count", time: "the clock ran out",
  aborted: "aborted",
};

/** Who plays a bot: the server (one of its levels) or a program for an account (a declared bot). */
function botNote(name) {
  const server = BOTS.some((bot) => bot.name === name);
  const who = server ? "the server plays it" : "a program plays for this player";
  return `${botWords(name)}: ${who}; its races are never rated`;
}

/** A history row from the viewed player's side: their result, their count and time first. */
function raceItem(race, name) {
  const found = race.players.findIndex((player) => player.toLowerCase() === name.toLowerCase());
  const seat = found < 0 ? 0 : found;
  const sides = [seat, 1 - seat];
  const opponent = race.players[1 - seat] ?? "?";
  const outcome = race.result === "draw" ? "draw" : race.winner === seat ? "won" : "lost";
  const counts = sides.map((s) => race.counts[s]).join("–");
  const times = sides.map((s) => race.times_ms?.[s] ?? null).map((t) => (t === null ? "–" : secondsText(t))).join(" / ");
  const change = Array.isArray(race.ratings) && race.ratings[seat]
    ? ` · rating ${Math.round(race.ratings[seat].before)} → ${Math.round(race.ratings[seat].after)}`
    : "";
  const ended = String(race.ended ?? "").slice(0, 16).replace("T", " ");
  return h("li", { "data-race": race.game_id },
    h("span", { class: "when" }, ended), " · vs ",
    h("a", { href: `#player=${encodeURIComponent(opponent)}` }, opponent),
    race.bots?.[1 - seat] ? h("span", { class: "bot-tag" }, " · bot") : "",
    ` · ${outcome} (${REASONS[race.reason] ?? race.reason}) · ${counts} · ${times}${change}`,
    h("span", { class: "hint" }, ` · ${rulesWords(race.rules)} `),
    h("a", { href: `#race=${race.game_id}`, "aria-label": `Replay the race against ${opponent}, ${ended}` }, "Replay"));
}

export async function profileView(api, name) {
  const [player, first] = await Promise.all([api.player(name), api.races(name)]);
  const facts = [
    ["Rating", `${ratingText({ rating: player.rating, provisional: player.provisional })}${player.provisional ? " (provisional)" : ""}`],
    ["Races", String(player.races)],
    ["Won · drawn · lost", `${player.wins} · ${player.draws} · ${player.losses}`],
    ["Best clear", player.best_clear_ms === null || player.best_clear_ms === undefined ? "none yet" : secondsText(player.best_clear_ms)],
    ["Playing since", String(player.joined ?? "").slice(0, 10)],
  ];
  const items = h("ul", { class: "history", id: "history" }, first.races.map((race) => raceItem(race, player.name)));
  const more = h("button", { type: "button", id: "older-races" }, "Older races");
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
    h("dl", { class: "facts" }, facts.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)])),
    h("h3", {}, "Races"),
    first.races.length ? items : h("p", { class: "hint" }, "No finished races yet."),
    more,
  ];
}
