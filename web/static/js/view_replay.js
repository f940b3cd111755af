// The replay of a finished race: both boards at any move, stepped by hand or played at
// the pace the race went (faster if asked), with the record's deal checked.

import { formatNumber, t } from "./i18n.js";
import { cardShort } from "./cards.js";
import { byId, h, setText, swap } from "./dom.js";
import { buildReplay } from "./replay.js";
import { secondsText } from "./timing.js";
import { checkDeal } from "./verify.js";
import { boardView } from "./view_board.js";
import { outcomeWords, playerNames, rulesWords } from "./words.js";

const LONGEST_PAUSE_MS = 1500;

export async function replayView(api, gameId, { onLeave }) {
  const record = await api.race(gameId);
  const { frames, stopped } = await buildReplay(record);
  const names = playerNames(record.players, record.bots ?? []);
  let at = 0;
  let speed = 1;
  let timer = null;

  const boards = h("div", { class: "boards", id: "replay-boards" });
  const where = h("p", { class: "where", id: "replay-where", "aria-live": "polite" });
  const slider = h("input", { type: "range", id: "replay-move", min: "0", max: String(frames.length - 1), value: "0", step: "1" });
  const play = h("button", { type: "button", id: "replay-play" }, t("replay.play"));

  const show = () => {
    const frame = frames[at];
    swap(boards, frame.boards.map((board, seat) => boardView({
      board, kind: "replay", seat, live: false, header: `${names[seat]} · ${board.count}/52`,
    })));
    slider.value = String(at);
    const move = frame.move;
    const what = move === null ? t("replay.as_dealt")
      : t(move.card === "redeal" ? "replay.redealt" : "replay.played", {
        name: record.players[move.seat], card: move.card === "redeal" ? "" : cardShort(move.card), time: secondsText(move.t_ms),
      });
    setText(where, t("replay.where", { at, last: frames.length - 1, what }));
  };
  const pause = () => {
    clearTimeout(timer);
    timer = null;
    setText(play, t("replay.play"));
  };
  const step = (to) => {
    at = Math.max(0, Math.min(frames.length - 1, to));
    show();
  };
  const schedule = () => {
    if (at >= frames.length - 1) return pause();
    const now = frames[at].move?.t_ms ?? 0;
    const wait = Math.min(LONGEST_PAUSE_MS, Math.max(0, frames[at + 1].move.t_ms - now)) / speed;
    timer = setTimeout(() => {
      step(at + 1);
      schedule();
    }, wait);
  };
  play.addEventListener("click", () => {
    if (timer !== null) return pause();
    if (at >= frames.length - 1) step(0);
    setText(play, t("replay.pause"));
    schedule();
  });
  slider.addEventListener("input", () => {
    pause();
    step(Number(slider.value));
  });
  const button = (id, label, to) => h("button", { type: "button", id, onclick: () => { pause(); step(to()); } }, label);
  const speedSelect = h("select", { id: "replay-speed", onchange: (event) => { speed = Number(event.target.value); } },
    [1, 2, 4, 10].map((n) => h("option", { value: String(n) }, `${formatNumber(n)}×`)));

  const summary = { result: record.result, winner: record.winner, reason: record.reason, counts: record.counts };
  const [headline, reason] = outcomeWords(summary, null, record.players);
  const deal = h("p", { class: "deal pending", id: "replay-deal" }, t("deal.checking"));
  const verifiable = record.dealing === undefined || record.dealing === "sha256";
  if (verifiable) {
    checkDeal({ rules: record.rules, commits: record.commits, seeds: record.seeds, dealt: record.boards }).then((check) => {
      deal.className = `deal ${check.ok ? "ok" : "bad"}`;
      setText(deal, check.words);
    });
  } else {
    deal.className = "deal";
    setText(deal, t("deal.old"));
  }
  onLeave(pause);
  const nodes = [
    h("h2", { id: "page-title", tabindex: "-1" }, t("replay.title", { names: names.join(t("race.vs")) })),
    h("p", {}, `${headline}: ${reason} · ${rulesWords(record.rules)}`),
    h("p", { class: "players" }, `${t("replay.profiles")} `, record.players.flatMap((name, seat) => [
      seat ? " · " : "", h("a", { href: `#player=${encodeURIComponent(name)}` }, name),
    ])),
    deal,
    stopped ? h("p", { class: "error" }, t("replay.stopped", { why: stopped })) : null,
    h("div", { class: "actions replay-controls" },
      button("replay-start", t("replay.start"), () => 0),
      button("replay-back", t("replay.back"), () => at - 1),
      play,
      button("replay-forward", t("replay.forward"), () => at + 1),
      button("replay-end", t("replay.end"), () => frames.length - 1),
      h("span", { class: "labelled" }, h("label", { for: "replay-speed" }, t("replay.speed")), speedSelect)),
    h("p", { class: "slider" }, h("label", { for: "replay-move" }, t("replay.move")), " ", slider),
    where,
    boards,
  ];
  show();
  return nodes;
}
