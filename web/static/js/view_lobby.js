// The lobby: counts, what this player waits for (the queue, or their room with its link),
// what others seek (a click seeks the same), public rooms, live races to watch. Lists are
// the server's newest hundred: "Rooms: 100 of 340" when it has more. A seek that asked
// for a bot counts down to it: "a bot takes the seat in 23 s".

import { botWaitWords } from "./bots.js";
import { byId, h, setText, swap } from "./dom.js";
import { t } from "./i18n.js";
import { arenasList } from "./view_arena.js";
import { renderDaily } from "./view_daily.js";
import { playerNames, rulesWords } from "./words.js";

/** "Public rooms", or "Public rooms: 100 of 340" when the server listed only part. */
export const capped = (title, shown, total) => (total > shown ? t("lobby.capped", { title, shown, total }) : title);

/** The link that opens this page straight into joining the room. */
export function roomLink(code) {
  const url = new URL(location.href);
  url.hash = `room=${code}`;
  return url.href;
}

function waitingView(waiting, { onCancel, onCopy }, now) {
  if (waiting === null) return [];
  if (waiting.kind === "seeking") {
    return [
      h("p", { class: "waiting" }, t("lobby.looking", { rules: rulesWords(waiting.rules) })),
      waiting.bot ? h("p", { id: "bot-wait", class: "bot-wait", role: "timer", "aria-label": t("lobby.bot_wait_label") },
        botWaitWords(waiting, now)) : null,
      h("button", { type: "button", id: "cancel-seek", onclick: onCancel }, t("lobby.cancel")),
    ];
  }
  const link = roomLink(waiting.code);
  return [
    h("p", { class: "waiting" }, `${t("lobby.your_room")} `, h("strong", { class: "code", "data-room-code": waiting.code }, waiting.code),
      ` ${t("lobby.room_share", { rules: rulesWords(waiting.rules) })}`),
    h("p", { class: "share" },
      h("label", { for: "room-link" }, t("lobby.link_label")), " ",
      h("input", { id: "room-link", type: "text", readonly: true, value: link, "data-room-link": link }), " ",
      h("button", { type: "button", id: "copy-link", onclick: () => onCopy(link) }, t("lobby.copy_link")), " ",
      h("button", { type: "button", id: "close-room", onclick: onCancel }, t("lobby.close_room"))),
  ];
}

function list(title, items, empty) {
  return h("section", { class: "listing" },
    h("h3", {}, title),
    items.length ? h("ul", {}, items) : h("p", { class: "hint" }, empty));
}

function listsView(lobby, state, handlers) {
  const { onSeekSame, onJoinCode } = handlers;
  if (lobby === null) return [h("p", { class: "hint" }, t("lobby.asking"))];
  const seeks = lobby.seeks.map((seek) => {
    const words = rulesWords(seek.rules);
    const key = JSON.stringify(seek.rules);
    return h("li", {},
      h("button", { type: "button", "data-focus": `seek:${key}`, onclick: () => onSeekSame(seek.rules) },
        t("lobby.seek_same", { rules: words })),
      ` ${t("lobby.waiting_count", { count: seek.count })}`);
  });
  const rooms = lobby.rooms.map((room) => h("li", {},
    h("span", { class: "code" }, room.code), ` ${room.host} · ${rulesWords(room.rules)} `,
    h("button", { type: "button", "data-focus": `room:${room.code}`, onclick: () => onJoinCode(room.code) },
      t("lobby.join_code", { code: room.code }))));
  const games = lobby.games.map((game) => {
    const names = playerNames(game.players, game.bots ?? []).join(t("race.vs"));
    return h("li", {}, `${names} · ${game.counts.join("–")} `,
      h("a", { href: `#watch=${game.game_id}`, "data-focus": `watch:${game.game_id}`, "aria-label": t("lobby.watch_label", { names }) }, t("lobby.watch")));
  });
  return [
    list(t("lobby.seeking_title"), seeks, t("lobby.seeking_none")),
    list(capped(t("lobby.rooms_title"), lobby.rooms.length, lobby.rooms_total), rooms, t("lobby.rooms_none")),
    list(capped(t("lobby.races_title"), lobby.games.length, lobby.games_total), games, t("lobby.races_none")),
    lobby.arenas ? arenasList(lobby, state, handlers) : null,
  ];
}

export function renderLobby(state, handlers, now) {
  const lobby = state.lobby;
  setText(byId("counts"), lobby ? t("lobby.counts", { online: lobby.online, seeking: lobby.seeking }) : "");
  swap(byId("waiting"), waitingView(state.waiting, handlers, now));
  const waiting = state.waiting !== null;
  byId("quick-match").disabled = waiting;
  byId("create-room").disabled = waiting;
  byId("race-bot").disabled = state.waiting?.kind === "room"; // a seek is given up for the bot
  swap(byId("lobby-lists"), listsView(lobby, state, handlers));
  renderDaily(state);
  const refused = state.ratedRefused;
  byId("rated-refused").hidden = refused === null;
  setText(byId("rated-refused-why"), refused?.words ?? "");
  const notice = byId("lobby-notice");
  setText(notice, state.notice);
  notice.classList.toggle("error", state.noticeError);
}

/** The bot's countdown, four times a second (the rest of the lobby is drawn on messages). */
export function tickLobby(state, now) {
  setText(byId("bot-wait"), botWaitWords(state.waiting, now));
}
