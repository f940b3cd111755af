"""The client checks each race's deal at ``game_over``: seeds against commits, boards as dealt."""

from __future__ import annotations

import engine
from client.dealcheck import check_deal
from client.result import render_result
from client.state import ClientState
from protocol import Rules, board_to_wire

from .conftest import driving, fresh_name
from .test_race import play_by_key, racing
from .wire import (
    COMMIT,
    OTHER_SEED,
    RULES,
    SEED,
    dealt,
    game_over,
    game_start,
    game_state,
    welcome,
)


def ended(state: ClientState, seed: bytes = SEED, seq: int = 1) -> str:
    """Apply a ``game_over`` revealing ``seed``; the deal's verdict in words."""
    state.apply(game_over(0, "resigned", [0, 0], seq=seq, seed=seed), 200.0)
    race = state.race
    assert race is not None and race.deal_check is not None
    return race.deal_check.words


def player(**start) -> ClientState:
    state = ClientState("ws://x/ws", "ann")
    state.apply(game_start(**start), 100.0)
    return state


def test_a_deal_seen_from_the_start_is_verified():
    state = player()
    assert ended(state) == "deal verified"
    assert state.race is not None and state.race.deal_check is not None
    assert state.race.deal_check.ok
    assert "deal verified" in render_result(state.race).plain


def test_a_seed_that_is_not_the_committed_one_is_said_loudly():
    state = player()
    words = ended(state, seed=OTHER_SEED)
    assert words.startswith("deal NOT verified: commits: seat 0's seed hashes to")
    assert state.race is not None and state.race.deal_check is not None
    assert not state.race.deal_check.ok
    assert words in render_result(state.race).plain


def test_a_board_that_is_not_what_the_seed_deals_is_not_verified():
    other = engine.Board(engine.SeedDealer(OTHER_SEED).layout(True), 1)
    state = player(board=other)  # dealt another layout, but committed to SEED
    assert ended(state).startswith("deal NOT verified: board 0: ")


def test_a_mirror_race_with_two_seeds_is_not_verified():
    verdict = check_deal(RULES, [COMMIT, COMMIT], [SEED.hex(), OTHER_SEED.hex()], None)
    assert not verdict.ok and "seeds differ" in verdict.words


def test_a_spectator_from_the_first_state_verifies_the_whole_deal():
    """A game_state at seq 0 is the race before any play: the boards as dealt."""
    state = ClientState("ws://x/ws", "eve")
    board = dealt()
    state.apply(game_state([board, board], seq=0, seat=None), 100.0)
    assert ended(state) == "deal verified"


def test_a_spectator_who_came_later_checks_the_seeds_against_the_commits_only():
    state = ClientState("ws://x/ws", "eve")
    board = dealt()
    state.apply(game_state([board, board], seq=3, seat=None), 100.0)
    words = ended(state, seq=4)
    assert words.startswith("deal partly verified: the seeds match their commits")
    bad = ClientState("ws://x/ws", "eve")
    bad.apply(game_state([board, board], seq=3, seat=None), 100.0)
    said = ended(bad, seed=OTHER_SEED, seq=4)
    assert said.startswith("deal NOT verified: seat 0's seed hashes to")


async def test_watching_before_the_first_play_verifies_fully(start_server, make_app):
    server = await start_server()
    async with (
        racing(make_app, server) as (a, _b),
        driving(make_app(server, fresh_name("eve"))) as eve,
    ):
        await eve.until(lambda: eve.state.lobby is not None and eve.state.lobby.games, "games")
        await eve.press("w")
        await eve.until(lambda: eve.state.race is not None, "the watched race")
        assert eve.race.seq == 0 and eve.race.seat is None
        await play_by_key(a)
        await a.press("x", "y")  # resign: the race ends, the seeds are revealed
        await eve.until(lambda: eve.race.deal_check is not None, "the deal's check")
        await eve.until_shown("deal verified")
        assert eve.race.deal_check is not None and eve.race.deal_check.words == "deal verified"


def test_a_player_back_in_the_same_race_keeps_the_boards_as_dealt():
    state = player()
    board = dealt()
    played = board.copy()
    played.play(played.legal_plays()[0])
    state.apply(welcome(), 150.0)
    state.apply(game_state([played, board], seq=0), 151.0)  # the boards as they stand now
    assert ended(state) == "deal verified"


def test_a_game_state_that_ended_while_away_is_checked_too():
    state = ClientState("ws://x/ws", "ann")
    board = dealt()
    over = game_over(1, "abandoned", [0, 0], seq=1)
    state.apply(game_state([board, board], seq=1, over=over), 100.0)
    race = state.race
    assert race is not None and race.deal_check is not None
    assert race.deal_check.words.startswith("deal partly verified")


def test_classic_deals_are_checked_as_classic():
    rules = Rules(deal="independent", winnable_only=False)
    classic = engine.Board(engine.SeedDealer(SEED).layout(False))
    wire = board_to_wire(classic)
    state = player(board=classic, rules=rules, boards=[wire, wire])
    assert ended(state) == "deal verified"


def test_practice_has_no_deal_to_check():
    state = ClientState()
    state.begin_practice(dealt(), Rules(winnable_only=True), 0.0)
    state.apply(game_over(0, "resigned", [0, 0], seq=1, game_id="practice"), 1.0)
    assert state.race is not None and state.race.deal_check is None
