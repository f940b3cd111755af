// The name rule the page checks before it asks the server for a new player: the server's
// own (protocol.is_name and core/identity.py's bot prefix, through facts.js), said in
// the player's language, so that a name the page lets through is one the server takes,
// unless taken.

import { BOT_NAME_PREFIX, NAME_MAX, NAME_PATTERN } from "./facts.js";
import { t } from "./i18n.js";

const NAME = new RegExp(NAME_PATTERN); // no flags: "$" is the end of the text, as fullmatch's

/** The name rule in words: "1 to 20 letters A–Z, digits, _ or -". */
export const nameRule = () => t("name.rule", { max: NAME_MAX });

/** Why the server would refuse `name` for a new player, in words; "" if it would not. */
export function nameProblem(name) {
  if (!NAME.test(name)) return nameRule();
  if (name.toUpperCase().startsWith(BOT_NAME_PREFIX)) return t("signin.bot_prefix", { prefix: BOT_NAME_PREFIX });
  return "";
}
