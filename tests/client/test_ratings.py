"""Ratings in the client: beside names, their change at the end, the rated rule, and what the
API's answers become in the state and on screen. Pure: messages in with a chosen ``now``."""

from __future__ import annotations

import pytest

from client.api_drawings import ended_text, history_title, render_profile, summary_cells
from client.apidata import Profile, RacePage, RaceSummary, rating_text
from client.cli import parse_args
from client.lookups import HistoryQuery, LeaderboardQuery, Lookups, ProfileQuery
from client.render import render_board, rules_words
from client.result import rating_change_words, render_result
from client.state import ClientState
from protocol import RatingChange, Rules

from .apistub import RATED, profile, summary
from .wire import game_over, game_start, welcome


def rated_race(*, provisional: bool = True, seat: int = 0) -> ClientState:
    state = ClientState("ws://x/ws", "ann")
    state.apply(welcome(rating=1500, provisional=provisional), 1.0)
    state.apply(game_start(seat=seat, rules=RATED, ratings=[1500, 1620]), 2.0)
    return state


def test_ratings_are_whole_numbers_with_a_mark_when_provisional():
    assert rating_text(1523.4) == "1523"
    assert rating_text(1522.5, provisional=True) == "1522?"
    assert rating_text(None) == ""


def test_ones_own_rating_comes_with_welcome():
    state = ClientState("ws://x/ws", "ann")
    state.apply(welcome(rating=1487, provisional=False), 1.0)
    assert state.rating is not None and (state.rating.rating, state.rating.provisional) == (
        1487,
        False,
    )


def test_a_rated_race_shows_each_rating_beside_the_name():
    state = rated_race(provisional=True)
    race = state.race
    assert race is not None and race.ratings == [1500, 1620]
    mine = render_board(race, 0, 60, ascii=True, now=2.0).plain.splitlines()[0]
    theirs = render_board(race, 1, 40, ascii=True, now=2.0).plain.splitlines()[0]
    assert mine.startswith("ann (you) 1500?  0/52")
    assert theirs.startswith("bob 1620  0/52")  # not known to be provisional yet
    state.answered(
        ProfileQuery("bob"), Profile.model_validate(profile("Bob", 1620, provisional=True)), 3.0
    )
    theirs = render_board(race, 1, 40, ascii=True, now=3.0).plain.splitlines()[0]
    assert theirs.startswith("bob 1620?  0/52")
    assert state.opponent == "bob"


def test_an_unrated_race_shows_no_rating():
    state = ClientState("ws://x/ws", "ann")
    state.apply(welcome(), 1.0)
    state.apply(game_start(), 2.0)
    assert state.race is not None
    assert render_board(state.race, 0, 60, ascii=True, now=2.0).plain.startswith("ann (you)  0/52")


@pytest.mark.parametrize("seat", [0, 1])
def test_the_result_says_how_each_rating_changed(seat):
    state = rated_race(seat=seat)
    ratings = [RatingChange(before=1500, after=1523), RatingChange(before=1620, after=1597)]
    state.apply(game_over(0, "resigned", [0, 0], seq=1, ratings=ratings), 10.0)
    race = state.race
    assert race is not None
    text = render_result(race).plain
    assert "rating: ann 1500 → 1523 (+23)   ·   bob 1620 → 1597 (-23)" in text
    assert "o  their profile" in text
    mine = state.rating
    assert mine is not None and mine.rating == (1523 if seat == 0 else 1597)
    assert mine.provisional  # until one's profile says otherwise


def test_rating_change_words():
    assert rating_change_words(RatingChange(before=1500, after=1500)) == "1500 → 1500 (±0)"
    assert rating_change_words(RatingChange(before=1500, after=1491)) == "1500 → 1491 (-9)"


def test_ones_profile_updates_ones_rating():
    state = rated_race(provisional=True)
    state.answered(ProfileQuery("ann"), Profile.model_validate(profile("ann", 1533.6)), 5.0)
    assert state.rating is not None and (state.rating.rating, state.rating.provisional) == (
        1534,
        False,
    )
    assert state.race is not None and state.race.provisional[0] is False


# -- the rated rule -------------------------------------------------------------------


def test_rated_is_in_the_rules_words():
    assert rules_words(RATED) == "rated · mirror · winnable"
    assert rules_words(Rules(deal="mirror", winnable_only=True)) == "mirror · winnable"


def test_the_command_line_asks_for_a_rated_race():
    assert parse_args(["--rated", "--seek"], encoding="utf-8").rules == RATED


@pytest.mark.parametrize(
    "argv", [["--rated", "--deal", "independent"], ["--rated", "--any-layout"]]
)
def test_a_rated_race_needs_mirror_and_winnable(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        parse_args(argv, encoding="utf-8")
    assert exc.value.code == 2
    assert "--rated needs the mirror deal and winnable layouts" in capsys.readouterr().err


# -- what the API answered ------------------------------------------------------------


def test_a_summary_from_either_side():
    race = RaceSummary.model_validate(summary("g1", ("Ann", "bob"), winner=1))
    assert race.seat_of("ann") == 0 and race.seat_of("BOB") == 1 and race.seat_of("cat") is None
    ended = ended_text("2024-05-02T10:30:00+00:00")
    assert summary_cells(race, "ann") == (ended, "bob", "lost", "6-3", "5.5 s", "1478 (-22)")
    assert summary_cells(race, "bob") == (ended, "Ann", "won", "3-6", "5.0 s", "1502 (+22)")
    assert summary_cells(race, "cat")[2] == "bob won"  # someone else's race
    unrated = RaceSummary.model_validate(summary("g2", rated=False))
    assert summary_cells(unrated, "ann")[-1] == "" and unrated.rating_before(0) is None


def test_a_summary_with_the_ratings_before_alone():
    data = summary("g1") | {"ratings": [1500, None]}
    race = RaceSummary.model_validate(data)
    assert race.rating_before(0) == 1500 and race.change(0) is None


def test_ended_is_shown_in_local_time_and_kept_when_it_does_not_read():
    assert len(ended_text("2024-05-02T10:30:00+00:00")) == len("2024-05-02 10:30")
    assert ended_text("yesterday") == "yesterday"


def test_a_profile_in_words():
    lookups = Lookups()
    lookups.answered(ProfileQuery("ann"), Profile.model_validate(profile(provisional=True)), 0.0)
    text = render_profile(lookups.profile("ANN"), "ANN").plain
    assert "ann   rating 1523?" in text and "provisional" in text
    assert "12 races: 7 won · 1 drawn · 4 lost" in text
    assert "best clear: 41.2 s" in text and "joined 2024-05-01" in text


def test_a_lookup_is_asked_once_at_a_time_and_keeps_its_value_while_asked_again():
    lookups = Lookups()
    assert lookups.ask(LeaderboardQuery()) and not lookups.ask(LeaderboardQuery())
    lookups.failed(LeaderboardQuery(), "cannot reach x")
    assert lookups.leaderboard.error == "cannot reach x" and not lookups.leaderboard.pending
    assert lookups.ask(ProfileQuery("ann"))
    lookups.answered(ProfileQuery("ann"), Profile.model_validate(profile()), 0.0)
    assert lookups.ask(ProfileQuery("Ann"))  # asked again: the old answer stays meanwhile
    assert lookups.profile("ann").value is not None and lookups.profile("ann").pending


def page(*ids: str, next: str | None = None) -> RacePage:
    return RacePage(races=[RaceSummary.model_validate(summary(i)) for i in ids], next=next)


def test_a_history_pages_on_with_the_cursor():
    lookups = Lookups()
    history = lookups.history("ann")
    assert history_title(history) == "ann's races"
    lookups.ask(HistoryQuery("ann"))
    lookups.answered(HistoryQuery("ann"), page("g9", "g8", next="g8"), 0.0)
    assert [r.game_id for r in history.races] == ["g9", "g8"] and history.more
    assert history_title(history) == "ann's races: 2 shown · n: older ones · Enter replays"
    lookups.ask(HistoryQuery("ann", before="g8"))
    lookups.answered(HistoryQuery("ann", before="g8"), page("g8", "g7"), 0.0)
    assert [r.game_id for r in history.races] == ["g9", "g8", "g7"] and not history.more
    assert history_title(history).endswith("3 shown (all of them) · Enter replays")
    lookups.ask(HistoryQuery("ann"))  # from the top again: the newest page starts the list
    lookups.answered(HistoryQuery("ann"), page("g10", next="g10"), 0.0)
    assert [r.game_id for r in history.races] == ["g10"]


def test_an_empty_history_says_so():
    lookups = Lookups()
    lookups.answered(HistoryQuery("ann"), page(), 0.0)
    assert history_title(lookups.history("ann")) == "ann's races: none finished yet"


def test_a_record_that_does_not_read_is_a_failed_lookup():
    from client.apidata import RaceRecordData
    from client.lookups import RaceQuery

    lookups = Lookups()
    lookups.ask(RaceQuery("g1"))
    lookups.answered(RaceQuery("g1"), RaceRecordData.of(summary("g1")), 0.0)
    race = lookups.race("g1")
    assert race.value is None and not race.pending
    assert race.error.startswith("the record does not read: ")
