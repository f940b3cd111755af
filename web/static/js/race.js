// One race as this page sees it (client/race_view.py): both boards, kept in step by
// applying each event with the board's own moves, the statuses, the times, and the end.
// Times are of two kinds: this page's clock (performance.now() in seconds) for what it
// counts down, and the server's t_ms for what it reports (times_ms).

import { Board } from "./board.js";
import { assignLabels } from "./keys.js";
import { t } from "./i18n.js";
import { isRacing } from "./words.js";

export class Race {
  /** From game_start or game_state; ``previous``: this page's earlier copy of the same race. */
  constructor(message, { now, idleS = null, previous = null, remembered = null }) {
    const same = previous !== null && previous.gameId === message.game_id;
    const kept = same ? previous : remembered;
    this.gameId = message.game_id;
    this.seat = message.seat ?? null;
    this.players = [...message.players];
    this.bots = [...(message.bots ?? [])];
    this.ratings = [...(message.ratings ?? [])];
    /** Whether each seat's rating is provisional, as far as known (welcome, the API); null: not known. */
    this.provisional = this.ratings.map(() => null);
    this.rules = message.rules;
    this.boards = message.boards.map((board) => Board.fromWire(board));
    this.statuses = message.boards.map((board) => board.status);
    this.seq = message.seq;
    this.commits = [...(message.commits ?? [])];
    this.idleS = idleS;
    this.labels = same ? new Map(previous.labels) : new Map();
    this.dealt = kept?.dealt ?? null;
    this.sent = [];
    this.over = null;
    this.dealCheck = null;
    this.stoppedAfter = null;
    this.awayUntil = null;
    this.rematchOffered = false;
    this.rematchAsked = false;
    this.resyncing = false;
    /** This page's report of the race: null, or {state: writing, sending, done or refused, words}. */
    this.report = same ? previous.report : null;
    // What kind of race: game_start says it (game_state does not, so a resumed race keeps it).
    const kind = message.type === "game_start" ? message : (kept?.kind ?? {});
    this.kind = { daily: kind.daily ?? null, ghost: kind.ghost ?? null, arena_id: kind.arena_id ?? null };
    if (message.type === "game_start") {
      this.dealt = message.boards;
      this.startedAt = now;
      const limit = message.rules.time_limit_s;
      this.clockDeadline = limit === null || limit === undefined ? null : now + limit;
    } else {
      this.startedAt = now - message.elapsed_ms / 1000;
      const left = message.clock_left_ms;
      this.clockDeadline = left === null || left === undefined ? null : now + left / 1000;
    }
    this.restartIdle(now);
    this.relabel();
  }

  /** The seat drawn large: one's own, or seat 0 for a spectator. */
  get main() {
    return this.seat ?? 0;
  }

  get other() {
    return 1 - this.main;
  }

  get board() {
    return this.boards[this.main];
  }

  get watching() {
    return this.seat === null;
  }

  /** Whether this page plays in the race and its count is not final yet. */
  get racing() {
    return this.seat !== null && this.over === null && isRacing(this.statuses[this.seat]);
  }

  get canPlay() {
    return this.racing && !this.resyncing;
  }

  whyNotPlaying() {
    if (this.seat === null) return t("race.you_watch");
    if (this.over !== null) return t("error.game_over");
    if (this.resyncing) return t("race.catching_up");
    return t("race.count_final", { status: t(`status.${this.statuses[this.seat]}`) });
  }

  // -- time -------------------------------------------------------------------

  elapsed(now) {
    return this.stoppedAfter ?? Math.max(0, now - this.startedAt);
  }

  stop(now) {
    if (this.stoppedAfter === null) this.stoppedAfter = this.elapsed(now);
  }

  restartIdle(now) {
    this.idleDeadline = this.idleS && this.seat !== null ? now + this.idleS : null;
  }

  /** Seconds to one's own idle limit while it runs (one's count not final); else null. */
  idleLeft(now) {
    return this.idleDeadline === null || !this.racing ? null : this.idleDeadline - now;
  }

  // -- plays ------------------------------------------------------------------

  /** The main board with the plays sent but not yet acknowledged made: what the next key acts on. */
  projected() {
    if (!this.sent.length) return this.board;
    const board = this.board.copy();
    for (const card of this.sent) if (board.isLegal(card)) board.play(card);
    return board;
  }

  relabel() {
    this.labels = assignLabels(this.labels, this.board.bouquet);
  }

  /** Apply one race event: "skip" (seen already), "ok", or "drift" (this copy is out of step). */
  apply(message, now) {
    if (message.seq <= this.seq) return "skip";
    if (message.seq !== this.seq + 1 || !this.applyEvent(message, now)) return "drift";
    this.seq = message.seq;
    return "ok";
  }

  applyEvent(message, now) {
    if (message.type === "game_over") {
      this.end(message, now);
      return true;
    }
    const seat = message.seat;
    if (!(seat in this.boards)) return false;
    if (message.type === "played") {
      const board = this.boards[seat];
      if (!board.isLegal(message.card)) return false;
      board.play(message.card);
      if (board.count !== message.count) return false;
      const sent = this.sent.indexOf(message.card);
      if (seat === this.seat && sent >= 0) this.sent.splice(sent, 1);
      this.statuses[seat] = message.status;
    } else if (message.type === "redealt") {
      this.boards[seat] = Board.fromWire(message.board);
      this.statuses[seat] = message.board.status;
      if (seat === this.main) this.labels = new Map();
    } else {
      this.statuses[seat] = message.status;
    }
    if (seat === this.seat && message.type !== "status") this.restartIdle(now);
    if (seat === this.main) this.relabel();
    return true;
  }

  end(over, now) {
    this.over = over;
    this.stop(now);
  }
}
