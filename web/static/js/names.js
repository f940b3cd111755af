// The name rule the page checks before it asks the server for a new player: the server's
// own (protocol.is_name and core/identity.py's bot prefix, through facts.js), in its own
// words, so that a name the page lets through is one the server takes, unless taken.

import { BOT_NAME_PREFIX, BOT_NAME_RULE, NAME_PATTERN, NAME_RULE } from "./facts.js";

const NAME = new RegExp(NAME_PATTERN); // no flags: "$" is the end of the text, as fullmatch's

/** Why the server would refuse `name` for a new player, in its words; "" if it would not. */
export function nameProblem(name) {
  if (!NAME.test(name)) return NAME_RULE;
  if (name.toUpperCase().startsWith(BOT_NAME_PREFIX)) return BOT_NAME_RULE;
  return "";
}
