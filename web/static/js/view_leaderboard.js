// The leaderboard: rated players who are no longer provisional, best first.

import { h } from "./dom.js";

export async function leaderboardView(api) {
  const { players } = await api.leaderboard(50);
  const title = h("h2", { id: "page-title", tabindex: "-1" }, "Leaderboard");
  if (!players.length) {
    return [title, h("p", { class: "hint" }, "Nobody is on it yet: it lists players with 10 rated races or more, no longer provisional.")];
  }
  const rows = players.map((player) => h("tr", {},
    h("td", {}, String(player.rank)),
    h("td", {}, h("a", { href: `#player=${encodeURIComponent(player.name)}` }, player.name)),
    h("td", {}, String(Math.round(player.rating))),
    h("td", {}, String(player.races))));
  return [
    title,
    h("div", { class: "scroll-x" },
      h("table", { class: "table" },
        h("caption", { class: "visually-hidden" }, "Leaderboard"),
        h("thead", {}, h("tr", {}, ["Rank", "Player", "Rating", "Rated races"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, rows))),
  ];
}
