"""``flowergarden practice``: the race screen and keys of a race, on the server's race core."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import engine
from client.bests import Best, BestStore
from client.cli import parse_args
from client.net import ServerEvent
from client.options import Options
from client.practice import GAME_ID, Dealt, Practice, practice_dealer
from client.render import render_topbar
from client.textual_app import FlowerGardenApp
from core.events import Send, SendPlayed
from core.race import Race, SeatInfo
from protocol import (
    RACING,
    Error,
    Play,
    Played,
    Redeal,
    Redealt,
    Rematch,
    Resign,
    Rules,
    StatusChanged,
    board_from_wire,
    decode_server,
)

from .conftest import driving, key_for, legal_card

if TYPE_CHECKING:
    from protocol import ServerMessage


async def test_practice_plays_to_a_clear_and_deals_again():
    app = FlowerGardenApp(Options(practice=True, seed=11, rules=Rules(winnable_only=True)))
    async with driving(app) as player:
        await player.until(lambda: player.state.race is not None, "the deal")
        race = player.race
        assert race.other is None
        text = await player.text()
        assert "Practice" in text and "0/52" in text
        await player.press("slash", *str(legal_card(race)).lower(), "enter", "escape")
        while race.over is None:
            await player.press(key_for(race, legal_card(race)))
        assert race.board.count == 52
        assert "Cleared!" in await player.text()
        await player.press("r")  # a new deal
        await player.until(lambda: player.race is not race, "the next deal")
        assert player.race.board.count == 0


async def test_practice_redeal_and_give_up():
    app = FlowerGardenApp(Options(practice=True, seed=2, rules=Rules(redeals=1)))
    async with driving(app) as player:
        await player.until(lambda: player.state.race is not None, "the deal")
        race = player.race
        await player.press("r")
        assert "only for when you are stuck" in player.state.notice or not race.board.has_play()
        while race.board.has_play():
            await player.press(key_for(race, legal_card(race)))
        await player.until(lambda: race.statuses[0] == "stuck", "stuck")
        count = race.board.count
        await player.press("r")
        await player.until(lambda: race.board.redeals_left == 0, "the redeal")
        assert race.board.count == count
        await player.press("x", "y")
        await player.until(lambda: race.over is not None, "the end")
        assert "Given up" in await player.text() or "No more plays" in await player.text()


# -- the backend on its own: the server's race core, on a clock the test holds ----


class Posted:
    """What a :class:`Practice` posts, in order: its deals and its server messages."""

    def __init__(self) -> None:
        self.all: list[object] = []

    def __call__(self, message: object) -> None:
        self.all.append(message)

    def deals(self) -> list[Dealt]:
        return [m for m in self.all if isinstance(m, Dealt)]

    def events(self) -> list[ServerMessage]:
        return [m.message for m in self.all if isinstance(m, ServerEvent)]


def practice(seed, **rules) -> tuple[Practice, Posted]:
    """A practice on a clock that stands still; classic layouts unless ``rules`` say otherwise
    (the seeds here were chosen for what the classic deal gives: stuck, no play at all)."""
    rules.setdefault("winnable_only", False)
    posted = Posted()
    backend = Practice(posted, seed=seed, clock=lambda: 5.0, **rules)
    backend.start()
    return backend, posted


def server_race(seed, rules) -> Race:
    """A race as the server makes one, with practice's seed: the ghost's seat never moves."""
    dealer = practice_dealer(seed)
    seats = (SeatInfo("p-ann", "Ann"), SeatInfo("p-bob", "Bob"))
    return Race(GAME_ID, seats, rules, (dealer, dealer), idle_limit=60.0, grace=30.0)


def as_received(outputs) -> list[ServerMessage]:
    """Seat 0's race events as a client receives them from the server's glue."""
    received: list[ServerMessage] = []
    for out in outputs:
        if isinstance(out, SendPlayed) and out.seat == 0:
            frame = out.frame()
            received.append(decode_server(frame))
        elif isinstance(out, Send) and isinstance(out.message, Redealt | StatusChanged):
            received.append(out.message)
    return received


def test_practice_runs_the_servers_race_core():
    backend, _ = practice(3)
    assert isinstance(backend.race, Race)
    assert backend.race.idle_limit is None and backend.race.next_deadline() is None


@pytest.mark.parametrize(("seed", "redeals"), [(2, 1), (3, 0), (8, 1)])
def test_practice_events_are_the_race_cores(seed, redeals):
    """The same moves give the same played and redealt (seq, status, count) as on a server."""
    backend, posted = practice(seed, redeals=redeals)
    race = server_race(seed, backend.rules)
    race.start(5.0)
    expected: list[ServerMessage] = []
    while race.status_of(0) in RACING:
        board = race.boards()[0]
        if board.has_play():
            card = board.legal_plays()[-1]
            backend.send(Play(card=str(card)))
            expected += as_received(race.play(0, card, 5.0))
        else:
            backend.send(Redeal())
            expected += as_received(race.redeal(0, 5.0))
    assert posted.events() == expected
    assert [getattr(event, "seq", None) for event in expected] == list(range(1, len(expected) + 1))
    assert backend.race.boards()[0] == race.boards()[0]
    assert backend.over


def test_a_seeded_practice_deals_from_the_seeds_32_bytes():
    """``--seed N`` deals as a server deals from a seed: N's 32 bytes, big-endian."""
    backend, posted = practice(1, redeals=1)
    dealer = engine.SeedDealer((1).to_bytes(32, "big"))
    board = engine.Board(dealer.layout(False), redeals=1)
    assert posted.deals()[0].board == board
    for card in engine.greedy_plays(board):
        board.play(card)
        backend.send(Play(card=str(card)))
    assert board.status == engine.Status.STUCK
    board.redeal(dealer.redeal)
    backend.send(Redeal())
    redealt = posted.events()[-1]
    assert isinstance(redealt, Redealt)
    assert board_from_wire(redealt.board) == board
    backend.send(Rematch())
    next_deal = engine.SeedDealer((2).to_bytes(32, "big")).layout(False)
    assert posted.deals()[-1].board == engine.Board(next_deal, redeals=1)


def test_a_random_practice_draws_a_whole_seed():
    seeds = {Practice(Posted()).seed for _ in range(4)}
    assert len(seeds) == 4 and all(0 <= seed < 2**256 for seed in seeds)
    assert max(seeds) >= 2**128  # 32 random bytes, not a small integer


def test_clearing_is_seat_zeros_played_and_no_game_over():
    backend, posted = practice(11, winnable_only=True)
    board = posted.deals()[0].board
    for card in engine.greedy_plays(board):
        backend.send(Play(card=str(card)))
    events = posted.events()
    assert len(events) == 52 and all(isinstance(event, Played) for event in events)
    assert events[-1].status == "cleared"  # type: ignore[union-attr]
    assert backend.race.over is not None  # the core decided it; the client shows it solo
    backend.send(Play(card="AS"))
    assert len(posted.events()) == 52  # a finished practice takes no more moves


def test_resigning_is_a_status_and_no_game_over():
    backend, posted = practice(3)
    backend.send(Resign())
    (event,) = posted.events()
    assert isinstance(event, StatusChanged)
    assert (event.seat, event.status, event.seq) == (0, "resigned", 1)
    backend.send(Resign())
    assert len(posted.events()) == 1


def test_a_deal_with_no_play_is_dealt_and_ends_quietly():
    backend, posted = practice(13)  # no Ace at a bed's front or in the bouquet
    assert [deal.board.status for deal in posted.deals()] == [engine.Status.STALLED]
    assert posted.events() == []  # not the core's game_over (a draw with the ghost)
    assert backend.over


def test_a_refused_move_is_answered_as_the_server_answers():
    backend, posted = practice(3)
    buried = posted.deals()[0].board.beds[0][0]
    backend.send(Play(card=str(buried)))
    (error,) = posted.events()
    assert isinstance(error, Error) and error.code == "illegal_move"
    assert error.message == backend.race.boards()[0].why_illegal(buried)


# -- a race against the clock: winnable by default, named by its rules, the best to beat --


def test_practice_deals_winnable_layouts_unless_asked_otherwise():
    assert parse_args(["practice"]).rules.winnable_only
    assert not parse_args(["practice", "--any-layout"]).rules.winnable_only
    assert Practice(Posted()).rules.winnable_only
    _, posted = practice(5, winnable_only=True)
    assert posted.deals()[0].board == engine.Board(practice_dealer(5).layout(True))


async def test_the_top_bar_names_the_practice_and_the_best_to_beat(config_home):
    def topbar(player) -> str:
        return render_topbar(player.state, player.app.clock()).plain

    app = FlowerGardenApp(Options(practice=True, seed=11, rules=Rules(winnable_only=True)))
    async with driving(app) as player:
        await player.until(lambda: player.state.race is not None, "the deal")
        bar = topbar(player)
        assert bar.startswith("Practice (winnable) · time 0:0")
        assert bar.endswith("no best yet: set one") and "independent" not in bar
    BestStore().record("winnable", Best(52, 41_200))
    app = FlowerGardenApp(Options(practice=True, seed=11, rules=Rules(winnable_only=True)))
    async with driving(app) as player:
        await player.until(lambda: player.state.race is not None, "the deal")
        assert topbar(player).endswith("to beat: cleared in 41.2 s")
        assert "to beat: cleared in 41.2 s" in await player.text()
