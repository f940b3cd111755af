"""The terminal client: race from a terminal, or practise alone on the server's race core.

- :mod:`client.state`: the plain client-state model; server messages go in,
  the screens read it out. No Textual, no sockets.
- :mod:`client.keys`, :mod:`client.cards`, :mod:`client.render`: pure helpers
  (one-key labels, card faces, board drawings).
- :mod:`client.net`: the websocket worker, and :mod:`client.failures`: why a
  connection failed, in words, and whether to try again; :mod:`client.words`:
  results and server errors in words; :mod:`client.practice`: the offline
  stand-in for it, running the server's race core (:class:`server.race.Race`)
  locally; :mod:`client.tokens`: the per-server token file.
- :mod:`client.app` and :mod:`client.screens`: the Textual app;
  :mod:`client.cli`: the ``flowergarden`` command line.
"""

from __future__ import annotations

__all__: list[str] = []
