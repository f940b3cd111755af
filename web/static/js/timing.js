// Race time in words (client/timing.py): the stopwatch, the clocks and a race time. Times
// on the wire are milliseconds from the race's start; words.js says each player's end.
// A race time's number is written the language's way (i18n.js, Intl.NumberFormat).

import { formatNumber, t } from "./i18n.js";

/** Seconds before the idle limit from which the race screen counts down. */
export const IDLE_WARNING = 15;

/** A countdown, "4:59": whole seconds rounded up (0:00 only once it has run out). */
export function clockText(seconds) {
  const whole = Math.max(0, Math.floor(seconds + 0.999));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/** The time so far, "0:41": whole seconds rounded down. */
export function stopwatchText(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

const TENTHS = { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false };

/** A race time, "41.2 s" ("41,2 Sek."); from a minute on, "2:05.3" ("2:05,3"). */
export function secondsText(ms) {
  const tenths = Math.floor(Math.max(0, ms) / 100);
  if (tenths < 600) return t("time.seconds", { seconds: formatNumber(tenths / 10, TENTHS) });
  const rest = tenths % 600;
  const seconds = formatNumber(rest / 10, { ...TENTHS, minimumIntegerDigits: 2 });
  return `${Math.floor(tenths / 600)}:${seconds}`;
}
