// The screen for a banned player (PROTOCOL.md, "Fair play"): the server refused this
// player's hello with `banned`, or closed its connection with 4001. Nothing else shows
// and the page does not reconnect (facts.js, STAY_AWAY); another player may sign in.

import { byId, setText } from "./dom.js";
import { t } from "./i18n.js";

export function renderBanned(state) {
  const name = state.banned?.name ?? "";
  setText(byId("banned-words"), name ? t("banned.words", { name }) : "");
}
