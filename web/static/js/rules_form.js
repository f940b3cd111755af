// The rules form of the lobby: mirror and winnable only by default (speed alone decides,
// DEFAULT_RULES, the terminal client's); "rated" forces both, as PROTOCOL.md requires of
// a rated race. The time limit's range is the protocol's (TIME_LIMIT_S).

import { t } from "./i18n.js";
import { byId, setText } from "./dom.js";
import { DEFAULT_RULES, TIME_LIMIT_S } from "./facts.js";
import { rulesWords } from "./words.js";

const { min, max } = TIME_LIMIT_S;

/** The form's rules, or {error} in words when the time limit is out of range. */
export function readRules() {
  const time = byId("rule-time").value.trim();
  const limit = time === "" ? null : Number(time);
  if (limit !== null && !(Number.isInteger(limit) && limit >= min && limit <= max)) {
    return { error: t("rules.time_error", { min: String(min), max: String(max) }) };
  }
  const rules = {
    deal: byId("rule-deal").value,
    winnable_only: byId("rule-winnable").checked,
    redeals: byId("rule-redeal").checked ? 1 : 0,
    tiebreak: byId("rule-tiebreak").value,
    time_limit_s: limit,
  };
  if (byId("rule-rated").checked) rules.rated = true; // only when asked: older servers know no "rated"
  return { rules };
}

export function writeRules(rules) {
  const full = { ...DEFAULT_RULES, ...rules };
  byId("rule-deal").value = full.deal;
  byId("rule-winnable").checked = full.winnable_only;
  byId("rule-redeal").checked = full.redeals === 1;
  byId("rule-tiebreak").value = full.tiebreak;
  byId("rule-time").value = full.time_limit_s ?? "";
  byId("rule-rated").checked = Boolean(full.rated);
  ratedForces();
}

function ratedForces() {
  const rated = byId("rule-rated").checked;
  if (rated) {
    byId("rule-deal").value = "mirror";
    byId("rule-winnable").checked = true;
  }
  byId("rule-deal").disabled = rated;
  byId("rule-winnable").disabled = rated;
  const read = readRules();
  setText(byId("rules-summary"), read.rules ? rulesWords(read.rules) : t("rules.check_time"));
}

/** The words the form's code writes, again after a change of language. */
export function labelRulesForm() {
  // As the field takes them: plain digits, never grouped ("3600", not "3,600").
  setText(byId("rule-time-range"), t("rules.time_range", { min: String(min), max: String(max) }));
  ratedForces();
}

export function bindRulesForm() {
  const time = byId("rule-time");
  time.min = String(min);
  time.max = String(max);
  labelRulesForm();
  for (const id of ["rule-deal", "rule-winnable", "rule-redeal", "rule-tiebreak", "rule-time", "rule-rated"]) {
    byId(id).addEventListener("input", ratedForces);
    byId(id).addEventListener("change", ratedForces);
  }
  writeRules(DEFAULT_RULES);
}
