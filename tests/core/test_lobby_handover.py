"""The lobby core's races that move between workers (core/lobby.py, core/lobby_handover.py).

Findings of ``make chaos``, each a racer welcomed back and then told nothing
of their race: the cause was in the lobby core, and so is each test.
"""

from __future__ import annotations

import random

from core.events import RaceStarted
from core.restore import restore
from protocol import GameState, Resign, Rules, Seek

from .helpers import GRACE, IDLE, messages
from .lobby_helpers import MIRROR, game_over_of, new_lobby, send, start_race


def test_a_race_that_ended_is_shown_again_on_a_replacing_connection() -> None:
    """A finding of ``make chaos``: a racer's socket on another worker lost the link
    (and the game_over on it) as the race ended; they came back to the race's worker
    before it noticed, replacing a connection it still held, and were told nothing."""
    lobby = new_lobby()
    game_id = start_race(lobby, "ann", "bob")
    out = send(lobby, "ann", Resign())
    over = game_over_of(out)
    (state,) = messages(lobby.connect("ann", "Ann", 3.0))  # the old one still open here
    assert isinstance(state, GameState)
    assert (state.game_id, state.seat, state.over) == (game_id, 0, over)
    send(lobby, "ann", Seek(rules=Rules()))  # moved on: the end is theirs no more
    assert not [m for m in messages(lobby.connect("ann", "Ann", 4.0)) if isinstance(m, GameState)]


def test_a_race_held_here_after_it_moved_ends_without_taking_its_players_from_theirs() -> None:
    """A finding of ``make chaos``: a worker cut off from Redis kept a race that another
    worker had taken over and finished; its players, back on this worker, raced a race
    restored here since. The stale race ended (its grace ran out), took them out of
    their live race, and its refused end sent them away: they came back to nothing."""
    lobby = new_lobby()
    stale = start_race(lobby, "ann", "bob")
    elsewhere = new_lobby(random.Random(2))
    outputs = elsewhere.handle("ann", Seek(rules=MIRROR), 1.0)
    outputs += elsewhere.handle("bob", Seek(rules=MIRROR), 1.0)
    (start,) = (out.start for out in outputs if isinstance(out, RaceStarted))
    race, left = restore(start, [], elapsed=1.0, now=2.0, idle_limit=IDLE, grace=GRACE)
    lobby.restore(race, left)  # taken over from another worker: the same two race it here
    lobby.tick(stale, 10_000.0)  # the stale race ends, on its deadlines
    assert lobby.race(stale) is None
    assert lobby.race_of("ann") is race and lobby.race_of("bob") is race
    states = [
        m for m in messages(lobby.connect("ann", "Ann", 10_001.0)) if isinstance(m, GameState)
    ]
    assert [(state.game_id, state.over) for state in states] == [(start.game_id, None)]
