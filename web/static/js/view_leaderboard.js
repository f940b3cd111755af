// The leaderboard: rated players who are no longer provisional, best first.

import { h } from "./dom.js";
import { formatNumber, t } from "./i18n.js";
import { ratingNumber } from "./words.js";

export async function leaderboardView(api) {
  const { players } = await api.leaderboard(50);
  const title = h("h2", { id: "page-title", tabindex: "-1" }, t("leaderboard.title"));
  if (!players.length) return [title, h("p", { class: "hint" }, t("leaderboard.empty"))];
  const rows = players.map((player) => h("tr", {},
    h("td", {}, formatNumber(player.rank)),
    h("td", {}, h("a", { href: `#player=${encodeURIComponent(player.name)}` }, player.name)),
    h("td", {}, ratingNumber(player.rating)),
    h("td", {}, formatNumber(player.races))));
  return [
    title,
    h("div", { class: "scroll-x" },
      h("table", { class: "table" },
        h("caption", { class: "visually-hidden" }, t("leaderboard.title")),
        h("thead", {}, h("tr", {}, ["table.rank", "table.player", "table.rating", "leaderboard.races"].map((key) => h("th", { scope: "col" }, t(key))))),
        h("tbody", {}, rows))),
  ];
}
