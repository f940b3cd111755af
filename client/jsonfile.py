"""The client's small JSON files under its config directory: read forgivingly, written atomically.

Both files (the tokens, the practice bests) hold what a person would hate to
lose, and neither may stop them playing: a missing or damaged file reads as
empty, so the client starts afresh rather than refuse to start; a write goes
to a temporary file (mode 0600) that replaces the old one in one rename, so a
crash while saving never leaves half a file.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["config_dir", "read_json", "write_json"]


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/flowergarden``, or ``~/.config/flowergarden``."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "flowergarden"


def read_json(path: Path) -> dict[str, Any]:
    """The object in ``path``; an empty one if there is no file or it is not a JSON object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # no file yet, or a damaged one: start afresh rather than refuse to play
    return data if isinstance(data, dict) else {}


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """Replace ``path`` with ``data``, atomically, readable by its owner only."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.stem}-", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(data, file, indent=2, sort_keys=True)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
