// Where the page is, from its address's hash: the game (#, or #room=CODE to join a room,
// #watch=GAME_ID to watch a race), #leaderboard, #howto (How to play), #player=NAME, or
// #race=GAME_ID (a replay).

export function route(hash = location.hash) {
  const text = hash.replace(/^#/, "");
  const split = text.indexOf("=");
  const key = split < 0 ? text : text.slice(0, split);
  let value = split < 0 ? "" : text.slice(split + 1);
  try {
    value = decodeURIComponent(value).trim();
  } catch {
    value = "";
  }
  if (key === "room" && value) return { page: "play", action: { type: "join_room", code: value.toUpperCase() } };
  if (key === "watch" && value) return { page: "play", action: { type: "watch", game_id: value } };
  if (key === "leaderboard") return { page: "leaderboard" };
  if (key === "howto") return { page: "howto" };
  if (key === "player" && value) return { page: "player", name: value };
  if (key === "race" && value) return { page: "replay", id: value };
  return { page: "play", action: null };
}

/** Drop the hash without a new history entry or a hashchange (a room link, once used). */
export function clearHash() {
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
}

/** The server's websocket URL: ?server=ws://… when given, else this page's own origin. */
export function serverUrl(search = location.search) {
  const given = new URLSearchParams(search).get("server");
  if (given) return given;
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws`;
}

/** The HTTP API beside that websocket. */
export function apiBase(wsUrl) {
  const url = new URL(wsUrl);
  url.protocol = url.protocol === "wss:" ? "https:" : "http:";
  url.pathname = "/";
  url.search = "";
  return url.href;
}
