// The server's bots as the page offers them (PROTOCOL.md, "Bots"; docs/bots.md): five
// levels, each a name and a pace, and the words for a bot: its label beside its name,
// and the countdown while a seek waits for one. The server's "seeking" does not echo
// `bot`, so the page keeps what it asked for (AppState.waiting.bot) to count down.

import { clockText } from "./timing.js";

/** Each level's bot, slowest first: the server's names (core/bots.py) and paces. */
export const LEVELS = Object.freeze([
  { level: 1, name: "BOT-Snail", seconds: 2.0 },
  { level: 2, name: "BOT-Tortoise", seconds: 1.2 },
  { level: 3, name: "BOT-Hare", seconds: 0.8 },
  { level: 4, name: "BOT-Falcon", seconds: 0.5 },
  { level: 5, name: "BOT-Swift", seconds: 0.3 },
]);
export const DEFAULT_LEVEL = 3;
/** The quick-match form's waits before a bot takes the seat (besides none). */
export const BOT_AFTER = Object.freeze([10, 30, 60]);

const byLevel = (level) => LEVELS.find((bot) => bot.level === level) ?? null;

/** "BOT-Hare" for level 3. */
export const botName = (level) => byLevel(level)?.name ?? `level ${level}`;

/** A level's option: "3 · BOT-Hare · about 0.8 s a card". */
export const levelWords = (level) => `${level} · ${botName(level)} · about ${byLevel(level)?.seconds.toFixed(1)} s a card`;

/** What a bot's name shows beside it, wherever players are listed: "BOT-Hare · bot". */
export const botLabel = (name) => `${name} · bot`;

/** "BOT-Hare · bot, level 3, about 0.8 s a card" (a name the page does not know: just the label). */
export function botWords(name) {
  const bot = LEVELS.find((known) => known.name === name);
  return bot ? `${botLabel(name)}, level ${bot.level}, about ${bot.seconds.toFixed(1)} s a card` : botLabel(name);
}

/** "a bot takes the seat in 23 s (BOT-Hare, about 0.8 s a card)", on this page's clock; "" without one. */
export function botWaitWords(waiting, now) {
  if (!waiting?.bot || waiting.botAt === null || waiting.botAt === undefined) return "";
  const bot = byLevel(waiting.bot.level);
  const who = bot ? ` (${bot.name}, about ${bot.seconds.toFixed(1)} s a card)` : "";
  const left = waiting.botAt - now;
  if (left <= 0) return `a bot takes the seat now…${who}`;
  const whole = Math.ceil(left); // rounded up, as the clocks are: 0.2 s left is "1 s"
  return `a bot takes the seat in ${whole < 60 ? `${whole} s` : clockText(left)}${who}`;
}
