// The server's bots as the page offers them (PROTOCOL.md, "Bots"; docs/bots.md): each
// level's name and pace (BOTS, from the server's own modules: facts.js), and the words
// for a bot: its label beside its name, and the countdown while a seek waits for one.
// The server's "seeking" does not echo `bot`, so the page keeps what it asked for
// (AppState.waiting.bot) to count down.

import { BOTS } from "./facts.js";
import { formatNumber, t } from "./i18n.js";
import { clockText } from "./timing.js";

const byLevel = (level) => BOTS.find((bot) => bot.level === level) ?? null;

/** "0.8", a bot's seconds a card the language's way. */
const pace = (bot) => formatNumber(bot.seconds, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** "BOT-Hare" for level 3. */
export const botName = (level) => byLevel(level)?.name ?? t("bot.level", { level });

/** A level's option: "3 · BOT-Hare · about 0.8 s a card". */
export const levelWords = (level) => t("bot.level_option", { level, name: botName(level), seconds: pace(byLevel(level)) });

/** What a bot's name shows beside it, wherever players are listed: "BOT-Hare · bot". */
export const botLabel = (name) => t("bot.label", { name });

/** "BOT-Hare · bot, level 3, about 0.8 s a card" (a name the page does not know: just the label). */
export function botWords(name) {
  const bot = BOTS.find((known) => known.name === name);
  return bot ? t("bot.words", { label: botLabel(name), level: bot.level, seconds: pace(bot) }) : botLabel(name);
}

/** "a bot takes the seat in 23 s (BOT-Hare, about 0.8 s a card)", on this page's clock; "" without one. */
export function botWaitWords(waiting, now) {
  if (!waiting?.bot || waiting.botAt === null || waiting.botAt === undefined) return "";
  const bot = byLevel(waiting.bot.level);
  const who = bot ? ` ${t("bot.who", { name: bot.name, seconds: pace(bot) })}` : "";
  const left = waiting.botAt - now;
  if (left <= 0) return t("bot.takes_now") + who;
  const whole = Math.ceil(left); // rounded up, as the clocks are: 0.2 s left is "1 s"
  return t("bot.takes_in", { time: whole < 60 ? t("time.whole_seconds", { seconds: whole }) : clockText(left) }) + who;
}
