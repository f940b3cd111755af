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

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["Identity", "TokenStore", "config_dir"]


@dataclass(frozen=True, slots=True)
class Identity:
    """Who this client is on one server."""

    name: str
    token: str


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/flowergarden``, or ``~/.config/flowergarden``."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "flowergarden"


class TokenStore:
    """Tokens by server URL and name, in one JSON file."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else config_dir() / "tokens.json"

    def get(self, url: str, name: str | None = None) -> Identity | None:
        """The identity for ``name`` (any case) on ``url``; with no name, the last one used."""
        server = self._read().get(url)
        if not isinstance(server, dict):
            return None
        key = server.get("last") if name is None else name.casefold()
        entry = server.get("players", {}).get(key) if isinstance(key, str) else None
        if isinstance(entry, dict):
            name, token = entry.get("name"), entry.get("token")
            if isinstance(name, str) and isinstance(token, str):
                return Identity(name, token)
        return None

    def put(self, url: str, identity: Identity) -> None:
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
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # no file yet, or a damaged one: start afresh rather than refuse to play
        return data if isinstance(data, dict) else {}

    def _write(self, entries: dict[str, Any]) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".tokens-", dir=self.path.parent)  # mode 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                json.dump(entries, file, indent=2, sort_keys=True)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
