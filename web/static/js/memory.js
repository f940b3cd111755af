// What a page keeps of its race across a reload (sessionStorage, this tab only): the
// boards as dealt, for the full deal check, and its kind (daily, ghost, arena), which
// game_state does not repeat. A new tab, like a new terminal client, has
// only what game_state says.

const key = (gameId) => `flowergarden.race.${gameId}`;

export function rememberRace(race) {
  try {
    sessionStorage.setItem(key(race.gameId), JSON.stringify({ dealt: race.dealt, kind: race.kind }));
  } catch {
    // Storage full or refused: the page only loses the full check after a reload.
  }
}

export function recallRace(gameId) {
  try {
    const kept = JSON.parse(sessionStorage.getItem(key(gameId)) ?? "null");
    return kept && Array.isArray(kept.dealt) ? kept : null;
  } catch {
    return null;
  }
}

export function forgetRace(gameId) {
  try {
    sessionStorage.removeItem(key(gameId));
  } catch {
    // Nothing to do.
  }
}
