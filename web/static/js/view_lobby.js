// The lobby: counts, what this player waits for (the queue, or their room with its link),
// what others seek (a click seeks the same), public rooms, live races to watch. Lists are
// the server's newest hundred: "Rooms: 100 of 340" when it has more. A seek that asked
// for a bot counts down to it: "a bot takes the seat in 23 s".

import { botWaitWords } from "./bots.js";
import { byId, h, setText, swap } from "./dom.js";
import { arenasList } from "./view_arena.js";
import { renderDaily } from "./view_daily.js";
import { playerNames, rulesWords } from "./words.js";

/** "Public rooms", or "Public rooms: 100 of 340" when the server listed only part. */
export const capped = (title, shown, total) => (total > shown ? `${title}: ${shown} of ${total}` : title);

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
      h("p", { class: "waiting" }, `Looking for an opponent (${rulesWords(waiting.rules)})…`),
      waiting.bot ? h("p", { id: "bot-wait", class: "bot-wait", role: "timer", "aria-label": "until a bot takes the seat" },
        botWaitWords(waiting, now)) : null,
      h("button", { type: "button", id: "cancel-seek", onclick: onCancel }, "Cancel"),
    ];
  }
  const link = roomLink(waiting.code);
  return [
    h("p", { class: "waiting" }, "Your room: ", h("strong", { class: "code", "data-room-code": waiting.code }, waiting.code),
      ` (${rulesWords(waiting.rules)}). Give the code or the link to your opponent.`),
    h("p", { class: "share" },
      h("label", { for: "room-link" }, "Link to share"), " ",
      h("input", { id: "room-link", type: "text", readonly: true, value: link, "data-room-link": link }), " ",
      h("button", { type: "button", id: "copy-link", onclick: () => onCopy(link) }, "Copy link"), " ",
      h("button", { type: "button", id: "close-room", onclick: onCancel }, "Close room")),
  ];
}

function list(title, items, empty) {
  return h("section", { class: "listing" },
    h("h3", {}, title),
    items.length ? h("ul", {}, items) : h("p", { class: "hint" }, empty));
}

function listsView(lobby, state, handlers) {
  const { onSeekSame, onJoinCode } = handlers;
  if (lobby === null) return [h("p", { class: "hint" }, "Asking the server who is here…")];
  const seeks = lobby.seeks.map((seek) => {
    const words = rulesWords(seek.rules);
    const key = JSON.stringify(seek.rules);
    return h("li", {},
      h("button", { type: "button", "data-focus": `seek:${key}`, onclick: () => onSeekSame(seek.rules) },
        `Seek the same: ${words}`),
      ` ${seek.count} waiting`);
  });
  const rooms = lobby.rooms.map((room) => h("li", {},
    h("span", { class: "code" }, room.code), ` ${room.host} · ${rulesWords(room.rules)} `,
    h("button", { type: "button", "data-focus": `room:${room.code}`, onclick: () => onJoinCode(room.code) },
      `Join ${room.code}`)));
  const games = lobby.games.map((game) => {
    const names = playerNames(game.players, game.bots ?? []).join(" vs ");
    return h("li", {}, `${names} · ${game.counts.join("–")} `,
      h("a", { href: `#watch=${game.game_id}`, "data-focus": `watch:${game.game_id}`, "aria-label": `Watch ${names}` }, "Watch"));
  });
  return [
    list("Seeking a match", seeks, "Nobody is seeking a match right now."),
    list(capped("Public rooms", lobby.rooms.length, lobby.rooms_total), rooms, "No public rooms are open."),
    list(capped("Live races", lobby.games.length, lobby.games_total), games, "No races are on."),
    lobby.arenas ? arenasList(lobby, state, handlers) : null,
  ];
}

export function renderLobby(state, handlers, now) {
  const lobby = state.lobby;
  setText(byId("counts"), lobby ? `${lobby.online} online · ${lobby.seeking} seeking a match` : "");
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
