// The daily deal as the page knows it (PROTOCOL.md, "The daily deal"): the lobby's
// `daily` ({date, players, best_ms}) says that something changed; the day's board
// (GET /api/daily) and one's streak (GET /api/players/NAME's daily_streak) are asked
// for then, and again after each daily race, never on a timer of their own.

/** What to ask the HTTP API again: today's board and one's own streak. */
export class DailyData {
  constructor(api, state, render) {
    this.api = api;
    this.state = state;
    this.render = render;
    this.seen = ""; // the lobby's daily (and the player) the board was last asked for
  }

  /** After each server message: the board again if the lobby's daily moved, or a daily race ended. */
  received(message) {
    const state = this.state;
    if (message.type === "game_over" && message.daily) return this.refresh();
    if (message.type !== "lobby" || !message.daily || !state.me) return undefined;
    const seen = JSON.stringify([state.me.name, message.daily]);
    if (seen === this.seen) return undefined;
    this.seen = seen;
    return this.refresh();
  }

  async refresh() {
    const state = this.state;
    const name = state.me?.name ?? null;
    const [today, profile] = await Promise.allSettled([
      this.api.daily(),
      name ? this.api.player(name) : Promise.reject(new Error("not signed in")),
    ]);
    if (today.status === "fulfilled") state.daily.today = today.value;
    if (profile.status === "fulfilled") state.daily.streak = profile.value.daily_streak ?? null;
    this.render();
  }
}

/** One's own line on a day's board, or null: names ignore case, as the server's do. */
export function ownPlace(today, name) {
  if (!today?.board || !name) return null;
  const key = name.toLowerCase();
  return today.board.find((place) => place.name.toLowerCase() === key) ?? null;
}

/** The day's leader (the first line of its board), or null before anyone is on it. */
export const leader = (today) => today?.board?.[0] ?? null;
