// Arenas on screen: the list in the lobby (lobby.arenas, each with Join), and the arena
// this player joined, beside the lobby or the race: a countdown to its start or end,
// one's place, the live standings (`arena`, at most once a second), and "Pause", which
// leaves the arena (`leave_arena`: no more races are paired; a race on goes on).

import { countdown, shownStandings } from "./arena.js";
import { botLabel } from "./bots.js";
import { byId, h, setText, swap } from "./dom.js";
import { clockText } from "./timing.js";
import { rulesWords } from "./words.js";

const STATUS = { upcoming: "upcoming", running: "running", finished: "finished" };

/** "14:00", this page's time of day for an ISO 8601 instant. */
function timeOfDay(instant) {
  const at = new Date(instant);
  if (Number.isNaN(at.getTime())) return "";
  return new Intl.DateTimeFormat(document.documentElement.lang || undefined, { timeStyle: "short" }).format(at);
}

function whenWords(arena) {
  if (arena.status === "upcoming") return `starts ${timeOfDay(arena.starts_at)}`;
  if (arena.status === "running") return `ends ${timeOfDay(arena.ends_at)}`;
  return "finished";
}

/** The lobby's list of arenas: upcoming and running ones may be joined. */
export function arenasList(lobby, state, { onJoinArena }) {
  const arenas = lobby.arenas ?? [];
  const joined = state.arena?.arena_id ?? null;
  const items = arenas.map((arena) => {
    const players = arena.players === 1 ? "1 player" : `${arena.players} players`;
    const open = arena.status !== "finished" && arena.arena_id !== joined;
    return h("li", { "data-arena": arena.arena_id },
      h("strong", {}, arena.name), ` · ${STATUS[arena.status] ?? arena.status} · ${whenWords(arena)} · ${players} `,
      arena.arena_id === joined ? h("span", { class: "hint" }, "(joined)") : null,
      open ? h("button", { type: "button", "data-focus": `arena:${arena.arena_id}`, onclick: () => onJoinArena(arena.arena_id) },
        `Join ${arena.name}`) : null);
  });
  return h("section", { class: "listing" },
    h("h3", {}, "Arenas"),
    items.length ? h("ul", {}, items) : h("p", { class: "hint" }, "No arenas are on or coming up."));
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
  if (to === "over" || left === null) return "finished: the standings are final";
  if (left <= 0) return to === "start" ? "starting…" : "time is up: the races still on count when they end";
  return to === "start" ? `starts in ${longClock(left)}` : `ends in ${longClock(left)}`;
}

function youWords(you) {
  if (!you) return "you have no race in it yet";
  const races = you.races === 1 ? "1 race" : `${you.races} races`;
  const streak = you.streak >= 2 ? " · on a streak: wins count double" : "";
  return `you: rank ${you.rank} · ${you.score} points · ${races}${streak}`;
}

function standingLine(line, you) {
  const mine = you !== null && line.rank === you.rank;
  return h("li", mine ? { class: "mine", "aria-current": "true" } : {},
    h("span", { class: "rank" }, `${line.rank}.`), " ",
    h("span", { class: "name" }, line.bot ? botLabel(line.name) : line.name), " ",
    h("span", { class: "score" }, `${line.score}`),
    line.streak >= 2 ? h("span", { class: "streak", title: "on a streak: wins count double" }, " ×2") : null);
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
  const waiting = arena.status === "running" && !racing
    ? "you are paired as soon as another player is free" : "";
  swap(panel, [
    h("h2", { id: "arena-title" }, `Arena: ${arena.name}`),
    h("p", { class: "hint" }, `${rulesWords(arena.rules)} · ${arena.players === 1 ? "1 player" : `${arena.players} players`}`),
    h("p", { id: "arena-countdown", class: "countdown", role: "timer" }, countdownWords(arena)),
    h("p", { id: "arena-you", class: "you" }, youWords(arena.you)),
    waiting ? h("p", { id: "arena-waiting", class: "hint" }, waiting) : null,
    h("ol", { class: "standings", "aria-label": "standings" }, shownStandings(arena).map((line) => standingLine(line, arena.you))),
    h("button", { type: "button", id: finished ? "arena-close" : "arena-pause", onclick: finished ? handlers.onCloseArena : handlers.onPauseArena },
      finished ? "Close" : "Pause"),
    finished ? null : h("span", { class: "hint" }, " pause: no more races are paired for you"),
  ]);
}

/** The countdown, four times a second (the rest is drawn on messages). */
export function tickArena(state) {
  if (state.arena) setText(byId("arena-countdown"), countdownWords(state.arena));
}
