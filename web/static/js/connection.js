// The websocket to the server (client/net.py): hello first, with the stored token when
// there is one; then every message goes to the page. A dropped connection is tried
// again after the clients' backoff (RECONNECT, core/backoff.py's CLIENT: 0.25–0.5 s,
// then twice as long each time up to 7.5–15 s, half of each wait random so that pages
// do not all come back at once); a welcome resets that. A close code of STAY_AWAY
// stops it: after REPLACED (this player signed in elsewhere) coming back would take the
// player from the newer connection, which would do the same, forever; after BANNED the
// server would only refuse it. Every code and its meaning: protocol/close_codes.py.

import { CLOSE, ERROR, PROTOCOL_VERSION, RECONNECT, STAY_AWAY } from "./facts.js";
import { t } from "./i18n.js";
import { errorWords } from "./words.js";

/** Seconds before reconnection attempt `attempt` (1, 2, ...): core.backoff.Backoff.after. */
export function backoff(attempt) {
  const step = Math.min(RECONNECT.cap, RECONNECT.first * 2 ** (attempt - 1));
  const fixed = step * (1 - RECONNECT.jitter);
  return fixed + Math.random() * (step - fixed);
}

const CLOSE_KEYS = {
  [CLOSE.GOING_AWAY]: "link.going_away",
  [CLOSE.POLICY_VIOLATION]: "link.policy",
  [CLOSE.INTERNAL_ERROR]: "link.internal",
  [CLOSE.SERVICE_RESTART]: "link.restart",
};

/** Why the page stopped after a STAY_AWAY close: the link state and its words (BANNED
 * has a screen of its own: the hooks' banned()). */
const STAYED_AWAY = {
  [CLOSE.REPLACED]: ["replaced", "link.replaced"],
};

/** A refused hello's words for the name field, by code (never by the server's English). */
const NAME_KEYS = {
  [ERROR.name_taken]: "signin.name_taken",
  [ERROR.bad_name]: "error.bad_name",
};

export class Connection {
  /**
   * ``hooks``: message(msg), link(link, {reason, attempt, retryAt}), refused(words, name),
   * banned(name), identity(name) → {name, token} | null, remember({name, token}), forget(name).
   * After refused() and banned() the page is not connected, nor trying to be: the link
   * is "offline" (a header that went on saying "connecting…" would not be true).
   */
  constructor(url, hooks) {
    this.url = url;
    this.hooks = hooks;
    this.ws = null;
    this.name = "";
    this.welcomed = false;
    this.everWelcomed = false;
    this.attempt = 0;
    this.timer = null;
    this.stopped = true;
  }

  get online() {
    return this.welcomed && this.ws?.readyState === WebSocket.OPEN;
  }

  start(name) {
    this.name = name;
    this.stopped = false;
    this.attempt = 0;
    this.open();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    const ws = this.ws;
    this.ws = null;
    this.welcomed = false;
    if (ws) ws.close(CLOSE.NORMAL_CLOSURE);
  }

  /** Drop the connection and come back at once: the server resumes the race with game_state. */
  resync() {
    if (this.ws) this.ws.close(CLOSE.NORMAL_CLOSURE);
  }

  retryNow() {
    if (this.stopped || this.ws) return;
    clearTimeout(this.timer);
    this.open();
  }

  send(message) {
    if (!this.online) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  open() {
    clearTimeout(this.timer);
    this.hooks.link(this.everWelcomed ? "reconnecting" : "connecting", { attempt: this.attempt });
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (error) {
      this.stopped = true;
      this.hooks.link("failed", { reason: t("link.bad_url", { url: this.url }) });
      return;
    }
    this.ws = ws;
    this.welcomed = false;
    this.triedToken = false;
    ws.onopen = () => this.hello(ws);
    ws.onmessage = (event) => this.received(ws, event.data);
    ws.onclose = (event) => this.closed(ws, event);
  }

  hello(ws, { withToken = true } = {}) {
    const stored = withToken ? this.hooks.identity(this.name) : null;
    this.triedToken = stored !== null;
    const hello = { type: "hello", name: stored?.name ?? this.name, protocol: PROTOCOL_VERSION };
    if (stored) hello.token = stored.token;
    ws.send(JSON.stringify(hello));
  }

  received(ws, data) {
    if (ws !== this.ws) return;
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (this.welcomed) {
      this.hooks.message(message);
      return;
    }
    if (message.type === "welcome") {
      this.welcomed = this.everWelcomed = true;
      this.attempt = 0;
      this.name = message.name;
      this.hooks.remember({ name: message.name, token: message.token });
      this.hooks.link("online");
      this.hooks.message(message);
    } else if (message.type === "error") {
      this.refused(ws, message);
    }
  }

  refused(ws, error) {
    if (error.code === ERROR.bad_token && this.triedToken) {
      this.hooks.forget(this.name); // the server forgot us: start afresh with the name
      this.hello(ws, { withToken: false });
      return;
    }
    const returning = this.triedToken;
    if (error.code === ERROR.unavailable && returning) {
      this.hooks.link("reconnecting", { reason: t("link.signin_later") });
      ws.close(CLOSE.NORMAL_CLOSURE); // and closed() tries again
      return;
    }
    this.stop();
    if (error.code === ERROR.banned) {
      this.hooks.link("offline");
      this.hooks.banned(this.name);
    } else if (!returning && [ERROR.bad_name, ERROR.name_taken].includes(error.code)) {
      this.hooks.link("offline");
      this.hooks.refused(t(NAME_KEYS[error.code]), "");
    } else if (!returning && error.code === ERROR.unavailable) {
      this.hooks.link("offline");
      this.hooks.refused(t("signin.unavailable"), this.name);
    } else if (error.code === ERROR.rate_limited) {
      this.hooks.link("failed", { reason: t("link.rate_limited") });
    } else if (error.code === ERROR.unsupported_protocol) {
      this.hooks.link("failed", { reason: t("link.protocol") });
    } else {
      this.hooks.link("failed", { reason: t("link.refused", { error: errorWords(error) }) });
    }
  }

  closed(ws, event) {
    if (ws !== this.ws) return;
    this.ws = null;
    this.welcomed = false;
    if (this.stopped) return;
    if (STAY_AWAY.includes(event.code)) {
      this.stopped = true;
      if (event.code === CLOSE.BANNED) {
        this.hooks.link("offline");
        this.hooks.banned(this.name);
        return;
      }
      const [link, key] = STAYED_AWAY[event.code] ?? ["failed", "link.closed_for_good"];
      this.hooks.link(link, { reason: t(key, { code: event.code }) });
      return;
    }
    const host = new URL(this.url).host;
    const key = CLOSE_KEYS[event.code] ?? (this.everWelcomed ? "link.dropped" : "link.unreachable");
    const reason = t(key, { host });
    this.attempt += 1;
    const delay = event.code === CLOSE.NORMAL_CLOSURE && this.attempt === 1 ? 0 : backoff(this.attempt);
    const retryAt = performance.now() / 1000 + delay;
    this.hooks.link(this.everWelcomed ? "reconnecting" : "connecting", { reason, attempt: this.attempt, retryAt });
    this.timer = setTimeout(() => this.open(), delay * 1000);
  }
}
