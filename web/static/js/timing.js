// Race time in words (client/timing.py): the stopwatch, the clocks, each player's time
// and the winning margin. Times on the wire are milliseconds from the race's start.

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

/**
 * How far ahead the winner was, in ms, or null if that is not known here: compared where
 * the loser's race ended, against when the winner reached that same count (``reached``,
 * each seat's t_ms at each count, as far as this page saw it).
 */
export function marginMs(winner, counts, timesMs, reached) {
  const loser = 1 - winner;
  const count = counts[loser];
  const lostAt = timesMs[loser];
  if (count === 0 || lostAt === null || lostAt === undefined) return null;
  const wonAt = counts[winner] === count ? timesMs[winner] : reached[winner]?.[count];
  if (wonAt === null || wonAt === undefined || wonAt > lostAt) return null;
  return lostAt - wonAt;
}
