// Race time in words (client/timing.py): the stopwatch, the clocks and a race time. Times
// on the wire are milliseconds from the race's start; words.js says each player's end.

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

/** A race time, "41.2 s"; from a minute on, "2:05.3". */
export function secondsText(ms) {
  const tenths = Math.floor(Math.max(0, ms) / 100);
  if (tenths < 600) return `${Math.floor(tenths / 10)}.${tenths % 10} s`;
  const rest = tenths % 600;
  return `${Math.floor(tenths / 600)}:${String(Math.floor(rest / 10)).padStart(2, "0")}.${rest % 10}`;
}
