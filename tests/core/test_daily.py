"""The daily deal desk: the day's race, its ghost or bot, ranked or practice, the board, and
the day rolling over. Time is moved by hand."""

from __future__ import annotations

import random

import pytest

import engine
from core.bots import BOT_NAMES, bot_id
from core.daily import DAILY_BOT_LEVEL, DAILY_RULES, DailyDeal, DailyPlace, board_key
from core.events import RaceEnded, RaceStarted, Refused
from core.ghost import GHOST_ID, Ghost
from core.lobby import Lobby
from core.race_kind import RaceKind
from protocol import (
    CreateRoom,
    Daily,
    DailyInfo,
    GameStart,
    Rematch,
    Resign,
    Rules,
    Seek,
    decode_server,
    encode,
)

from .daily_helpers import (
    DAY,
    NEXT_DAY,
    NEXT_SEED,
    SEED,
    clear_at,
    deal_with_ghost,
    line_of,
    new_lobby,
    over_of,
    play_cards,
    race_daily,
    start_of,
)
from .helpers import GRACE, IDLE

# -- the race ---------------------------------------------------------------------


def test_before_anyone_cleared_the_day_a_daily_race_is_against_the_level_3_bot() -> None:
    lobby = new_lobby(DailyDeal(DAY, SEED))
    out = lobby.handle("ann", Daily(), 2.0)
    start = start_of(out)
    assert start.players == ["Ann", BOT_NAMES[DAILY_BOT_LEVEL]] and start.bots == [False, True]
    assert (start.daily, start.ghost, start.arena_id) == (DAY, None, None)
    assert start.rules == DAILY_RULES and start.ratings == [None, None]
    assert start.commits == [engine.commit(SEED)] * 2  # the day's seed, mirror
    assert start.boards[0] == start.boards[1]
    (started,) = (o.start for o in out if isinstance(o, RaceStarted))
    assert started.player_ids == ("ann", bot_id(DAILY_BOT_LEVEL))
    assert started.kind == RaceKind(daily=DAY, ranked=True)


def test_the_wire_says_what_kind_of_race_it_is() -> None:
    lobby = new_lobby(deal_with_ghost())
    start = start_of(lobby.handle("ann", Daily(), 0.0))
    wire = decode_server(encode(start).encode())
    assert isinstance(wire, GameStart) and (wire.daily, wire.ghost) == (DAY, "Cat")


def test_ghost_false_races_the_bot_even_when_there_is_a_best_clear() -> None:
    lobby = new_lobby(deal_with_ghost())
    start = start_of(lobby.handle("ann", Daily(ghost=False), 0.0))
    assert start.players[1] == BOT_NAMES[DAILY_BOT_LEVEL] and start.ghost is None
    start = start_of(lobby.handle("bob", Daily(), 0.0))
    assert start.ghost == "Cat"
    race = lobby.race(start.game_id)
    assert race is not None and race.player_ids[1] == GHOST_ID


def test_a_daily_race_before_the_lobby_knows_the_day_is_unavailable_and_changes_nothing() -> None:
    lobby = new_lobby()
    with pytest.raises(Refused) as refused:
        lobby.handle("ann", Daily(), 0.0)
    assert refused.value.code == "unavailable"
    assert lobby.race_of("ann") is None and lobby.snapshot().daily is None


def test_a_player_busy_elsewhere_cannot_start_a_daily_race() -> None:
    lobby = new_lobby(DailyDeal(DAY, SEED))
    lobby.handle("ann", Seek(rules=Rules()), 0.0)
    lobby.handle("bob", CreateRoom(), 0.0)
    for player in ("ann", "bob"):
        with pytest.raises(Refused) as refused:
            lobby.handle(player, Daily(), 1.0)
        assert refused.value.code == "busy"


def test_a_daily_seed_is_checked_and_so_is_its_day() -> None:
    with pytest.raises(ValueError):
        DailyDeal(DAY, b"short")
    for day in ("2025-6-1", "20250601", "2025-02-30"):
        with pytest.raises(ValueError):
            DailyDeal(day, SEED)


# -- ranked and practice ------------------------------------------------------------


def test_only_a_players_first_daily_race_of_the_day_is_ranked() -> None:
    lobby = new_lobby(DailyDeal(DAY, SEED))
    race_daily(lobby, "ann", 0.0)
    first = over_of(lobby.handle("ann", Resign(), 1.0)).daily
    assert first is not None and (first.date, first.ranked, first.rank, first.time_ms) == (
        DAY, True, 1, None
    )  # fmt: skip
    race_daily(lobby, "ann", 2.0)
    second = over_of(lobby.handle("ann", Resign(), 3.0)).daily
    assert second is not None and (second.ranked, second.rank) == (False, None)
    assert lobby.snapshot().daily == DailyInfo(date=DAY, players=1, best_ms=None)


def test_the_store_tells_the_lobby_who_raced_today_already() -> None:
    lobby = new_lobby(DailyDeal(DAY, SEED), players=())
    lobby.connect("ann", "Ann", 0.0, last_daily=DAY)
    lobby.connect("bob", "Bob", 0.0, last_daily="2025-05-31")
    ann, bob = race_daily(lobby, "ann", 1.0), race_daily(lobby, "bob", 1.0)
    assert (ann.kind.ranked, bob.kind.ranked) == (False, True)
    # A later hello with the store's older day does not undo the lobby's own mark.
    lobby.connect("bob", "Bob", 2.0, last_daily="2025-05-31")
    lobby.handle("bob", Resign(), 3.0)
    assert race_daily(lobby, "bob", 4.0).kind.ranked is False


def test_a_player_on_the_days_board_is_not_ranked_again_whatever_this_lobby_knows() -> None:
    # Ann raced today on another worker; this lobby holds her since with no mark.
    board = (DailyPlace("g-elsewhere", "Ann", None, 12),)
    lobby = new_lobby(DailyDeal(DAY, SEED, board=board), players=())
    lobby.connect("ann", "ANN", 0.0)
    lobby.connect("bob", "Bob", 0.0)
    ann, bob = race_daily(lobby, "ann", 1.0), race_daily(lobby, "bob", 1.0)
    assert (ann.kind.ranked, bob.kind.ranked) == (False, True)


def test_a_declared_bot_is_never_ranked_and_never_on_the_board() -> None:
    lobby = new_lobby(DailyDeal(DAY, SEED), players=())
    lobby.connect("robo", "Robo", 0.0, bot=True)
    race_daily(lobby, "robo", 0.0)
    daily = over_of(lobby.handle("robo", Resign(), 1.0)).daily
    assert daily is not None and (daily.ranked, daily.rank) == (False, None)
    info = lobby.snapshot().daily
    assert info is not None and info.players == 0


def test_the_board_ranks_clears_by_time_then_the_rest_by_count() -> None:
    assert sorted([board_key(None, 40), board_key(30_000, 52), board_key(None, 45)]) == [
        (0, 30_000), (1, -45), (1, -40)
    ]  # fmt: skip
    places = (DailyPlace("g1", "Dan", 40_000, 52), DailyPlace("g2", "Eve", None, 10))
    lobby = new_lobby(DailyDeal(DAY, SEED, board=places), players=("ann", "bob", "cat"))
    race_daily(lobby, "ann", 0.0, ghost=False)
    out = play_cards(lobby, "ann", 12, 0.5)
    out += lobby.handle("ann", Resign(), 1.0)  # 12 cards: after Dan's clear, before Eve
    daily = over_of(out).daily
    assert daily is not None and daily.rank == 2
    race_daily(lobby, "bob", 2.0, ghost=False)
    out = play_cards(lobby, "bob", 10, 2.5) + lobby.handle("bob", Resign(), 3.0)
    daily = over_of(out).daily
    assert daily is not None and daily.rank == 3  # 10 cards, as Eve: after Ann's 12, with Eve
    race_daily(lobby, "cat", 4.0, ghost=False)
    out = play_cards(lobby, "cat", 10, 4.5) + lobby.handle("cat", Resign(), 5.0)
    daily = over_of(out).daily
    assert daily is not None and daily.rank == 3  # equal places share their rank
    assert lobby.snapshot().daily == DailyInfo(date=DAY, players=5, best_ms=40_000)


def test_a_ranked_clear_faster_than_the_best_is_the_ghost_from_then_on() -> None:
    deal = deal_with_ghost(first_ms=10_000, every_ms=2000)  # Cat cleared in 112 s
    lobby = new_lobby(deal)
    race_daily(lobby, "ann", 0.0)
    out = clear_at(lobby, "ann", 0.5, 0.0)
    over = over_of(out)
    assert (over.winner, over.reason) == (0, "cleared")
    assert over.daily is not None and (over.daily.ranked, over.daily.rank) == (True, 1)
    assert over.daily.time_ms == over.times_ms[0] == 26_000
    info = lobby.snapshot().daily
    assert info is not None and (info.players, info.best_ms) == (2, 26_000)  # Cat and Ann
    start = start_of(lobby.handle("bob", Daily(), 30.0))
    assert start.ghost == "Ann"
    (record,) = (o.record for o in out if isinstance(o, RaceEnded))
    assert (record.kind.daily, record.kind.ranked) == (DAY, True)
    assert record.kind.ghost is not None and record.kind.ghost.name == "Cat"


def test_a_clear_the_fair_play_rules_flag_is_not_the_ghost() -> None:
    lobby = new_lobby(deal_with_ghost(first_ms=10_000, every_ms=2000))
    race = race_daily(lobby, "ann", 0.0)
    over = over_of(clear_at(lobby, "ann", 0.5, 0.0, regular=True))  # a card every 0.5 s
    evidence = race.fair_play[0]
    assert evidence is not None and evidence.flagged
    assert over.daily is not None and (over.daily.rank, over.daily.time_ms) == (1, 26_000)
    assert start_of(lobby.handle("bob", Daily(), 30.0)).ghost == "Cat"


def test_a_practice_clear_is_not_the_ghost() -> None:
    lobby = new_lobby(deal_with_ghost(first_ms=10_000, every_ms=2000), players=())
    lobby.connect("ann", "Ann", 0.0, last_daily=DAY)
    race_daily(lobby, "ann", 0.0)
    over = over_of(clear_at(lobby, "ann", 0.5, 0.0))
    assert over.daily is not None and over.daily.ranked is False and over.daily.time_ms == 26_000
    lobby.connect("bob", "Bob", 30.0)
    assert start_of(lobby.handle("bob", Daily(), 30.0)).ghost == "Cat"


def test_a_daily_race_is_rematched_at_once_with_the_same_opponent_kind() -> None:
    lobby = new_lobby(deal_with_ghost())
    race_daily(lobby, "ann", 0.0)
    lobby.handle("ann", Resign(), 1.0)
    again = start_of(lobby.handle("ann", Rematch(), 2.0))
    assert (again.daily, again.ghost) == (DAY, "Cat")
    lobby.handle("ann", Resign(), 3.0)
    race_daily(lobby, "ann", 4.0, ghost=False)
    lobby.handle("ann", Resign(), 5.0)
    assert start_of(lobby.handle("ann", Rematch(), 6.0)).ghost is None


# -- the day rolling over -------------------------------------------------------------


def test_the_day_rolls_over_and_a_race_started_before_midnight_counts_for_its_own_day() -> None:
    lobby = new_lobby(deal_with_ghost(), players=("ann", "bob", "cat"))
    before = race_daily(lobby, "ann", 0.0)
    play_cards(lobby, "ann", 5, 0.5)
    lobby.daily_deal(DailyDeal(NEXT_DAY, NEXT_SEED))  # 00:00 UTC
    assert lobby.snapshot().daily == DailyInfo(date=NEXT_DAY, players=0, best_ms=None)
    start = start_of(lobby.handle("bob", Daily(), 1.0))
    assert (start.daily, start.ghost, start.commits[0]) == (
        NEXT_DAY,
        None,
        engine.commit(NEXT_SEED),
    )
    over = over_of(lobby.handle("ann", Resign(), 2.0))
    assert over.daily is not None and (over.daily.date, over.daily.ranked) == (DAY, True)
    assert over.daily.rank == 2  # on its own day's board, behind Cat's clear
    assert before.kind.daily == DAY
    # A new day: Ann's first race of it is ranked again.
    assert race_daily(lobby, "ann", 3.0).kind == RaceKind(daily=NEXT_DAY, ranked=True)
    info = lobby.snapshot().daily
    assert info is not None and info.players == 0  # nobody has finished today's yet


def test_the_glue_telling_the_day_again_replaces_its_best_and_board() -> None:
    lobby = new_lobby(DailyDeal(DAY, SEED))
    best = Ghost("Dan", line_of(SEED, first_ms=500, every_ms=300))
    board = (DailyPlace("g1", "Dan", 15_800, 52),)
    lobby.daily_deal(DailyDeal(DAY, SEED, best, board))
    assert lobby.snapshot().daily == DailyInfo(date=DAY, players=1, best_ms=15_800)
    assert start_of(lobby.handle("ann", Daily(), 0.0)).ghost == "Dan"


def test_a_race_of_a_day_the_lobby_no_longer_keeps_ends_unranked_on_the_board() -> None:
    lobby = new_lobby(DailyDeal(DAY, SEED))
    race_daily(lobby, "ann", 0.0)
    lobby.daily_deal(DailyDeal(NEXT_DAY, NEXT_SEED))
    lobby.daily_deal(DailyDeal("2025-06-03", SEED))
    daily = over_of(lobby.handle("ann", Resign(), 1.0)).daily
    assert daily is not None and (daily.date, daily.ranked, daily.rank) == (DAY, True, None)


def test_a_lobby_without_a_day_lists_no_daily_and_a_snapshot_encodes() -> None:
    lobby = Lobby(rng=random.Random(1), idle_limit=IDLE, grace=GRACE)
    assert "daily" not in encode(lobby.snapshot())
    lobby.daily_deal(DailyDeal(DAY, SEED))
    assert '"daily":{"date":"2025-06-01","players":0,"best_ms":null}' in encode(lobby.snapshot())
