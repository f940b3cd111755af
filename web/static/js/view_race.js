// The race screen: who races whom, the stopwatch and the clock, one's own board large
// (its cards buttons) and the opponent's live beside it, the idle warning, the controls,
// and at the end the result. Timers are redrawn four times a second by tick(); the rest
// when a message changes the state.

import { boardView } from "./view_board.js";
import { ghostWords } from "./view_daily.js";
import { byId, h, setText, swap } from "./dom.js";
import { morph } from "./morph.js";
import { outcomeOf, renderReport, resultView } from "./view_result.js";
import { clockText, IDLE_WARNING, stopwatchText } from "./timing.js";
import { t } from "./i18n.js";
import { idleLeftWords, isRacing, playerNames, ratingText, rulesWords, statusWords } from "./words.js";

function boardHeader(race, seat) {
  const name = playerNames(race.players, race.bots)[seat];
  const who = seat === race.seat ? t("race.you", { name }) : name;
  const status = statusWords(race.statuses[seat]);
  const away = seat !== race.seat && race.awayUntil !== null && race.over === null ? t("race.dropped") : "";
  const redeal = race.rules.redeals && race.boards[seat].redealsLeft ? t("race.redeal_left") : "";
  return [who, `${race.boards[seat].count}/52`, status, redeal, away].filter(Boolean).join(" · ");
}

function barView(race) {
  const names = playerNames(race.players, race.bots).map((name, seat) => {
    const rating = race.ratings[seat];
    if (rating === null || rating === undefined) return name;
    return `${name} ${ratingText({ rating, provisional: race.provisional[seat] })}`;
  });
  const liveClock = race.clockDeadline !== null && race.over === null;
  const counts = race.players.map((name, seat) => `${name} ${race.boards[seat].count}/52`).join(" · ");
  return [
    h("h2", { class: "vs" }, names.join(t("race.vs")), race.watching ? h("span", { class: "watching" }, ` ${t("race.watching")}`) : null),
    h("p", { class: "rules" }, rulesWords(race.rules, { clock: !liveClock })),
    race.kind.daily ? h("p", { class: "ghost", id: "ghost-words" }, ghostWords(race)) : null,
    h(
      "p",
      { class: "timers" },
      h("span", { id: "stopwatch", role: "timer", "aria-label": t("race.stopwatch_label") }),
      h("span", { id: "clock", role: "timer", "aria-label": t("race.clock_label"), hidden: !liveClock }),
      h("span", { id: "race-counts", class: "counts" }, counts),
      h("span", { id: "away", class: "away", hidden: true }),
    ),
  ];
}

/**
 * Draw each board into its slot, but only a board that changed: a play redraws one board,
 * not both (on a slow phone, drawing is most of what a play costs).
 */
function drawBoards(makers) {
  const boards = byId("boards");
  makers.forEach((make, i) => {
    let slot = boards.children[i];
    if (!slot) {
      slot = h("div", { class: "board-slot" });
      boards.append(slot);
    }
    if (slot.dataset.signature === make.signature) return;
    slot.dataset.signature = make.signature;
    const active = document.activeElement;
    const keyboard = slot.contains(active) && active.matches(":focus-visible");
    const drawn = make();
    if (slot.firstElementChild?.id === drawn.id) morph(slot.firstElementChild, drawn);
    else slot.replaceChildren(drawn);
    // A card played from the keyboard is gone: the focus goes on to a card that plays next.
    if (keyboard && !active.isConnected) focusFallback(`card:${active.dataset.card}`)?.focus({ preventScroll: true });
  });
}

function focusFallback(key) {
  if (!key.startsWith("card:")) return null;
  const own = document.querySelector('[data-board="own"]');
  return own?.querySelector('[data-playable="true"]') ?? own?.querySelector("button.front, .bouquet button") ?? own;
}

export function renderRace(state, now, { onCard }) {
  const race = state.race;
  byId("race").dataset.gameId = race.gameId;
  swap(byId("race-bar"), barView(race));
  const player = !race.watching;
  const mainBoard = player ? race.projected() : race.board;
  const live = (seat) => (seat === race.seat ? race.canPlay : race.over === null && isRacing(race.statuses[seat]));
  const board = (seat, shown, kind, interactive) => {
    const header = boardHeader(race, seat);
    const make = () => boardView({
      board: shown, labels: interactive ? race.labels : null, kind, seat, header, live: live(seat), interactive, onCard,
      bot: Boolean(race.bots[seat]),
    });
    // What the drawing depends on: when it is unchanged, the board is not drawn again.
    make.signature = JSON.stringify([race.gameId, kind, seat, shown, header, live(seat), interactive && [...race.labels]]);
    return make;
  };
  const main = board(race.main, mainBoard, player ? "own" : "watched", player);
  const other = board(race.other, race.boards[race.other], player ? "opponent" : "watched", false);
  drawBoards([main, other]);
  renderControls(race);
  renderResult(state);
  const notice = byId("race-notice");
  setText(notice, state.notice);
  notice.classList.toggle("error", state.noticeError);
  tickRace(state, now);
}

function renderControls(race) {
  const player = !race.watching;
  const live = player && race.over === null;
  byId("race-controls").hidden = !live;
  byId("key-hints").hidden = !live;
  const redeal = byId("redeal");
  redeal.hidden = !race.rules.redeals;
  byId("redeal-hint").hidden = !race.rules.redeals; // no redeal: none is named
  const board = race.board;
  redeal.disabled = !(race.canPlay && board.redealsLeft > 0 && board.playable().length === 0);
  byId("resign").disabled = !live;
}

function renderResult(state) {
  const race = state.race;
  const result = byId("result");
  const over = race.over;
  result.hidden = over === null;
  if (over === null) {
    result.removeAttribute("data-result");
    result.removeAttribute("data-outcome");
    return;
  }
  result.dataset.result = over.result;
  result.dataset.outcome = outcomeOf(race);
  swap(byId("result-text"), resultView(race, { idleS: race.idleS, state }));
  const rematch = byId("rematch");
  rematch.hidden = race.watching;
  rematch.disabled = race.rematchAsked;
  renderReport(race);
}

/** The parts that change with time alone: stopwatch, clock, idle warning, the opponent's grace. */
export function tickRace(state, now) {
  const race = state.race;
  if (!race) return;
  setText(byId("stopwatch"), t("race.stopwatch", { time: stopwatchText(race.elapsed(now)) }));
  const clock = byId("clock");
  if (clock && race.clockDeadline !== null && race.over === null) {
    const left = race.clockDeadline - now;
    setText(clock, t("race.clock_left", { time: clockText(left) }));
    clock.classList.toggle("urgent", left < 30);
  }
  const away = byId("away");
  if (away) {
    const showAway = race.awayUntil !== null && race.over === null;
    away.hidden = !showAway;
    if (showAway) {
      const name = race.players[race.other];
      setText(away, t("race.away", { name, time: clockText(race.awayUntil - now) }));
    }
  }
  const idle = byId("idle");
  const left = race.idleLeft(now);
  const warn = left !== null && left <= IDLE_WARNING && !race.resyncing;
  idle.hidden = !warn;
  // The alert's words are set once as the warning shows (and so are said once); the
  // seconds beside them change without being announced every second.
  setText(byId("idle-alert"), warn ? t("race.idle_alert", { seconds: race.idleS }) : "");
  if (warn) setText(byId("idle-left"), idleLeftWords(clockText(left), race.board.redealsLeft > 0));
}
