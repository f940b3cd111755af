"""The token file: the tokens this client holds, by server URL and name.

A token is the only way back to one's name on a server, so it is kept in
``$XDG_CONFIG_HOME/flowergarden/tokens.json`` (default ``~/.config/...``),
readable by its owner only (0600), and written atomically: a crash while
saving must never leave half a file and lose every token at once.

Tokens are kept per name as well as per URL so that two people racing from
two terminals of one machine (``--name alice``, ``--name bob``) each keep
their own; without ``--name`` the client comes back as the last name used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .jsonfile import config_dir, read_json, write_json

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["KeptIdentity", "TokenStore", "config_dir"]


@dataclass(frozen=True, slots=True)
class KeptIdentity:
    """Who this client is on one server."""

    name: str
    token: str


class TokenStore:
    """Tokens by server URL and name, in one JSON file."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else config_dir() / "tokens.json"

    def get(self, url: str, name: str | None = None) -> KeptIdentity | None:
        """The identity for ``name`` (any case) on ``url``; with no name, the last one used."""
        server = self._read().get(url)
        if not isinstance(server, dict):
            return None
        key = server.get("last") if name is None else name.casefold()
        entry = server.get("players", {}).get(key) if isinstance(key, str) else None
        if isinstance(entry, dict):
            name, token = entry.get("name"), entry.get("token")
            if isinstance(name, str) and isinstance(token, str):
                return KeptIdentity(name, token)
        return None

    def put(self, url: str, identity: KeptIdentity) -> None:
        """Keep ``identity`` for ``url`` and make it the last one used."""
        entries = self._read()
        server = entries.get(url)
        if not isinstance(server, dict) or not isinstance(server.get("players"), dict):
            server = {"players": {}}
        key = identity.name.casefold()
        server["players"][key] = {"name": identity.name, "token": identity.token}
        server["last"] = key
        entries[url] = server
        self._write(entries)

    def forget(self, url: str, name: str) -> None:
        """Drop a token the server no longer knows (``bad_token``)."""
        entries = self._read()
        server = entries.get(url)
        if isinstance(server, dict) and isinstance(server.get("players"), dict):
            server["players"].pop(name.casefold(), None)
            self._write(entries)

    def _read(self) -> dict[str, Any]:
        return read_json(self.path)

    def _write(self, entries: dict[str, Any]) -> None:
        write_json(self.path, entries)
