"""What the operator's actions change in a lobby core: ``Lobby.update`` (a rename, an annulled
rating, a bot mark) and ``Lobby.clear_flags``, each for the players it holds."""

from __future__ import annotations

import random

import pytest

from core.events import Refused
from core.glicko2 import NEW, Glicko
from core.lobby import Lobby
from protocol import Rules, Seek

from .helpers import GRACE, IDLE

RATED = Rules(deal="mirror", winnable_only=True, rated=True)


def two_players() -> Lobby:
    lobby = Lobby(rng=random.Random(1), idle_limit=IDLE, grace=GRACE)
    lobby.connect("ann", "Ann", 0.0, rating=Glicko(1700.0, 200.0, 0.09))
    lobby.connect("bob", "Bob", 0.0)
    return lobby


def test_a_renamed_player_races_under_the_new_name() -> None:
    lobby = two_players()
    lobby.update("ann", name="Anna")
    lobby.handle("ann", Seek(rules=Rules()), 1.0)
    lobby.handle("bob", Seek(rules=Rules()), 1.0)
    race = lobby.race_of("ann")
    assert race is not None and race.names == ["Anna", "Bob"]


def test_an_annulled_rating_is_the_one_the_next_rated_race_starts_from() -> None:
    lobby = two_players()
    lobby.update("ann", rating=NEW)
    lobby.handle("ann", Seek(rules=RATED), 1.0)
    lobby.handle("bob", Seek(rules=RATED), 1.0)
    race = lobby.race_of("ann")
    assert race is not None and race.ratings == (NEW, NEW)


def test_a_player_marked_a_bot_is_refused_rated_races_and_unknown_ids_change_nothing() -> None:
    lobby = two_players()
    lobby.update("ann", bot=True)
    lobby.update("nobody", name="X", bot=True)  # not held here: nothing
    assert lobby.player("ann").bot and not lobby.player("bob").bot
    with pytest.raises(Refused) as refused:
        lobby.handle("ann", Seek(rules=RATED), 2.0)
    assert refused.value.code == "not_allowed"
