"""The client restates no rule: each comes from the engine, the protocol or the race core."""

from __future__ import annotations

import ast
import re

import pytest

import client.dealcheck
import client.practice
import client.race_view
import client.render
import client.screens.modals
import client.state
import core.identity
import engine
import lang
import protocol
from client.screens.modals import NameScreen
from client.state import ClientState
from core.events import Refused
from core.identity import Registry
from protocol import Rules
from protocol.close_codes import CloseCode

NAMES = ["Ann", "a" * 20, "a" * 21, "", "Ann\n", "Ann Lee", "Zoë", "-_-", "a.b"]


def test_the_client_and_the_server_check_names_with_one_function():
    modals, identity = vars(client.screens.modals), vars(core.identity)
    assert modals["is_name"] is identity["is_name"] is protocol.is_name
    assert f"{{1,{client.screens.modals.NAME_MAX}}}" in protocol.NAME_PATTERN  # one longest name


@pytest.mark.parametrize("name", NAMES, ids=repr)
def test_a_name_the_client_accepts_is_one_the_server_accepts(name):
    problem = NameScreen().check(name)
    try:
        Registry().create("p-1", name, "token", 0.0)
    except Refused as refused:
        assert refused.code == "bad_name"
        assert refused.message == protocol.NAME_RULE  # the server's words; the client's own:
        assert problem == lang.t("name.rule", max=20)
    else:
        assert problem is None


def test_the_client_uses_the_protocols_racing_statuses():
    uses = [vars(module)["RACING"] for module in (client.state, client.render, client.race_view)]
    assert all(racing is protocol.RACING for racing in uses)


def test_practice_deals_as_a_server_deals():
    dealer = client.practice.practice_race(7, Rules()).dealers[0]
    assert isinstance(dealer, engine.SeedDealer)
    assert dealer.seed == (7).to_bytes(engine.SEED_SIZE, "big")


def test_the_client_checks_deals_with_the_engine():
    assert vars(client.dealcheck)["engine"].check_deal is engine.check_deal


@pytest.mark.parametrize("seed", [1, 4])
@pytest.mark.parametrize("redeals", [0, 1])
def test_a_practice_board_shows_the_status_the_protocol_gives(seed, redeals):
    board = engine.Board(engine.deal(seed), redeals=redeals)  # deal 4 buries all Aces
    state = ClientState()
    state.begin_practice(board, Rules(redeals=redeals), 0.0)
    assert state.race is not None
    assert state.race.statuses == [protocol.wire_status(board.status)]


def test_the_replay_reads_and_verifies_records_with_the_engine():
    import client.replay
    import engine.record

    names = vars(client.replay)
    assert names["read_record"] is engine.record.read_record
    assert names["engine"].verify_record is engine.verify_record


def test_one_module_speaks_http():
    from pathlib import Path

    root = Path(client.state.__file__).parent
    speaking = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if "urllib.request" in path.read_text() or "http.client" in path.read_text()
    )
    assert speaking == ["api_client.py"]


def _client_sources() -> dict[str, str]:
    from pathlib import Path

    root = Path(client.state.__file__).parent
    return {str(path.relative_to(root)): path.read_text() for path in root.rglob("*.py")}


def test_the_client_decides_by_error_code_never_by_the_words():
    # ``message`` is English, for people (PROTOCOL.md): another server may say it otherwise.
    english = re.compile(
        r"\bin\s+\w+\.message\b|\.message\.(startswith|endswith|find|index|lower|casefold)\("
        r"|\.message\s*[!=]=|re\.\w+\([^)]*\.message\b"
    )
    found = {name: english.findall(text) for name, text in _client_sources().items()}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_client_names_close_codes_from_the_protocol():
    codes = {int(code) for code in CloseCode} - {CloseCode.NORMAL_CLOSURE}
    for name, text in _client_sources().items():
        numbers = {
            node.value
            for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.Constant) and type(node.value) is int
        }
        assert not numbers & codes, name
