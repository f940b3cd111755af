"""What a client or server author checks their work against.

- ``deal_vectors.jsonl`` (:data:`VECTORS`): PROTOCOL.md's known answers for
  dealing, one JSON object a line: ``seed``, ``commit``, ``classic``,
  ``winnable``, ``redeal_of_classic``, ``redeal_of_winnable`` and
  ``redeal_after`` (``{"plays": [cards], "board": layout}``: the classic layout,
  those cards played in order, then redealt). The one copy in the repository,
  shipped in the package: :func:`deal_vectors` reads it.
- ``python -m protocol.conformance ws://HOST:PORT/ws``: checks a server against
  the contract, one line a check (:mod:`protocol.conformance.checks`).
- ``python -m protocol.conformance --serve ws://HOST:PORT/ws``: a scripted peer
  for a client author's own client to race (:mod:`protocol.conformance.peer`).

This package imports only :mod:`engine`, :mod:`protocol` and websockets'
client, so that it runs anywhere the protocol's models do.
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

__all__ = ["VECTORS", "deal_vectors"]

VECTORS = "deal_vectors.jsonl"
"""The known answers' file name, in this package (``protocol/conformance/``)."""


def deal_vectors() -> list[dict[str, Any]]:
    """The known answers for dealing, one dict a seed, in the file's order."""
    text = files(__name__).joinpath(VECTORS).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]
