"""The terminal client: race from a terminal, or practise alone on the server's race core.

- :mod:`client.state`: the plain client-state model; server messages go in,
  the screens read it out. No Textual, no sockets. :mod:`client.race_view`:
  one race in it (boards, times, the end); :mod:`client.dealcheck`: the deal's
  check at the end, through the engine.
- :mod:`client.keys`, :mod:`client.card_faces`, :mod:`client.render`,
  :mod:`client.result`, :mod:`client.timing`: pure helpers (one-key labels,
  card faces, board drawings, the result, time in words).
- :mod:`client.net`: the websocket worker, and :mod:`client.failures`: why a
  connection failed, in words, and whether to try again; :mod:`client.words`:
  results and server errors in words; :mod:`client.practice`: the offline
  stand-in for it, running the server's race core (:class:`core.race.Race`)
  locally; :mod:`client.tokens`: the per-server token file; :mod:`client.bests`: practice
  personal bests; :mod:`client.jsonfile`: how both files are read and written.
- :mod:`client.api_client`: the server's HTTP API, the one module that speaks HTTP
  (urllib in a thread); :mod:`client.apidata`: its answers as models;
  :mod:`client.lookups`: what was asked and answered, in the state;
  :mod:`client.replay`: a finished race played again from its record, on a
  clock the caller moves; :mod:`client.api_drawings`: drawings of all these.
- :mod:`client.textual_app` and :mod:`client.screens`: the Textual app;
  :mod:`client.cli`: the ``flowergarden`` command line.
"""

from __future__ import annotations

__all__: list[str] = []
