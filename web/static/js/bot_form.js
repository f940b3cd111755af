// The lobby's bot controls: the level ("Bot level", each with its bot's name and pace,
// DEFAULT_LEVEL first) that "Race a bot" races at once, and the quick match's "If nobody
// comes": keep waiting, or that bot takes the seat after one of BOT_AFTER's waits.

import { botName, levelWords } from "./bots.js";
import { byId, h } from "./dom.js";
import { BOT_AFTER, BOTS, DEFAULT_LEVEL } from "./facts.js";
import { t } from "./i18n.js";

/** The level chosen in "Bot level". */
export const botLevel = () => Number(byId("bot-level").value) || DEFAULT_LEVEL;

/** The quick match's `bot` (`{after_s, level}`), or null to wait for a person only. */
export function readBotAfter() {
  const after = byId("bot-after").value;
  return after === "" ? null : { after_s: Number(after), level: botLevel() };
}

/** The options' words, again after a change of language: the waits name the chosen bot
 * ("BOT-Hare takes the seat after 30 s"). */
export function labelBotForm() {
  for (const option of byId("bot-level").options) option.textContent = levelWords(Number(option.value));
  const name = botName(botLevel());
  for (const option of byId("bot-after").options) {
    option.textContent = option.value === ""
      ? t("bot.keep_waiting")
      : t("bot.takes_after", { name, seconds: Number(option.value) });
  }
}

export function bindBotForm() {
  const level = byId("bot-level");
  level.replaceChildren(...BOTS.map((bot) => h("option", { value: bot.level })));
  level.value = String(DEFAULT_LEVEL);
  byId("bot-after").replaceChildren(
    h("option", { value: "" }),
    ...BOT_AFTER.map((after) => h("option", { value: after })),
  );
  labelBotForm();
  level.addEventListener("change", labelBotForm);
}
