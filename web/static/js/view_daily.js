// The daily deal on screen: its entry in the lobby (today's best time, one's rank and
// streak, and "race the ghost"), and on the result of a daily race one's time against
// the leader's, one's rank (game_over.daily) and the day's board (GET /api/daily).

import { leader, ownPlace } from "./daily.js";
import { byId, h, keepWhole, setText } from "./dom.js";
import { BOTS } from "./facts.js";
import { formatDate, t } from "./i18n.js";
import { secondsText } from "./timing.js";

const BOARD_SHOWN = 10;

/** The level-3 bot's name, which takes seat 1 before anyone cleared the deal. */
const dailyBot = () => BOTS.find((bot) => bot.level === 3)?.name ?? "BOT";

/** "41.2 s", or "40/52" for a race that did not clear. */
const placeTime = (place) => (place.time_ms === null || place.time_ms === undefined ? `${place.count}/52` : secondsText(place.time_ms));

function streakWords(streak) {
  if (streak === null || streak === undefined) return "";
  return t("daily.streak", { days: t("daily.days", { count: streak }) });
}

/** The lobby's daily entry: hidden on a server without the daily deal. */
export function renderDaily(state) {
  const info = state.lobby?.daily ?? null;
  const section = byId("daily");
  section.hidden = info === null;
  if (info === null) return;
  setText(byId("daily-date"), formatDate(`${info.date}T12:00:00Z`));
  const best = info.best_ms === null || info.best_ms === undefined
    ? t("daily.nobody_cleared")
    : t("daily.best", { time: secondsText(info.best_ms) });
  setText(byId("daily-facts"), `${t("daily.raced", { count: info.players })} · ${best}`);
  const place = ownPlace(state.daily.today, state.me?.name);
  const you = place ? t("daily.you", { rank: place.rank, time: placeTime(place) }) : t("daily.not_yet");
  setText(byId("daily-you"), [you, streakWords(state.daily.streak)].filter(Boolean).join(" · "));
  const ghost = info.best_ms !== null && info.best_ms !== undefined;
  const button = byId("daily-race");
  const label = ghost ? t("daily.race_ghost") : t("daily.race_bot", { name: dailyBot() });
  if (button.textContent !== label) button.replaceChildren(...keepWhole(label, [dailyBot()]));
  byId("daily-race").disabled = state.waiting?.kind === "room";
}

/** A line of the day's board, one's own marked. */
function boardLine(place, mine) {
  return h("tr", mine ? { class: "mine", "aria-current": "true" } : {},
    h("td", {}, String(place.rank)),
    h("td", {}, place.name),
    h("td", {}, placeTime(place)),
    h("td", {}, place.game_id ? h("a", { href: `#race=${place.game_id}`, "aria-label": t("daily.replay_label", { name: place.name }) }, t("profile.replay")) : ""));
}

/** The day's board: its first lines, and one's own below them if lower. */
function boardView(today, name) {
  if (!today?.board?.length) return h("p", { class: "hint" }, t("daily.board_empty"));
  const own = ownPlace(today, name);
  const lines = today.board.slice(0, BOARD_SHOWN);
  if (own && own.rank > BOARD_SHOWN) lines.push(own);
  return h("div", { class: "scroll-x" },
    h("table", { class: "table daily-board" },
      h("caption", {}, t("daily.board_caption", { date: formatDate(`${today.date}T12:00:00Z`), count: today.players })),
      h("thead", {}, h("tr", {}, ["table.rank", "table.player", "table.time", ""].map((key) => h("th", { scope: "col" }, key ? t(key) : "")))),
      h("tbody", {}, lines.map((place) => boardLine(place, place === own)))));
}

/** The daily part of a daily race's result: rank, one's time against the leader's, the board. */
export function dailyResultView(race, state) {
  const daily = race.over?.daily ?? null;
  if (daily === null || race.seat === null) return [];
  const today = state.daily.today?.date === daily.date ? state.daily.today : null;
  const first = leader(today);
  const mine = daily.time_ms === null || daily.time_ms === undefined
    ? t("daily.not_cleared")
    : t("daily.your_time", { time: secondsText(daily.time_ms) });
  const theirs = first ? t("daily.leader_time", { time: placeTime(first), name: first.name }) : "";
  const date = formatDate(`${daily.date}T12:00:00Z`);
  const rank = daily.ranked ? t("daily.ranked", { date, rank: daily.rank }) : t("daily.practice", { date });
  return [
    h("p", { class: "daily-rank", "data-daily-rank": daily.ranked ? String(daily.rank) : "practice" }, rank),
    h("p", { class: "daily-times" }, [mine, theirs].filter(Boolean).join(" · ")),
    boardView(today, state.me?.name),
  ];
}

/** The ghost's line under the race's names: whose clear it replays. */
export function ghostWords(race) {
  if (!race.kind.daily) return null;
  const ghost = race.kind.ghost;
  const date = formatDate(`${race.kind.daily}T12:00:00Z`);
  const line = ghost
    ? t("daily.ghost_line", { date, bot: race.players[1], name: ghost })
    : t("daily.bot_line", { date, bot: race.players[1] });
  return keepWhole(line, [race.players[1], ghost]);
}

