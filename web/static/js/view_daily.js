// The daily deal on screen: its entry in the lobby (today's best time, one's rank and
// streak, and "race the ghost"), and on the result of a daily race one's time against
// the leader's, one's rank (game_over.daily) and the day's board (GET /api/daily).

import { leader, ownPlace } from "./daily.js";
import { byId, h, setText } from "./dom.js";
import { BOTS } from "./facts.js";
import { secondsText } from "./timing.js";

const BOARD_SHOWN = 10;

/** The level-3 bot's name, which takes seat 1 before anyone cleared the deal. */
const dailyBot = () => BOTS.find((bot) => bot.level === 3)?.name ?? "a bot";

/** "41.2 s", or "40/52" for a race that did not clear. */
const placeTime = (place) => (place.time_ms === null || place.time_ms === undefined ? `${place.count}/52` : secondsText(place.time_ms));

function streakWords(streak) {
  if (streak === null || streak === undefined) return "";
  return streak === 1 ? "streak: 1 day" : `streak: ${streak} days`;
}

/** The lobby's daily entry: hidden on a server without the daily deal. */
export function renderDaily(state) {
  const info = state.lobby?.daily ?? null;
  const section = byId("daily");
  section.hidden = info === null;
  if (info === null) return;
  setText(byId("daily-date"), info.date);
  const best = info.best_ms === null || info.best_ms === undefined
    ? "nobody has cleared it yet"
    : `best time ${secondsText(info.best_ms)}`;
  const raced = info.players === 1 ? "1 player raced it" : `${info.players} players raced it`;
  setText(byId("daily-facts"), `${raced} · ${best}`);
  const place = ownPlace(state.daily.today, state.me?.name);
  const you = place
    ? `you: rank ${place.rank}, ${placeTime(place)}`
    : "you have not raced it today: your first race is the one ranked";
  setText(byId("daily-you"), [you, streakWords(state.daily.streak)].filter(Boolean).join(" · "));
  const ghost = info.best_ms !== null && info.best_ms !== undefined;
  setText(byId("daily-race"), ghost ? "Race the ghost" : `Race today's deal against ${dailyBot()}`);
  byId("daily-race").disabled = state.waiting?.kind === "room";
}

/** A line of the day's board, one's own marked. */
function boardLine(place, mine) {
  return h("tr", mine ? { class: "mine", "aria-current": "true" } : {},
    h("td", {}, String(place.rank)),
    h("td", {}, place.name),
    h("td", {}, placeTime(place)),
    h("td", {}, place.game_id ? h("a", { href: `#race=${place.game_id}`, "aria-label": `Replay ${place.name}'s race` }, "Replay") : ""));
}

/** The day's board: its first lines, and one's own below them if lower. */
function boardView(today, name) {
  if (!today?.board?.length) return h("p", { class: "hint" }, "Nobody is on today's board yet.");
  const own = ownPlace(today, name);
  const lines = today.board.slice(0, BOARD_SHOWN);
  if (own && own.rank > BOARD_SHOWN) lines.push(own);
  return h("div", { class: "scroll-x" },
    h("table", { class: "table daily-board" },
      h("caption", {}, `Today's board (${today.date}): ${today.players} raced`),
      h("thead", {}, h("tr", {}, ["Rank", "Player", "Time", ""].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, lines.map((place) => boardLine(place, place === own)))));
}

/** The daily part of a daily race's result: rank, one's time against the leader's, the board. */
export function dailyResultView(race, state) {
  const daily = race.over?.daily ?? null;
  if (daily === null || race.seat === null) return [];
  const today = state.daily.today?.date === daily.date ? state.daily.today : null;
  const first = leader(today);
  const mine = daily.time_ms === null || daily.time_ms === undefined
    ? "you did not clear it"
    : `your time ${secondsText(daily.time_ms)}`;
  const theirs = first ? `the leader's ${placeTime(first)} (${first.name})` : "";
  const rank = daily.ranked
    ? `Daily deal ${daily.date}: rank ${daily.rank}`
    : `Daily deal ${daily.date}: practice (only your first race of the day is ranked)`;
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
  const seat1 = race.players[1];
  return ghost
    ? `Daily deal ${race.kind.daily}: ${seat1} replays ${ghost}'s clear, card by card at ${ghost}'s times`
    : `Daily deal ${race.kind.daily}: nobody has cleared it yet, so ${seat1} races you`;
}

