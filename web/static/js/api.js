// The server's read-only HTTP API (PROTOCOL.md, "HTTP"), on the same origin as the page
// (or the one ?server= names). An unknown name or id is 404 with {"error": code}.

import { t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, code, words) {
    super(words);
    this.status = status;
    this.code = code;
  }
}

const KEYS = {
  player_not_found: "api.player_not_found",
  race_not_found: "api.race_not_found",
};

export class Api {
  constructor(base) {
    this.base = base;
  }

  async get(path) {
    let response;
    try {
      response = await fetch(new URL(path, this.base), { headers: { Accept: "application/json" } });
    } catch {
      throw new ApiError(0, "network", t("api.network"));
    }
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (!response.ok) {
      const code = body?.error ?? `http_${response.status}`;
      const key = KEYS[code] ?? (response.status === 404 ? "api.no_page" : "api.http");
      const words = t(key, { status: response.status });
      throw new ApiError(response.status, code, words);
    }
    if (body === null) throw new ApiError(response.status, "bad_json", t("api.bad_json"));
    return body;
  }

  leaderboard(limit = 50) {
    return this.get(`/api/leaderboard?limit=${limit}`);
  }

  player(name) {
    return this.get(`/api/players/${encodeURIComponent(name)}`);
  }

  races(name, { limit = 20, before = null } = {}) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (before) query.set("before", before);
    return this.get(`/api/players/${encodeURIComponent(name)}/races?${query}`);
  }

  race(gameId) {
    return this.get(`/api/races/${encodeURIComponent(gameId)}`);
  }

  /** Today's daily deal: its commit, rules and board (the first 100). */
  daily() {
    return this.get("/api/daily");
  }

  arenas() {
    return this.get("/api/arenas");
  }

  arena(arenaId) {
    return this.get(`/api/arenas/${encodeURIComponent(arenaId)}`);
  }
}
