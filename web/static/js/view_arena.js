// Arenas on screen: the list in the lobby (lobby.arenas, each with Join), and the arena
// this player joined, beside the lobby or the race: a countdown to its start or end,
// one's place, the live standings (`arena`, at most once a second), and "Pause", which
// leaves the arena (`leave_arena`: no more races are paired; a race on goes on).

import { countdown, shownStandings } from "./arena.js";
import { botLabel } from "./bots.js";
import { byId, h, setText, swap } from "./dom.js";
import { formatNumber, formatTime, t } from "./i18n.js";
import { clockText } from "./timing.js";
import { rulesWords } from "./words.js";

const STATUS = ["upcoming", "running", "finished"];
const statusWord = (status) => (STATUS.includes(status) ? t(`arena.status.${status}`) : status);

/** "14:00", this page's time of day for an ISO 8601 instant, the language's way. */
function timeOfDay(instant) {
  return Number.isNaN(Date.parse(instant ?? "")) ? "" : formatTime(instant);
}

function whenWords(arena) {
  if (arena.status === "upcoming") return t("arena.starts_at", { time: timeOfDay(arena.starts_at) });
  if (arena.status === "running") return t("arena.ends_at", { time: timeOfDay(arena.ends_at) });
  return "";
}

const playersWords = (count) => t("arena.players", { count });

/** The lobby's list of arenas: upcoming and running ones may be joined. */
export function arenasList(lobby, state, { onJoinArena }) {
  const arenas = lobby.arenas ?? [];
  const joined = state.arena?.arena_id ?? null;
  const items = arenas.map((arena) => {
    const open = arena.status !== "finished" && arena.arena_id !== joined;
    const facts = [statusWord(arena.status), whenWords(arena), playersWords(arena.players)].filter(Boolean);
    return h("li", { "data-arena": arena.arena_id },
      h("strong", {}, arena.name), ` · ${facts.join(" · ")} `,
      arena.arena_id === joined ? h("span", { class: "hint" }, t("arena.joined")) : null,
      open ? h("button", { type: "button", "data-focus": `arena:${arena.arena_id}`, onclick: () => onJoinArena(arena.arena_id) },
        t("arena.join", { name: arena.name })) : null);
  });
  return h("section", { class: "listing" },
    h("h3", {}, t("arena.list_title")),
    items.length ? h("ul", {}, items) : h("p", { class: "hint" }, t("arena.none")));
}

const HOUR_S = 60 * 60;

/** A countdown of an arena's length (up to a day): "1:05:09" from an hour on, else "5:09". */
function longClock(seconds) {
  if (seconds < HOUR_S) return clockText(seconds);
  const whole = Math.floor(seconds + 0.999);
  const minutes = Math.floor((whole % HOUR_S) / 60);
  return `${Math.floor(whole / HOUR_S)}:${String(minutes).padStart(2, "0")}:${String(whole % 60).padStart(2, "0")}`;
}

/** "ends in 12:34", "starts in 3:20", "finished: the standings are final". */
export function countdownWords(arena, nowMs = Date.now()) {
  const { to, left } = countdown(arena, nowMs);
  if (to === "over" || left === null) return t("arena.final");
  if (left <= 0) return t(to === "start" ? "arena.starting" : "arena.time_up");
  return t(to === "start" ? "arena.starts_in" : "arena.ends_in", { time: longClock(left) });
}

function youWords(you) {
  if (!you) return t("arena.no_race_yet");
  const parts = [
    t("arena.you_rank", { rank: you.rank }),
    t("arena.points", { count: you.score }),
    t("arena.races", { count: you.races }),
  ];
  if (you.streak >= 2) parts.push(t("arena.streak"));
  return parts.join(" · ");
}

function standingLine(line, you) {
  const mine = you !== null && line.rank === you.rank;
  return h("li", mine ? { class: "mine", "aria-current": "true" } : {},
    h("span", { class: "rank" }, `${line.rank}.`), " ",
    h("span", { class: "name" }, line.bot ? botLabel(line.name) : line.name), " ",
    h("span", { class: "score" }, formatNumber(line.score)),
    line.streak >= 2 ? h("span", { class: "streak", title: t("arena.streak") }, " ×2") : null);
}

/** The joined arena beside the lobby or the race (hidden when none is joined). */
export function renderArenaPanel(state, shown, handlers) {
  const arena = state.arena;
  const panel = byId("arena");
  const visible = arena !== null && (shown === "lobby" || shown === "race");
  panel.hidden = !visible;
  byId("main").classList.toggle("with-arena", visible);
  if (!visible) return;
  const finished = arena.status === "finished";
  const racing = state.race !== null && state.race.over === null && state.race.kind.arena_id === arena.arena_id;
  const waiting = arena.status === "running" && !racing ? t("arena.waiting") : "";
  swap(panel, [
    h("h2", { id: "arena-title" }, t("arena.title", { name: arena.name })),
    h("p", { class: "hint" }, `${rulesWords(arena.rules)} · ${playersWords(arena.players)}`),
    h("p", { id: "arena-countdown", class: "countdown", role: "timer" }, countdownWords(arena)),
    h("p", { id: "arena-you", class: "you" }, youWords(arena.you)),
    waiting ? h("p", { id: "arena-waiting", class: "hint" }, waiting) : null,
    h("ol", { class: "standings", "aria-label": t("arena.standings") }, shownStandings(arena).map((line) => standingLine(line, arena.you))),
    h("button", { type: "button", id: finished ? "arena-close" : "arena-pause", onclick: finished ? handlers.onCloseArena : handlers.onPauseArena },
      t(finished ? "arena.close" : "arena.pause")),
    finished ? null : h("span", { class: "hint" }, ` ${t("arena.pause_hint")}`),
  ]);
}

/** The countdown, four times a second (the rest is drawn on messages). */
export function tickArena(state) {
  if (state.arena) setText(byId("arena-countdown"), countdownWords(state.arena));
}
