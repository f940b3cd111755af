"""``flowergarden``: the command line of the terminal client.

The client's own dependencies are the ``client`` extra of pyproject.toml, which a
server's install (and its image) leaves out. Without them this command says what
to install instead of failing on an import.
"""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["CLIENT_MODULES", "INSTALL_CLIENT", "main"]

CLIENT_MODULES = ("textual", "rich", "babel")
"""What the ``client`` extra installs (pyproject.toml), as the modules the client imports.

tests/client/test_extra.py holds the two lists together."""

INSTALL_CLIENT = "pip install 'flowergarden-race[client]'"


def main(argv: list[str] | None = None) -> int:
    """The console script: the client's command line, or what to install to have it."""
    # Looked for, not imported: a module of the client that fails on an import of
    # its own must still fail loudly, not pass for a missing extra.
    missing = [name for name in CLIENT_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        print(
            f"flowergarden: the terminal client needs {' and '.join(missing)},"
            f" which this Python does not have; install the client with:\n    {INSTALL_CLIENT}",
            file=sys.stderr,
        )
        return 1
    from .cli import main as cli

    return cli(argv)


if __name__ == "__main__":
    sys.exit(main())
