"""The bot's policy, driven in the race core with time moved by hand.

:class:`BotRace` does what the server's glue and an in-process bot would do:
it asks each seat's policy for its next move whenever that seat's board
changes, and moves the clock to whichever comes first, the next bot move or
the race's next deadline (which it ticks). Nothing sleeps and nothing is
real time, so a thousand cards take milliseconds.

The tolerances are docs/bots.md's: a level's mean gap before a card within
±10% of its target, and its standard deviation within ±20% of the table's.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import statistics
from dataclasses import dataclass, field

import pytest

import engine
from core.bot_policy import IDLE_MARGIN, LEVELS, PACES, BotMove, BotPolicy, effort
from core.race import Race
from protocol import RACING, GameOver, Rules

from .helpers import ANN, BOB, GRACE, IDLE, NO_PLAY, ONE, redeal_with_a_play

MEAN_TOLERANCE = 0.10
STDEV_TOLERANCE = 0.20
STDEV = {1: 1.62, 2: 0.89, 3: 0.53, 4: 0.304, 5: 0.157}
"""Each level's standard deviation of the gap before a card (docs/bots.md's table)."""
WINNABLE = Rules(deal="mirror", winnable_only=True)


def seed(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


@dataclass
class Seen:
    """One move a policy chose, and what it was told when it chose it."""

    move: BotMove
    at: float
    idle_left: float | None
    clock_left: float | None


@dataclass
class BotSeat:
    policy: BotPolicy
    plan: Seen | None = None
    seen: list[Seen] = field(default_factory=list)

    @property
    def gaps(self) -> list[float]:
        """The gap before each card the bot played (not its redeals)."""
        return [s.move.delay for s in self.seen if s.move.card is not None]


class BotRace:
    """A race in the core with a bot in both seats; see the module's docstring."""

    def __init__(self, race: Race, levels: tuple[int, int], rng: random.Random) -> None:
        self.race = race
        self.seats = [BotSeat(BotPolicy(level, rng)) for level in levels]
        self.played: list[Seen] = []
        """Every move the race accepted, in order."""

    def run(self) -> GameOver:
        race = self.race
        race.start(0.0)
        for index in (0, 1):
            self._plan(index, 0.0)
        while race.over is None:
            plans = [(s.plan.at, i) for i, s in enumerate(self.seats) if s.plan is not None]
            deadline = race.next_deadline()
            assert plans or deadline is not None, "nobody has anything to do"
            if deadline is not None and (not plans or deadline <= min(plans)[0]):
                race.tick(deadline)
                for index in (0, 1):
                    if race.status_of(index) not in RACING:
                        self.seats[index].plan = None
                continue
            self._move(*min(plans))
        return race.over

    def _move(self, at: float, index: int) -> None:
        plan = self.seats[index].plan
        assert plan is not None
        card = plan.move.card
        if card is None:
            self.race.redeal(index, at)
        else:
            board = self.race.boards()[index]
            assert board.is_legal(card), f"{card} is not legal on {board}"
            self.race.play(index, card, at)
        self.played.append(plan)
        self._plan(index, at)

    def _plan(self, index: int, now: float) -> None:
        """Ask the seat's policy, just after its board changed (the idle limit restarted)."""
        seat, race = self.seats[index], self.race
        seat.plan = None
        if race.status_of(index) not in RACING or race.over is not None:
            return
        limit = race.rules.time_limit_s
        clock_left = None if limit is None else race.started + limit - now
        idle_left = race.idle_limit
        board = race.boards()[index]
        move = seat.policy.next_move(board, idle_left=idle_left, clock_left=clock_left)
        if move is not None:
            seat.plan = Seen(move, now + move.delay, idle_left, clock_left)
            seat.seen.append(seat.plan)


def bot_race(
    number: int,
    levels: tuple[int, int],
    rng: random.Random,
    rules: Rules = WINNABLE,
    idle_limit: float | None = IDLE,
) -> BotRace:
    dealers: tuple[engine.Dealer, engine.Dealer]
    if rules.deal == "mirror":
        dealer = engine.SeedDealer(seed(f"bots {number}"))
        dealers = (dealer, dealer)
    else:
        dealers = (
            engine.SeedDealer(seed(f"bots {number} a")),
            engine.SeedDealer(seed(f"bots {number} b")),
        )
    race = Race(f"race-{number}", (ANN, BOB), rules, dealers, idle_limit=idle_limit, grace=GRACE)
    return BotRace(race, levels, rng)


def played_out(board: engine.Board) -> engine.Board:
    for card in engine.greedy_plays(board):
        board.play(card)
    return board


# -- pace -------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_pace_per_level_mean_and_spread(level):
    rng = random.Random(1000 + level)
    gaps: list[float] = []
    for number in range(60):
        bots = bot_race(number, (level, level), rng)
        over = bots.run()
        assert over.reason == "cleared"
        gaps += bots.seats[0].gaps + bots.seats[1].gaps
    assert len(gaps) > 5000
    target = PACES[level].seconds
    mean, stdev = statistics.fmean(gaps), statistics.pstdev(gaps)
    assert abs(mean - target) <= MEAN_TOLERANCE * target, (level, mean)
    assert abs(stdev - STDEV[level]) <= STDEV_TOLERANCE * STDEV[level], (level, stdev)
    assert min(gaps) > 0.05 * target  # a reaction time comes before every card


def test_levels_are_ordered_and_the_same_seed_repeats():
    means = []
    for level in LEVELS:
        bots = bot_race(7, (level, level), random.Random(5))
        bots.run()
        means.append(statistics.fmean(bots.seats[0].gaps))
    assert means == sorted(means, reverse=True)
    again = bot_race(7, (3, 3), random.Random(5))
    again.run()
    first = bot_race(7, (3, 3), random.Random(5))
    first.run()
    assert [s.move for s in first.played] == [s.move for s in again.played]


def test_a_harder_card_takes_longer():
    # Search effort: a bed's front over the bouquet, fewer playable cards, a fuller board.
    assert effort("bed", 20, 2) > effort("bouquet", 20, 2) > effort("follow-up", 20, 2)
    assert effort("bouquet", 20, 1) > effort("bouquet", 20, 3)
    assert effort("bouquet", 20, 1) > effort("bouquet", 5, 1)
    bots = bot_race(3, (3, 3), random.Random(2))
    bots.run()
    seen = bots.played
    hard = [s.move.delay for s in seen if s.move.effort >= 6]
    easy = [s.move.delay for s in seen if s.move.effort <= 1.5]
    assert hard and easy
    assert statistics.fmean(hard) > 2 * statistics.fmean(easy)


def two_aces() -> engine.Board:
    """A fresh board where only AS (in the bouquet) and AH (bed 1's front) are playable."""
    aces = (0, 13, 26, 39)  # AS AH AD AC
    others = [card for card in range(52) if card not in aces]
    bouquet, rest = [0, *others[:15]], others[15:]
    beds = [[*rest[0:5], 13], [26, *rest[5:10]], [39, *rest[10:15]]]
    beds += [rest[15:21], rest[21:27], rest[27:33]]
    board = engine.Board.from_parts(beds, bouquet, [0, 0, 0, 0])
    assert [str(card) for card in board.legal_plays()] == ["AS", "AH"]
    return board


def test_the_bouquet_is_noticed_first_and_a_bed_is_slower():
    board, rng = two_aces(), random.Random(4)
    delays: dict[str, list[float]] = {"AS": [], "AH": []}
    for _ in range(3000):
        move = BotPolicy(3, rng).next_move(board, idle_left=None, clock_left=None)
        assert move is not None and move.card is not None
        delays[str(move.card)].append(move.delay)
    # Noticed 2 to 1 (NOTICE): the bouquet's card two times in three.
    assert abs(len(delays["AS"]) / 3000 - 2 / 3) < 0.04
    # The same search, but a bed's front is harder to see (PLACE: 1.6 against 1.0).
    assert statistics.fmean(delays["AH"]) > 1.2 * statistics.fmean(delays["AS"])


def test_the_next_card_of_the_suit_just_played_is_a_follow_up():
    board, policy = two_aces(), BotPolicy(3, random.Random(1))
    move = policy.next_move(board, idle_left=None, clock_left=None)
    assert move is not None and move.card is not None
    board.play(move.card)
    places = {str(card): place for card, place, _ in policy.efforts(board)}
    if str(move.card) == "AS":  # 2S is in the bouquet, next to it
        assert places == {"2S": "follow-up", "AH": "bed"}
    else:
        assert places["AS"] == "bouquet"


# -- legality and the redeal ----------------------------------------------------------


def test_only_legal_cards_and_redeals_when_stuck_on_classic_deals():
    rules = Rules(deal="independent", winnable_only=False, redeals=1)
    rng = random.Random(11)
    redeals = 0
    for number in range(60):
        bots = bot_race(number, (5, 4), rng, rules)  # BotRace asserts every card is legal
        over = bots.run()
        assert over.reason in {"cleared", "most_cards", "equal_cards"}, over
        redeals += sum(1 for s in bots.played if s.move.redeal)
        for index in (0, 1):
            assert bots.race.status_of(index) in {"playing", "stuck", "stalled", "cleared"}
    assert redeals > 20


def test_a_stuck_board_is_redealt_and_then_played():
    board = played_out(engine.Board(engine.deal(ONE), 1))
    assert board.status is engine.Status.STUCK
    move = BotPolicy(2, random.Random(1)).next_move(board, idle_left=60.0, clock_left=None)
    assert move is not None and move.redeal and move.card is None and move.delay > 0
    # In the core: the bot redeals and plays on from the board the redeal dealt.
    race = Race(
        "race-r",
        (ANN, BOB),
        Rules(redeals=1),
        (engine.LegacyDealer(ONE, redeal_with_a_play(ONE)), engine.LegacyDealer(NO_PLAY, 0)),
        idle_limit=IDLE,
        grace=GRACE,
    )
    bots = BotRace(race, (5, 5), random.Random(3))
    bots.run()
    moves = [s.move for s in bots.seats[0].seen]
    first_redeal = next(i for i, m in enumerate(moves) if m.redeal)
    assert first_redeal == 1  # one card, stuck, redeal
    assert len(moves) > first_redeal + 1
    assert race.boards()[0].redeals_left == 0


@pytest.mark.parametrize("status", ["stalled", "cleared"])
def test_nothing_to_do_when_stalled_or_cleared(status):
    if status == "stalled":
        board = engine.Board(engine.deal(NO_PLAY), 0)
        stalled_after_play = played_out(engine.Board(engine.deal(ONE), 0))
        assert stalled_after_play.status is engine.Status.STALLED
        boards = [board, stalled_after_play]
    else:
        boards = [played_out(engine.Board(engine.winnable_deal(1)))]
    for board in boards:
        assert board.status.value == status
        policy = BotPolicy(1, random.Random(0))
        assert policy.next_move(board, idle_left=60.0, clock_left=100.0) is None


def test_never_resigns():
    # A move plays a card or redeals: there is nothing else it can say.
    assert [f.name for f in dataclasses.fields(BotMove)] == ["delay", "card", "effort"]
    public = {name for name in dir(BotPolicy) if not name.startswith("_")}
    assert public == {"next_move", "efforts"}
    bots = bot_race(4, (1, 5), random.Random(8))  # the slow bot loses, and plays to the end
    over = bots.run()
    assert over.reason == "cleared" and over.winner == 1
    assert race_statuses(bots) == ["playing", "cleared"]


def race_statuses(bots: BotRace) -> list[str]:
    return [bots.race.status_of(index) for index in (0, 1)]


def test_a_level_must_be_one_to_five():
    for level in (0, 6):
        with pytest.raises(ValueError, match="1 to 5"):
            BotPolicy(level, random.Random())


# -- the idle limit and the clock ---------------------------------------------------


@pytest.mark.parametrize("idle_left", [60.0, 3.0, 2.0, 1.0, 0.2])
def test_never_waits_past_the_idle_limit_less_the_margin(idle_left):
    board = played_out(engine.Board(engine.deal(ONE), 1))  # stuck: a redeal, slow to see
    fresh = engine.Board(engine.deal(ONE), 1)
    latest = idle_left - IDLE_MARGIN if idle_left >= 2 * IDLE_MARGIN else idle_left / 2
    policy = BotPolicy(1, random.Random(6))
    for _ in range(500):
        for seen in (board, fresh):
            move = policy.next_move(seen, idle_left=idle_left, clock_left=None)
            assert move is not None
            assert 0 <= move.delay <= latest


def test_a_slow_bot_never_times_out_under_a_short_idle_limit():
    rng = random.Random(21)
    capped = 0
    for number in range(10):
        bots = bot_race(number, (1, 1), rng, idle_limit=2.5)  # level 1 is 2 s a card
        over = bots.run()
        assert over.reason == "cleared"
        assert "timed_out" not in race_statuses(bots)
        capped += sum(1 for s in bots.played if s.move.delay == pytest.approx(2.5 - IDLE_MARGIN))
        assert all(s.move.delay <= 2.5 - IDLE_MARGIN for s in bots.played)
    assert capped > 50  # the limit did hold the bot back


def test_the_clock_ends_the_race_and_no_move_is_planned_past_it():
    rules = Rules(deal="mirror", winnable_only=True, time_limit_s=30)
    bots = bot_race(2, (1, 1), random.Random(9), rules)  # 52 cards at 2 s: past 30 s
    over = bots.run()
    assert over.reason == "time"
    assert race_statuses(bots) == ["timed_out", "timed_out"]
    for seat in bots.seats:
        for seen in seat.seen:
            assert seen.clock_left is not None and seen.move.delay < seen.clock_left
            assert seen.at < 30
    assert 0 < sum(over.counts) < 52
    board = engine.Board(engine.winnable_deal(1))
    late = BotPolicy(1, random.Random(0))
    assert all(late.next_move(board, idle_left=None, clock_left=0.05) is None for _ in range(200))
