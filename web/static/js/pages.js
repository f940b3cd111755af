// The pages from the HTTP API, and How to play, drawn into #page-body: the leaderboard,
// a player's profile, a race's replay. A page that comes after the player moved on to
// another is dropped (``pageLoads`` counts the loads); a replay playing is paused first.

import { byId, h, swap } from "./dom.js";
import { t } from "./i18n.js";
import { route } from "./routes.js";
import { howToPage } from "./view_howto.js";
import { leaderboardView } from "./view_leaderboard.js";
import { profileView } from "./view_profile.js";
import { replayView } from "./view_replay.js";

/** Draw the page the address names; ``app``: {api, leavePage, pageLoads}. */
export async function showPage(app) {
  app.leavePage?.();
  app.leavePage = null;
  const where = route();
  if (where.page === "play") return;
  const load = ++app.pageLoads;
  const container = byId("page-body");
  swap(container, [h("p", { class: "hint" }, t("page.loading"))]);
  let nodes;
  try {
    if (where.page === "howto") nodes = howToPage();
    else if (where.page === "leaderboard") nodes = await leaderboardView(app.api);
    else if (where.page === "player") nodes = await profileView(app.api, where.name);
    else nodes = await replayView(app.api, where.id, { onLeave: (leave) => { app.leavePage = leave; } });
  } catch (error) {
    nodes = [h("h2", { id: "page-title", tabindex: "-1" }, t("page.not_found")), h("p", { class: "error" }, error.message)];
  }
  if (load !== app.pageLoads) return;
  swap(container, nodes);
  (byId("page-title") ?? byId("howto-title"))?.focus();
}
