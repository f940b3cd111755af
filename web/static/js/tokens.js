// Who this browser is on each server: a name and its token (the only way back to that
// player), in localStorage, by the server's websocket URL. The token never leaves this
// page except in hello to the server it came from.

const KEY = "flowergarden.identities";

function all() {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) ?? "{}");
    return stored && typeof stored === "object" ? stored : {};
  } catch {
    return {};
  }
}

function write(identities) {
  try {
    localStorage.setItem(KEY, JSON.stringify(identities));
  } catch {
    // Storage refused (a private window's quota): the player is still welcomed this time.
  }
}

/** The identity last used on ``server``, or the one of ``name`` there: {name, token} or null. */
export function loadIdentity(server, name = null) {
  const here = all()[server];
  if (!here?.names) return null;
  const wanted = (name ?? here.last ?? "").toLowerCase();
  const found = here.names[wanted];
  return found?.token ? { name: found.name, token: found.token } : null;
}

export function saveIdentity(server, { name, token }) {
  const identities = all();
  const here = identities[server] ?? { names: {} };
  here.names = { ...here.names, [name.toLowerCase()]: { name, token } };
  here.last = name;
  identities[server] = here;
  write(identities);
}

/** The server no longer knows this token (bad_token): forget it. */
export function forgetIdentity(server, name) {
  const identities = all();
  const here = identities[server];
  if (!here?.names) return;
  delete here.names[name.toLowerCase()];
  if (here.last?.toLowerCase() === name.toLowerCase()) delete here.last;
  write(identities);
}

/** Stop signing in as anyone by default here (the tokens stay, for the names typed again). */
export function forgetLast(server) {
  const identities = all();
  if (identities[server]) delete identities[server].last;
  write(identities);
}
