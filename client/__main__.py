"""``flowergarden``: the command line of the terminal client."""

from __future__ import annotations

import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    print("flowergarden: the terminal client is not built yet (see issue 4).", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
