"""``python -m server.operator``: the operator's command line, ``flowergarden-admin``."""

from __future__ import annotations

import sys

from .commands import main

if __name__ == "__main__":
    sys.exit(main())
