"""The client restates no rule: each comes from the engine, the protocol or the race core."""

from __future__ import annotations

import pytest

import client.render
import client.screens.modals
import client.state
import engine
import protocol
import server.identity
from client.screens.modals import NameScreen
from client.state import ClientState
from protocol import Rules
from server.events import Refused
from server.identity import Registry

NAMES = ["Ann", "a" * 20, "a" * 21, "", "Ann\n", "Ann Lee", "Zoë", "-_-", "a.b"]


def test_the_client_and_the_server_check_names_with_one_function():
    assert client.screens.modals.is_name is server.identity.is_name is protocol.is_name
    assert client.screens.modals.NAME_RULE is server.identity.NAME_RULE


@pytest.mark.parametrize("name", NAMES, ids=repr)
def test_a_name_the_client_accepts_is_one_the_server_accepts(name):
    problem = NameScreen().check(name)
    try:
        Registry().create("p-1", name, "token", 0.0)
    except Refused as refused:
        assert refused.code == "bad_name"
        assert problem == refused.message == protocol.NAME_RULE
    else:
        assert problem is None


def test_the_client_uses_the_protocols_racing_statuses():
    assert client.state.RACING is client.render.RACING is protocol.RACING


@pytest.mark.parametrize("seed", [1, 4])
@pytest.mark.parametrize("redeals", [0, 1])
def test_a_practice_board_shows_the_status_the_protocol_gives(seed, redeals):
    board = engine.Board(engine.deal(seed), redeals=redeals)  # deal 4 buries all Aces
    state = ClientState()
    state.begin_practice(board, Rules(redeals=redeals), 0.0)
    assert state.race is not None
    assert state.race.statuses == [protocol.wire_status(board.status)]
