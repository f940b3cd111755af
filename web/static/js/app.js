// The page's glue: it owns the state and the connection, feeds every server message to
// the state, and draws the screen that fits (sign in, lobby, race, or one of the HTTP
// pages). What the player does is in actions.js; how each screen looks in view_*.js.

import { Actions } from "./actions.js";
import { Api } from "./api.js";
import { Connection } from "./connection.js";
import { DailyData } from "./daily.js";
import { byId, setText } from "./dom.js";
import { BOT_AFTER_S, ERROR, NAME_MAX } from "./facts.js";
import { raceKey } from "./keyboard.js";
import { forgetRace, recallRace, rememberRace } from "./memory.js";
import { onLanguageChange, startLanguage, t } from "./i18n.js";
import { nameProblem, nameRule } from "./names.js";
import { showPage } from "./pages.js";
import { bindBotForm, labelBotForm } from "./bot_form.js";
import { botLabel } from "./bots.js";
import { apiBase, clearHash, route, serverUrl } from "./routes.js";
import { drawLanguageSwitch, translateStatic } from "./page_words.js";
import { bindRulesForm, labelRulesForm } from "./rules_form.js";
import { AppState } from "./state.js";
import { forgetIdentity, loadIdentity, saveIdentity } from "./tokens.js";
import { checkDeal } from "./verify.js";
import { renderArenaPanel, tickArena } from "./view_arena.js";
import { renderBanned } from "./view_banned.js";
import { renderLobby, tickLobby } from "./view_lobby.js";
import { renderRace, tickRace } from "./view_race.js";
import { RATED_ID, ratingText } from "./words.js";

const LOBBY_POLL_S = 3;

const WS_URL = serverUrl();
const api = new Api(apiBase(WS_URL));
const state = new AppState();
const now = () => performance.now() / 1000;

const app = {
  state,
  api,
  connection: null,
  /** What to do once welcomed and the lobby has answered: join a room, watch, seek again. */
  pending: route().action,
  welcomedBefore: false,
  lastPoll: -Infinity,
  overShown: null,
  pageLoads: 0,
  leavePage: null,
  send(message) {
    // A rated seek or room carries RATED_ID: a not_allowed that answers it is told
    // apart from any other by its id (and code), never by the server's English.
    if (message.rules?.rated && ["seek", "create_room"].includes(message.type)) message = { ...message, id: RATED_ID };
    if (!this.connection?.send(message)) {
      state.note(t("page.not_sent"), { error: true });
      return false;
    }
    if (["seek", "create_room"].includes(message.type)) state.asked(message);
    return true;
  },
  render: () => render(),
};
const actions = new Actions(app);
const daily = new DailyData(api, state, () => render());

// -- the connection ---------------------------------------------------------------

function connect(name) {
  app.connection?.stop();
  app.connection = new Connection(WS_URL, {
    message: received,
    link: (link, details = {}) => {
      state.setLink(link, details);
      render();
    },
    refused: (words, name = "") => {
      state.me = null;
      showSignin(words, name);
    },
    banned: (name) => {
      state.banish(name);
      render();
      byId("banned-title").focus();
    },
    identity: (wanted) => loadIdentity(WS_URL, wanted),
    remember: (identity) => saveIdentity(WS_URL, identity),
    forget: (name) => forgetIdentity(WS_URL, name),
  });
  app.connection.start(name);
  render();
}

function received(message) {
  const at = now();
  if (message.type === "welcome") welcomed();
  const before = state.race;
  const remembered = message.type === "game_state" ? recallRace(message.game_id) : null;
  if (state.apply(message, at, { remembered })) resync();
  const race = state.race;
  if (race && race !== before) raceFocus(race);
  if (race && !race.watching && ["game_start", "game_state", "played", "redealt"].includes(message.type)) {
    rememberRace(race);
  }
  if (race?.over && race.dealCheck === null && !race.checking) verifyDeal(race);
  lookUpRatings(message);
  daily.received(message);
  if (message.type === "lobby") startPending();
  if (message.type === "welcome") welcomeFocus();
  if (message.type === "error" && message.code === ERROR.game_not_found && route().action?.type === "watch") clearHash();
  render();
}

function welcomed() {
  const waiting = state.waiting;
  if (app.welcomedBefore && waiting) {
    // The server forgot the seek or the room with the old connection: ask again.
    state.waiting = null;
    app.pending = waiting.kind === "seeking"
      ? seekAgain(waiting)
      : { type: "create_room", rules: waiting.rules, public: byId("public").checked };
    if (waiting.kind === "room") state.note(t("lobby.room_new_code"));
  }
  app.welcomedBefore = true;
  const race = state.race;
  if (race && race.watching && race.over === null) app.send({ type: "watch", game_id: race.gameId });
  // Last: its answer comes after any game_state that resumes a race, so it also says
  // when none is coming (AppState.resuming).
  app.send({ type: "lobby" });
}

/** The seek the server forgot, its bot (if any) due when it was due before. */
function seekAgain(waiting) {
  if (!waiting.bot) return { type: "seek", rules: waiting.rules };
  const after = Math.min(BOT_AFTER_S.max, Math.max(BOT_AFTER_S.min, Math.ceil(waiting.botAt - now())));
  return { type: "seek", rules: waiting.rules, bot: { ...waiting.bot, after_s: after } };
}

/** A race began (or came back): show it, with the keyboard on one's own board. */
function raceFocus(race) {
  if (route().page !== "play") location.hash = "";
  queueMicrotask(() => {
    // After the redraw: a focus that was on the lobby, or on the result, is gone by now.
    const active = document.activeElement;
    const lost = !active || active === document.body || !active.checkVisibility();
    if (!lost && !byId("page").contains(active)) return;
    (race.watching ? byId("board-watched-0") : byId("board-own"))?.focus({ preventScroll: true });
  });
}

/** Signed in from the name field: the keyboard goes on from Quick match. */
function welcomeFocus() {
  const active = document.activeElement;
  if (active && active !== document.body && !byId("signin").contains(active)) return;
  queueMicrotask(() => {
    if (screen() === "lobby") byId("quick-match").focus();
  });
}

function startPending() {
  const start = app.pending;
  if (start === null || state.race !== null) return;
  app.pending = null;
  if (start.type === "join_room") clearHash();
  app.send(start);
}

function resync() {
  const race = state.race;
  if (race?.watching) app.send({ type: "watch", game_id: race.gameId });
  else app.connection?.resync();
}

/**
 * Who is provisional (client/textual_app.py does the same): game_start gives ratings as
 * plain numbers, so a rated race's players' profiles are asked for, and one's own again
 * after a rated race. Until they answer, or if they cannot, a rating has no mark.
 */
function lookUpRatings(message) {
  const race = state.race;
  let names = [];
  if (["game_start", "game_state"].includes(message.type) && race?.ratings.some((r) => r !== null && r !== undefined)) {
    names = race.players.filter((name, seat) => !race.bots[seat]);
  } else if (message.type === "game_over" && message.ratings && state.me) {
    names = [state.me.name];
  }
  for (const name of names) {
    api.player(name).then((profile) => {
      state.profiled(profile);
      render();
    }, () => {}); // no answer: the rating stays without a mark
  }
}

async function verifyDeal(race) {
  race.checking = true;
  let dealt = race.dealt;
  if (!dealt) {
    try {
      dealt = (await api.race(race.gameId)).boards ?? null; // the record has the boards as dealt
    } catch {
      dealt = null;
    }
  }
  race.dealCheck = await checkDeal({ rules: race.rules, commits: race.commits, seeds: race.over.seeds, dealt });
  if (state.race === race) render();
}

// -- screens ----------------------------------------------------------------------

function screen() {
  if (state.banned !== null) return "banned";
  const where = route();
  if (where.page !== "play") return "page";
  if (state.race) return "race";
  if (state.me || (app.connection && !app.connection.stopped)) return "lobby";
  return "signin";
}

function showSignin(error = "", name = "") {
  byId("signin-error").textContent = error;
  if (name) byId("name").value = name;
  render();
  byId("name").focus();
}

function signinWhy() {
  const start = app.pending;
  if (start?.type === "join_room") return t("signin.why_room", { code: start.code });
  if (start?.type === "watch") return t("signin.why_watch");
  return t("signin.why");
}

function render() {
  const shown = screen();
  for (const id of ["signin", "lobby", "race", "page", "banned"]) byId(id).hidden = shown !== id;
  renderHeader();
  if (shown === "banned") renderBanned(state);
  if (shown === "signin") setText(byId("signin-why"), signinWhy());
  if (shown === "lobby") renderLobby(state, actions.lobbyHandlers, now());
  if (shown === "race") {
    renderRace(state, now(), { onCard: (code) => actions.play(code) });
    focusResult();
  }
  if (shown === "page") renderRaceBanner();
  renderArenaPanel(state, shown, actions.lobbyHandlers);
}

function focusResult() {
  const race = state.race;
  if (!race?.over || app.overShown === race.gameId) return;
  app.overShown = race.gameId;
  const active = document.activeElement;
  if (!active || active === document.body || byId("race").contains(active)) byId("result-headline")?.focus();
}

function renderHeader() {
  const me = state.me;
  const shown = me?.bot ? botLabel(me.name) : me?.name;
  setText(byId("me"), me ? (me.rating ? t("page.me_rating", { name: shown, rating: ratingText(me.rating) }) : shown) : "");
  const profile = byId("nav-profile");
  profile.hidden = !me;
  if (me) profile.href = `#player=${encodeURIComponent(me.name)}`;
  byId("change-player").hidden = !me || state.race !== null;
  const words = {
    offline: "",
    connecting: `◌ ${t("link.connecting")}`,
    reconnecting: `◌ ${t("link.reconnecting")}`,
    online: `● ${t("link.online")}`,
    replaced: t("link.replaced"),
    failed: `✕ ${t("link.failed")}`,
  }[state.link];
  setText(byId("link-state"), words);
  byId("link").dataset.link = state.link;
  setText(byId("link-reason"), state.linkReason);
  byId("reconnect").hidden = !["reconnecting", "connecting", "replaced"].includes(state.link) || !state.linkReason;
}

function renderRaceBanner() {
  const race = state.race;
  byId("race-banner").hidden = !(race && race.over === null);
}

function tick() {
  const at = now();
  const shown = screen();
  if (shown === "race") tickRace(state, at);
  if (shown === "lobby") tickLobby(state, at);
  tickArena(state);
  if (shown === "lobby" && app.connection?.online && !document.hidden && at - app.lastPoll >= LOBBY_POLL_S) {
    app.lastPoll = at;
    app.send({ type: "lobby" });
  }
  const retry = state.retryAt;
  setText(byId("link-retry"), retry !== null && state.link !== "online" && state.link !== "failed"
    ? t("link.retry", { seconds: Math.max(0, Math.ceil(retry - at)), attempt: state.attempt }) : "");
}

// -- pages from the HTTP API ------------------------------------------------------

const loadPage = () => showPage(app);

function routed() {
  const where = route();
  if (where.page === "play" && where.action) {
    app.pending = where.action;
    if (app.connection?.online && state.lobby && !state.resuming) startPending();
  }
  loadPage();
  render();
}

// -- start ------------------------------------------------------------------------

/** Sign in afresh, under another name (the stored ones stay for their names). */
function changePlayer() {
  app.connection?.stop();
  app.connection = null;
  app.welcomedBefore = false;
  app.pending = null;
  Object.assign(state, new AppState());
  showSignin();
}

/** Every word on screen again, in the language just chosen (nothing if the page's own
 * body was replaced, as a test of a single view does). */
function relabel() {
  if (!byId("page-body")) return;
  translateStatic();
  drawLanguageSwitch();
  setText(byId("name-rule"), nameRule());
  labelRulesForm();
  labelBotForm();
  loadPage();
  render();
}

function bind() {
  translateStatic();
  drawLanguageSwitch();
  onLanguageChange(relabel);
  setText(byId("name-rule"), nameRule());
  byId("name").maxLength = NAME_MAX;
  bindRulesForm();
  bindBotForm();
  actions.bind();
  byId("signin-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = byId("name").value.trim();
    const problem = nameProblem(name);
    byId("signin-error").textContent = problem;
    if (problem) return;
    connect(name);
  });
  byId("change-player").addEventListener("click", changePlayer);
  byId("banned-other").addEventListener("click", changePlayer);
  byId("reconnect").addEventListener("click", () => {
    if (state.link === "replaced") connect(state.me?.name ?? loadIdentity(WS_URL)?.name ?? "");
    else app.connection?.retryNow();
  });
  window.addEventListener("hashchange", routed);
  document.addEventListener("keydown", (event) => {
    if (screen() === "race" && raceKey(event, state.race, actions.raceKeys)) event.preventDefault();
    else if (helpKey(event)) location.hash = "howto";
  });
  actions.onLeaveRace = (race) => forgetRace(race.gameId);
}

/** "?" opens How to play, from anywhere but a field or a dialog. */
function helpKey(event) {
  if (event.defaultPrevented || event.key !== "?" || event.ctrlKey || event.metaKey || event.altKey) return false;
  return !(event.target instanceof Element && event.target.closest("input, select, textarea, dialog"));
}

try {
  await startLanguage();
} catch {
  // No catalogue came (a server without them): the keys show, and the page still works.
}
bind();
const identity = loadIdentity(WS_URL);
if (identity) connect(identity.name);
loadPage();
render();
if (screen() === "signin") byId("name").focus();
setInterval(tick, 250);
tick();
window.flowergarden = { state, route }; // for people poking at the page from the console
