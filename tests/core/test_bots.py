"""Bots in the cores, time moved by hand: seek.bot, a bot's race, and what its opponent does."""

from __future__ import annotations

import itertools
import random

from core.bots import BOT_NAMES, bot_id
from core.events import Output, RaceEnded, RaceStarted, Wake
from core.lobby import BOT_TIMER, Lobby
from core.restore import restore
from protocol import BotRequest, GameOver, GameStart, Played, Rematch, Resign, Rules, Seek

from .helpers import GRACE, IDLE, journaled, messages

SPEED = Rules(deal="mirror", winnable_only=True)


def new_lobby() -> Lobby:
    lobby = Lobby(rng=random.Random(5), idle_limit=IDLE, grace=GRACE)
    for name in ("ann", "bob"):
        lobby.connect(name, name.title(), 0.0)
    return lobby


def start_of(out: list[Output]) -> GameStart:
    return next(m for m in messages(out) if isinstance(m, GameStart))


def run(lobby: Lobby, game_id: str, until: float) -> list[Output]:
    """Every deadline of the race up to ``until``, in order, as the glue's timer would."""
    out: list[Output] = []
    race = lobby.race(game_id)
    while race is not None and (due := race.next_deadline()) is not None and due <= until:
        out += lobby.tick(game_id, due)
    return out


def test_a_bot_at_once_takes_the_other_seat_and_is_labelled() -> None:
    lobby = new_lobby()
    out = lobby.handle("ann", Seek(rules=SPEED, bot=BotRequest(after_s=0, level=4)), 1.0)
    start = start_of(out)
    assert start.players == ["Ann", BOT_NAMES[4]]
    assert start.bots == [False, True]
    assert start.ratings == [None, None]
    assert lobby.snapshot().games[0].bots == [False, True]
    race = lobby.race(start.game_id)
    assert race is not None and race.state(None, 1.0).bots == [False, True]


def test_a_bot_plays_legal_cards_at_its_pace_to_the_end() -> None:
    lobby = new_lobby()
    start = start_of(lobby.handle("ann", Seek(rules=SPEED, bot=BotRequest(after_s=0, level=5)), 0))
    out = run(lobby, start.game_id, 600.0)
    plays = [m for m in messages(out) if isinstance(m, Played) and m.seat == 1]
    assert len(plays) == 52 and plays[-1].status == "cleared"
    over = next(m for m in messages(out) if isinstance(m, GameOver))
    assert (over.winner, over.reason) == (1, "cleared")
    gaps = [(b.t_ms - a.t_ms) / 1000 for a, b in itertools.pairwise(plays)]
    assert 0.15 < sum(gaps) / len(gaps) < 0.5  # level 5: about 0.3 s a card
    assert all(gap < IDLE for gap in gaps)
    ended = next(o for o in out if isinstance(o, RaceEnded))
    assert ended.record.player_ids == ("ann", bot_id(5))


def test_a_human_who_comes_within_the_wait_gets_the_human() -> None:
    lobby = new_lobby()
    out = lobby.handle("ann", Seek(rules=SPEED, bot=BotRequest(after_s=10, level=2)), 0.0)
    (wake,) = [o for o in out if isinstance(o, Wake)]
    assert wake == Wake(BOT_TIMER + "ann", 10.0)
    start = start_of(lobby.handle("bob", Seek(rules=SPEED), 4.0))
    assert start.players == ["Ann", "Bob"] and start.bots == [False, False]
    assert lobby.tick(BOT_TIMER + "ann", 10.0) == []  # the bot's moment passes unused


def test_nobody_within_the_wait_brings_the_bot() -> None:
    lobby = new_lobby()
    lobby.handle("ann", Seek(rules=SPEED, bot=BotRequest(after_s=10, level=1)), 0.0)
    assert lobby.tick(BOT_TIMER + "ann", 9.0) == [Wake(BOT_TIMER + "ann", 10.0)]
    start = start_of(lobby.tick(BOT_TIMER + "ann", 10.0))
    assert start.players == ["Ann", BOT_NAMES[1]]
    assert lobby.snapshot().seeking == 0


def test_a_rated_seek_races_a_bot_unrated() -> None:
    lobby = new_lobby()
    rated = Rules(deal="mirror", winnable_only=True, rated=True)
    start = start_of(lobby.handle("ann", Seek(rules=rated, bot=BotRequest(after_s=0, level=3)), 0))
    assert start.rules.rated is False and start.ratings == [None, None]


def test_a_bot_wins_when_its_opponent_resigns_and_rematches_at_once() -> None:
    lobby = new_lobby()
    start = start_of(lobby.handle("ann", Seek(rules=SPEED, bot=BotRequest(after_s=0, level=3)), 0))
    over = next(m for m in messages(lobby.handle("ann", Resign(), 1.0)) if isinstance(m, GameOver))
    assert (over.winner, over.reason) == (1, "resigned")
    again = start_of(lobby.handle("ann", Rematch(), 2.0))
    assert again.game_id != start.game_id and again.bots == [False, True]


def test_a_bot_plays_on_while_its_opponent_is_away_and_wins_if_they_stay_away() -> None:
    lobby = new_lobby()
    start = start_of(lobby.handle("ann", Seek(rules=SPEED, bot=BotRequest(after_s=0, level=1)), 0))
    lobby.disconnect("ann", 1.0)
    out = run(lobby, start.game_id, 1.0 + GRACE)
    assert any(isinstance(m, Played) and m.seat == 1 for m in messages(out))
    over = next(m for m in messages(out) if isinstance(m, GameOver))
    assert (over.winner, over.reason) == (1, "abandoned")


def test_a_restored_bot_race_goes_on_with_the_bot_playing() -> None:
    lobby = new_lobby()
    out = lobby.handle("ann", Seek(rules=SPEED, bot=BotRequest(after_s=0, level=5)), 0.0)
    start = start_of(out)
    out += run(lobby, start.game_id, 3.0)
    (first,) = (o.start for o in out if isinstance(o, RaceStarted))
    entries = [o.entry for o in journaled(out)]
    race, _ = restore(
        first, entries, elapsed=3.0, now=100.0, idle_limit=IDLE, grace=GRACE, rng=random.Random(1)
    )
    assert race.bots == [False, True]
    assert race.counts[1] == len([e for e in entries if e.seat == 1])
    due = race.next_deadline()
    assert due is not None and due <= 100.0 + 1.0  # the bot's next card, not only Ann's grace
    played = [m for m in messages(race.tick(due)) if isinstance(m, Played)]
    assert played and played[0].seat == 1
