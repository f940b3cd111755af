"""The daily deal and arenas in words (client/competition_words.py), from the protocol's own models.

The server's side is wired elsewhere; these pin what the terminal says of each message
the contract defines (PROTOCOL.md, "The daily deal", "Arenas"), on a hand-moved clock.
"""

from __future__ import annotations

from typing import Any

import pytest

from client.apidata import DailyBoard, Profile
from client.competition_words import (
    ArenaView,
    arena_line,
    arena_result_words,
    daily_line,
    daily_result_words,
    epoch,
    events_text,
    ordinal,
    race_kind_line,
    standings_line,
)
from client.lookups import DailyQuery, ProfileQuery, queries_after
from client.result import render_result
from client.screens.race_screen import race_keys
from client.state import ClientState
from protocol import (
    Arena,
    ArenaInfo,
    ArenaPlace,
    ArenaResult,
    DailyInfo,
    DailyResult,
    Standing,
)

from .wire import game_over, game_start, lobby, welcome

DAY = "2026-12-02"
NOON = "2026-12-02T12:00:00Z"
WALL = epoch(NOON)
"""The epoch's clock in these tests: noon, UTC."""
NOW = 100.0
"""The client's own clock at that moment."""


def board(*lines: tuple[str, int | None, int], date: str = DAY, players: int = 12) -> DailyBoard:
    rows = [
        {"rank": i + 1, "name": name, "time_ms": ms, "count": count, "game_id": f"g{i}"}
        for i, (name, ms, count) in enumerate(lines)
    ]
    return DailyBoard(date=date, commit="ab" * 32, players=players, board=rows)


def arena(**fields: Any) -> Arena:
    values: dict[str, Any] = {
        "arena_id": "a1",
        "name": "Hourly",
        "rules": {"deal": "mirror", "winnable_only": True},
        "status": "running",
        "starts_at": "2026-12-02T11:30:00Z",
        "ends_at": "2026-12-02T12:30:00Z",
        "joined": True,
        "standings": [
            Standing(rank=1, name="bob", score=12, streak=3, races=5, bot=False),
            Standing(rank=2, name="BOT-Hare", score=8, streak=0, races=5, bot=True),
            Standing(rank=3, name="ann", score=6, streak=2, races=4, bot=False),
        ],
        "players": 9,
        "you": ArenaPlace(rank=3, score=6, streak=2, races=4),
    }
    return Arena(**(values | fields))


def in_a_race(**start: Any) -> ClientState:
    state = ClientState("ws://x/ws", "ann")
    state.wall = lambda: WALL
    state.apply(welcome(), NOW)
    state.apply(game_start(**start), NOW)
    return state


@pytest.mark.parametrize(
    ("rank", "said"),
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"),
     (21, "21st"), (22, "22nd"), (101, "101st"), (111, "111th")],
)  # fmt: skip
def test_a_place_is_an_ordinal(rank, said):
    assert ordinal(rank) == said


# -- the daily deal ----------------------------------------------------------------------


def test_the_lobby_daily_entry_says_the_best_time_ones_place_and_streak():
    daily = DailyInfo(date=DAY, players=12, best_ms=41_250)
    line = daily_line(
        daily, board(("bob", 41_250, 52), ("eve", 50_000, 52), ("ann", None, 40)), "Ann", 4
    ).plain
    assert line == ("Daily deal: best 41.2 s, 12 raced · you 3rd · streak 4 days  d race the ghost")
    assert "streak" not in daily_line(daily, None, "ann", 0).plain
    assert "streak 1 day " in daily_line(daily, None, "ann", 1).plain


def test_before_anyone_clears_and_on_another_day_no_place_is_said():
    daily = DailyInfo(date=DAY, players=0, best_ms=None)
    yesterday = board(("ann", 41_000, 52), date="2026-12-01")
    line = daily_line(daily, yesterday, "ann", None).plain
    assert "nobody has cleared it yet, 0 raced" in line and "you" not in line
    assert daily_line(None, yesterday, "ann", 3).plain == ""  # a server with no daily deal


def test_a_daily_race_says_whose_ghost_seat_1_is_and_labels_it_a_bot():
    state = in_a_race(daily=DAY, ghost="bob", bots=[False, True])
    race = state.race
    assert race is not None and race.daily == DAY and race.ghost == "bob"
    kind = race_kind_line(race, NOW, None, "ann").plain
    assert kind == f"Daily deal {DAY}: racing bob's ghost (the day's best clear)"
    bot = in_a_race(daily=DAY, ghost=None, bots=[False, True]).race
    assert bot is not None and "racing the bot" in race_kind_line(bot, NOW, None, "ann").plain
    assert not race.reportable  # no opponent: a replay the server already took
    assert race_keys(race)[1] == [
        "beds",
        "bouquet",
        "prompt",
        "redeal",
        "resign",
        "quit_race",
        "help",
    ]


def test_a_daily_result_says_ones_time_against_the_leaders_and_ones_rank():
    state = in_a_race(daily=DAY, ghost="bob", bots=[False, True])
    result = DailyResult(date=DAY, ranked=True, rank=3, time_ms=45_300)
    state.apply(
        game_over(1, "cleared", [52, 52], seq=1, times_ms=[45_300, 41_250], daily=result), NOW + 46
    )
    race = state.race
    assert race is not None and race.over is not None and race.over.daily == result
    day = board(("bob", 41_250, 52), ("eve", 44_000, 52), ("ann", 45_300, 52))
    said = daily_result_words(race, day)
    assert said == "Daily deal: you 45.3 s · the leader 41.2 s · ranked 3rd of 12"
    # Before the board comes, the ghost's clear is the leader's time (it replays it).
    assert "the leader 41.2 s · ranked 3rd" in daily_result_words(race, None)
    text = render_result(race, day).plain
    assert said in text and "rematch" not in text  # the footer has the keys: r again, t board
    assert race_keys(race) == (
        "daily_over",
        ["daily_again", "daily_board", "lobby", "quit", "help"],
    )


def test_a_later_daily_race_is_practice_and_a_race_not_cleared_says_so():
    state = in_a_race(daily=DAY, ghost="bob", bots=[False, True])
    result = DailyResult(date=DAY, ranked=False, rank=None, time_ms=None)
    state.apply(
        game_over(1, "cleared", [30, 52], seq=1, times_ms=[20_000, 41_250], daily=result), NOW + 42
    )
    assert state.race is not None
    said = daily_result_words(state.race, None)
    assert said == (
        "Daily deal: you did not clear · the leader 41.2 s"
        " · practice: only the first race of the day is ranked"
    )


def test_the_api_is_asked_for_the_board_and_streak_when_a_day_shows_and_after_a_race():
    state = ClientState("ws://x/ws", "ann")
    state.apply(welcome(), NOW)
    plain = lobby()
    assert queries_after(state, plain) == []
    today = plain.model_copy(update={"daily": DailyInfo(date=DAY, players=1, best_ms=None)})
    assert queries_after(state, today) == [DailyQuery(), ProfileQuery("ann")]
    state.answered(DailyQuery(), board(), NOW)
    assert queries_after(state, today) == []  # asked for this day already
    tomorrow = today.model_copy(
        update={"daily": DailyInfo(date="2026-12-03", players=0, best_ms=None)}
    )
    assert DailyQuery() in queries_after(state, tomorrow)
    result = DailyResult(date=DAY, ranked=True, rank=1, time_ms=40_000)
    over = game_over(0, "cleared", [52, 30], seq=1, daily=result)
    assert queries_after(state, over) == [ProfileQuery("ann"), DailyQuery()]


def test_the_lobby_events_show_the_daily_entry_and_the_arenas():
    state = ClientState("ws://x/ws", "ann")
    state.wall = lambda: WALL
    state.apply(welcome(), NOW)
    infos = [
        ArenaInfo(
            arena_id="a1",
            name="Hourly",
            status="running",
            starts_at=NOON,
            ends_at="2026-12-02T13:00:00Z",
            players=4,
        ),
        ArenaInfo(
            arena_id="a2",
            name="Evening",
            status="upcoming",
            starts_at="2026-12-02T18:00:00Z",
            ends_at="2026-12-02T19:00:00Z",
            players=0,
        ),
    ]
    snapshot = lobby().model_copy(
        update={"daily": DailyInfo(date=DAY, players=3, best_ms=39_900), "arenas": infos}
    )
    state.apply(snapshot, NOW)
    state.answered(
        ProfileQuery("ann"), Profile(name="ann", rating=1500, provisional=True, daily_streak=2), NOW
    )
    lines = events_text(state, NOW).plain.split("\n")
    assert lines[0] == "Daily deal: best 39.9 s, 3 raced · streak 2 days  d race the ghost"
    assert lines[1] == "Arenas: 1 running, 1 to come  a lists them"
    state.apply(arena(), NOW)  # joined
    assert events_text(state, NOW + 60).plain.split("\n")[1].startswith("Arena Hourly: 3rd of 9")
    assert events_text(ClientState(), NOW).plain == ""  # no lobby yet


# -- arenas ------------------------------------------------------------------------------


def test_an_arena_counts_down_on_the_clients_clock():
    view = ArenaView.of(arena(), NOW, WALL)
    assert view.when(NOW) == "ends in 30:00"
    assert view.when(NOW + 29 * 60 + 0.5) == "ends in 1:00"
    assert view.when(NOW + 3600) == "ends in 0:00"
    soon = ArenaView.of(arena(status="upcoming", starts_at="2026-12-02T12:05:00Z"), NOW, WALL)
    assert soon.when(NOW) == "starts in 5:00"
    done = ArenaView.of(arena(status="finished"), NOW, WALL)
    assert done.when(NOW) == "finished" and not done.joined


def test_the_arena_line_says_ones_place_points_streak_and_the_pause_key():
    view = ArenaView.of(arena(), NOW, WALL)
    assert arena_line(view, NOW).plain == (
        "Arena Hourly: 3rd of 9, 6 points · wins double · ends in 30:00  z pause"
    )
    paused = ArenaView.of(arena(joined=False, you=None), NOW, WALL)
    assert arena_line(paused, NOW).plain == (
        "Arena Hourly: 9 joined · ends in 30:00  paused: a lists the arenas"
    )


def test_the_standings_label_bots_and_mark_ones_own_place():
    line = standings_line(arena(), "ANN")
    assert line.plain == "standings: 1 bob 12 · 2 BOT-Hare (bot) 8 · 3 ann 6"
    own = [span for span in line.spans if line.plain[span.start : span.end] == "3 ann 6"]
    assert own and own[0].style == "bold"
    assert standings_line(arena(standings=[]), "ann").plain == "standings: no race finished yet"


def test_an_arena_race_shows_the_standings_over_the_boards_and_its_points_after():
    state = in_a_race(arena_id="a1")
    state.apply(arena(), NOW)
    race = state.race
    assert race is not None and race.arena_id == "a1"
    kind = race_kind_line(race, NOW, state.arena, "ann").plain.split("\n")
    assert kind[0].startswith("Arena Hourly: 3rd of 9") and kind[1].startswith("standings: 1 bob")
    assert race_keys(race, arena=True)[1][-3:] == ["pause", "quit_race", "help"]
    assert "pause" not in race_keys(race)[1]  # paused already: no key for it
    points = ArenaResult(arena_id="a1", points=[4, 0])
    state.apply(game_over(0, "cleared", [52, 10], seq=1, arena=points), NOW)
    said = arena_result_words(race, state.arena)
    assert (
        said == "Arena: +4 points · you 3rd, 6 points · the next race is paired at once (z pauses)"
    )
    assert race_keys(race, arena=True) == (
        "arena_over",
        ["pause", "profile", "report", "lobby", "quit", "help"],
    )
    assert "rematch" not in render_result(race, None, state.arena).plain  # paired again instead
