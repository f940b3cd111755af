// What the player does: start a match or a room, race a bot, join, watch, play a card (checked here
// first, so that a card that cannot go up is answered at once, in the server's words,
// without a round trip), redeal, resign (after asking), rematch, back to the lobby.

import { botLevel, readBotAfter } from "./bot_form.js";
import { parseLenient } from "./cards.js";
import { REPORT_REASON_MAX } from "./facts.js";
import { t } from "./i18n.js";
import { byId } from "./dom.js";
import { resolveKey } from "./keys.js";
import { clearHash, route } from "./routes.js";
import { readRules, writeRules } from "./rules_form.js";
import { REMATCH_ID, REPORT_ID } from "./words.js";

/** A seek, with `bot` when one is wanted. */
const seekWith = (rules, bot) => (bot ? { type: "seek", rules, bot } : { type: "seek", rules });

export class Actions {
  constructor(app) {
    this.app = app;
    this.onLeaveRace = null;
    this.lobbyHandlers = {
      onCancel: () => this.send({ type: "cancel" }),
      onCopy: (link) => this.copy(link),
      onSeekSame: (rules) => {
        writeRules(rules);
        this.send(seekWith(rules, readBotAfter()));
      },
      onJoinCode: (code) => this.send({ type: "join_room", code }),
      onJoinArena: (arenaId) => this.send({ type: "join_arena", arena_id: arenaId }),
      onPauseArena: () => this.send({ type: "leave_arena" }),
      onCloseArena: () => {
        this.state.arena = null;
        this.app.render();
      },
    };
    this.raceKeys = {
      key: (key) => this.key(key),
      rematch: () => this.rematch(),
      redeal: () => this.redeal(),
      resign: () => this.resign(),
      prompt: () => byId("card-input").focus(),
      back: () => this.back(),
    };
  }

  get state() {
    return this.app.state;
  }

  send(message) {
    const sent = this.app.send(message);
    this.app.render();
    return sent;
  }

  note(text, error = true) {
    this.state.note(text, { error });
    this.app.render();
  }

  bind() {
    byId("start-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.start("seek");
    });
    byId("create-room").addEventListener("click", () => this.start("create_room"));
    byId("race-bot").addEventListener("click", () => this.raceBot());
    byId("daily-race").addEventListener("click", () => this.raceDaily());
    byId("join-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const code = byId("room-code").value.trim().toUpperCase();
      if (!code) return this.note(t("lobby.type_code"));
      this.send({ type: "join_room", code });
    });
    byId("redeal").addEventListener("click", () => this.redeal());
    byId("resign").addEventListener("click", () => this.resign());
    byId("rematch").addEventListener("click", () => this.rematch());
    byId("back-to-lobby").addEventListener("click", () => this.back());
    byId("confirm-resign").addEventListener("close", () => {
      if (byId("confirm-resign").returnValue === "resign") this.send({ type: "resign" });
      byId("resign").focus();
    });
    this.bindReport();
    byId("race-unrated").addEventListener("click", () => this.raceUnrated());
    byId("rated-refused-close").addEventListener("click", () => {
      this.state.ratedRefused = null;
      this.app.render();
      byId("quick-match").focus();
    });
    byId("card-prompt").addEventListener("submit", (event) => {
      event.preventDefault();
      const input = byId("card-input");
      const text = input.value;
      input.value = "";
      const card = parseLenient(text);
      if (card === null) return this.note(t("race.not_a_card", { text: text.trim() }));
      this.play(card);
    });
  }

  start(kind) {
    const read = readRules();
    if (read.error) return this.note(read.error);
    if (kind === "seek") this.send(seekWith(read.rules, readBotAfter()));
    else this.send({ type: "create_room", rules: read.rules, public: byId("public").checked });
  }

  /** A bot of the chosen level at once, with the form's rules (never rated); a quick match
   * already waiting is given up for it. */
  raceBot() {
    const read = readRules();
    if (read.error) return this.note(read.error);
    const rules = { ...read.rules };
    delete rules.rated;
    if (this.state.waiting?.kind === "room") return this.note(t("lobby.close_room_bot"));
    if (this.state.waiting?.kind === "seeking") this.app.send({ type: "cancel" });
    this.send(seekWith(rules, { after_s: 0, level: botLevel() }));
  }

  /** A rated seek or room was refused (not_allowed): the same, unrated, and the form
   * says unrated from now on. */
  raceUnrated() {
    const refused = this.state.ratedRefused;
    if (!refused) return;
    this.state.ratedRefused = null;
    const rules = { ...refused.rules, rated: false };
    writeRules(rules);
    if (refused.kind === "create_room") this.send({ type: "create_room", rules, public: refused.public });
    else this.send(seekWith(rules, readBotAfter()));
    byId("quick-match").focus();
  }

  // -- the result ---------------------------------------------------------------

  bindReport() {
    byId("report-reason").maxLength = REPORT_REASON_MAX;
    byId("report-open").addEventListener("click", () => {
      const race = this.state.race;
      if (!race?.over) return;
      race.report = { state: "writing", words: "" };
      this.app.render();
      byId("report-reason").focus();
    });
    byId("report-cancel").addEventListener("click", () => {
      if (this.state.race) this.state.race.report = null;
      this.app.render();
      byId("report-open").focus();
    });
    byId("report-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.report(byId("report-reason").value.trim());
    });
  }

  /** Report the race on screen to the server's operator, once; its answer shows beside it. */
  report(reason) {
    const race = this.state.race;
    if (!race?.over || race.report?.state !== "writing") return;
    const message = { type: "report", game_id: race.gameId, id: REPORT_ID };
    if (reason) message.reason = reason;
    if (!this.app.send(message)) return this.app.render();
    race.report = { state: "sending", words: "" };
    byId("report-reason").value = "";
    this.app.render();
    byId("report-state").focus(); // the form is gone: the keyboard goes on from its answer
  }

  /** Today's daily deal at once, against the ghost (or the bot before anyone cleared it);
   * a quick match already waiting is given up for it, as for a bot. */
  raceDaily() {
    if (this.state.waiting?.kind === "room") return this.note(t("lobby.close_room_daily"));
    if (this.state.waiting?.kind === "seeking") this.app.send({ type: "cancel" });
    this.send({ type: "daily" });
  }

  async copy(link) {
    try {
      await navigator.clipboard.writeText(link);
      this.note(t("lobby.link_copied"), false);
    } catch {
      const input = byId("room-link");
      input?.select();
      this.note(t("lobby.link_selected"), false);
    }
  }

  // -- the race -----------------------------------------------------------------

  /** Play ``code`` if it may go up now, else say why at once. */
  play(code) {
    const race = this.state.race;
    if (!race) return;
    if (!race.canPlay) return this.note(race.whyNotPlaying());
    const refusal = race.projected().whyIllegal(code);
    if (refusal) return this.note(refusal);
    this.state.note("");
    if (this.app.send({ type: "play", card: code })) race.sent.push(code);
    this.app.render();
  }

  key(key) {
    const race = this.state.race;
    if (!race) return;
    if (!race.canPlay) return this.note(race.whyNotPlaying());
    const found = resolveKey(key, race.projected(), race.labels);
    if (found?.refusal) return this.note(found.refusal);
    if (found?.card) this.play(found.card);
  }

  redeal() {
    const race = this.state.race;
    if (!race) return;
    if (!race.canPlay) return this.note(race.whyNotPlaying());
    const board = race.board;
    if (!board.redealsLeft) return this.note(t("race.no_redeal"));
    if (board.playable().length) return this.note(t("race.redeal_when_stuck"));
    this.send({ type: "redeal" });
  }

  resign() {
    const race = this.state.race;
    if (!race || race.watching || race.over) return this.note(race ? race.whyNotPlaying() : t("error.not_in_game"));
    const dialog = byId("confirm-resign");
    dialog.returnValue = "";
    dialog.showModal();
  }

  rematch() {
    const race = this.state.race;
    if (!race?.over || race.watching) return this.note(t("race.rematch_after"));
    if (this.app.send({ type: "rematch", id: REMATCH_ID })) race.rematchAsked = true;
    this.app.render();
  }

  back() {
    const race = this.state.race;
    if (!race) return;
    if (!race.watching && race.over === null) return this.note(t("race.resign_to_leave"), false);
    if (race.watching && race.over === null) this.app.send({ type: "cancel" }); // stop watching
    if (route().action?.type === "watch") clearHash();
    this.onLeaveRace?.(race);
    this.state.leaveRace();
    this.send({ type: "lobby" });
    byId("quick-match").focus();
  }
}
