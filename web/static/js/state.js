// Everything the page shows, fed by server messages (client/state.py): the views only
// draw it. apply() takes each message with this page's clock; it answers true when the
// race on screen has drifted from the server's (a skipped seq), and the page then
// catches up: a player by reconnecting (the server resumes with game_state), a
// spectator by watching again.
//
// A race can also be gone when the page comes back: the server sends a returning
// player's game_state right after welcome, and the page asks for a lobby snapshot after
// that; a snapshot that comes first means no game_state is coming (``resuming``).

import { ERROR } from "./facts.js";
import { t } from "./i18n.js";
import { Race } from "./race.js";
import { errorWords, RATED_ID, REPORT_ID } from "./words.js";

/** A refused report in words, by code: the page offers a report only of one's own
 * finished race, so not_allowed means reported already. */
const REPORT_REFUSALS = {
  [ERROR.not_allowed]: "report.already",
  [ERROR.rate_limited]: "report.too_many",
};

export class AppState {
  constructor() {
    this.me = null; // {name, playerId, rating}
    this.limits = null;
    this.link = "offline";
    this.linkReason = "";
    this.retryAt = null;
    this.attempt = 0;
    this.lobby = null;
    this.waiting = null; // {kind: "seeking" | "room", rules, code, bot, botAt}
    this.askedBot = null; // the last seek's `bot`: "seeking" does not echo it
    this.askedRated = null; // the last rated seek or room asked for: {kind, rules, public}
    this.race = null;
    this.resuming = null;
    this.notice = "";
    this.noticeError = false;
    this.banned = null; // {name}: the server banned this player; the page stays away
    this.ratedRefused = null; // {kind, rules, words}: a rated seek or room was not_allowed
    this.daily = { today: null, streak: null }; // GET /api/daily, and one's daily_streak
    this.arena = null; // the last `arena` message of the arena this player joined
  }

  note(text, { error = false } = {}) {
    this.notice = text;
    this.noticeError = error;
  }

  setLink(link, { reason = "", attempt = 0, retryAt = null } = {}) {
    Object.assign(this, { link, attempt, retryAt, linkReason: link === "online" ? "" : reason });
  }

  /** The server banned ``name`` (a refused hello, or close 4001): nothing else shows. */
  banish(name) {
    Object.assign(this, { banned: { name }, me: null, race: null, waiting: null, resuming: null });
    this.note("");
  }

  leaveRace() {
    this.race = null;
    this.note("");
  }

  /** Apply one server message; true means the race on screen needs catching up. */
  apply(message, now, { remembered = null } = {}) {
    switch (message.type) {
      case "played":
      case "redealt":
      case "status":
      case "game_over":
        return this.raceEvent(message, now);
      case "game_start":
      case "game_state":
        this.newRace(message, now, remembered);
        break;
      case "welcome":
        this.me = { name: message.name, playerId: message.player_id, rating: message.rating ?? null, bot: Boolean(message.bot) };
        this.limits = message.limits ?? null;
        this.waitForResume();
        break;
      case "lobby":
        this.lobby = message;
        if (this.resuming !== null) this.raceGone();
        break;
      case "seeking":
        this.seeking(message, now);
        break;
      case "room":
        this.waiting = { kind: "room", rules: message.rules, code: message.code };
        break;
      case "cancelled":
        this.waiting = null;
        break;
      case "opponent_away":
      case "opponent_back":
      case "rematch_offered":
        this.opponent(message, now);
        break;
      case "arena":
        this.arena = message.joined ? message : null;
        break;
      case "reported":
        if (this.race?.gameId === message.game_id) this.race.report = { state: "done", words: "" };
        break;
      case "error":
        this.error(message);
        break;
      default:
        break; // a message type this page does not know: ignored, as PROTOCOL.md asks
    }
    return false;
  }

  /** A seek or a room was asked for: its `bot` (or null), for the countdown once
   * "seeking" comes; a rated one's kind and rules, to offer them unrated if refused. */
  asked(message) {
    if (message.type === "seek") this.askedBot = message.bot ?? null;
    if (message.rules?.rated) {
      this.askedRated = { kind: message.type, rules: message.rules, public: message.public ?? false };
      this.ratedRefused = null;
    }
  }

  /** The server's answer to this page's report of the race on screen, a refusal. */
  reportRefused(message) {
    if (this.race === null) return;
    const key = REPORT_REFUSALS[message.code];
    this.race.report = { state: "refused", words: key ? t(key) : errorWords(message) };
  }

  seeking(message, now) {
    const bot = this.askedBot;
    this.askedBot = null;
    this.waiting = { kind: "seeking", rules: message.rules, bot, botAt: bot ? now + bot.after_s : null };
  }

  waitForResume() {
    const race = this.race;
    this.resuming = race !== null && race.over === null ? race.gameId : null;
  }

  raceGone() {
    const watched = this.race?.watching;
    this.resuming = null;
    this.race = null;
    this.note(t(watched ? "race.watched_gone" : "race.gone"), { error: true });
  }

  newRace(message, now, remembered) {
    const previous = this.race;
    const same = previous?.gameId === message.game_id;
    this.resuming = null;
    const race = new Race(message, {
      now,
      idleS: this.limits?.idle_s ?? null,
      previous,
      remembered: same ? null : remembered,
    });
    this.race = race;
    this.waiting = null;
    if (race.seat !== null && this.me?.rating) race.provisional[race.seat] = this.me.rating.provisional;
    if (message.type === "game_state" && message.over) race.end(message.over, now);
    if (!same) this.note("");
  }

  raceEvent(message, now) {
    const race = this.race;
    if (race === null || race.gameId !== message.game_id || race.resyncing) return false;
    const applied = race.apply(message, now);
    if (applied === "ok" && message.type === "game_over") this.rated(message);
    if (applied !== "drift") return false;
    race.resyncing = true;
    this.note(t("race.catching_up"), { error: true });
    return true;
  }

  /** A rated race ended: one's own rating is its new one at once (whether it is still
   * provisional, the profile says: see ``profiled``). */
  rated(over) {
    const seat = this.race?.seat ?? null;
    const change = seat === null ? null : over.ratings?.[seat];
    if (!change || !this.me) return;
    this.me.rating = { rating: change.after, provisional: this.me.rating?.provisional ?? null };
  }

  /** A player's profile came (GET /api/players/NAME): who is provisional, oneself included. */
  profiled(profile) {
    const same = (name) => name.toLowerCase() === profile.name.toLowerCase();
    if (this.me && same(this.me.name)) {
      this.me.rating = { rating: profile.rating, provisional: profile.provisional };
    }
    this.race?.players.forEach((name, seat) => {
      if (same(name)) this.race.provisional[seat] = profile.provisional;
    });
  }

  opponent(message, now) {
    const race = this.race;
    if (race === null || race.gameId !== message.game_id) return;
    if (message.type === "opponent_away") race.awayUntil = now + message.grace_s;
    else if (message.type === "opponent_back") race.awayUntil = null;
    else race.rematchOffered = true;
  }

  error(message) {
    if (message.id === REPORT_ID) return this.reportRefused(message);
    if (message.id === RATED_ID && message.code === ERROR.not_allowed) {
      this.ratedRefused = { ...this.askedRated, words: message.message };
      this.note("");
      return;
    }
    this.note(errorWords(message), { error: true });
    const race = this.race;
    if (race === null) return;
    race.sent = []; // whatever was in flight is refused or stale
    if (message.code === ERROR.game_not_found) race.rematchAsked = false;
  }
}
