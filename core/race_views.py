"""A race as others see it: its ``game_start``, ``game_state`` and ``game_over``, and
what the store keeps of it (its start, its record).

Pure functions of a race as it stands (a :class:`~core.race_state.RaceState`),
read through its public attributes; the race calls them, so that the race core
itself keeps to its inputs and deadlines.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from protocol import GameOver, GameStart, GameState, board_to_wire

from .events import RaceEnded, Send
from .race_log import FinishedRace, RaceStart, to_ms
from .seeding import stored

if TYPE_CHECKING:
    from protocol import ArenaResult, DailyResult

    from .events import Output
    from .race_state import RaceState

__all__ = [
    "finished_race",
    "game_over",
    "game_starts",
    "game_state",
    "race_start",
    "with_results",
]


def race_start(race: RaceState) -> RaceStart:
    """What the journal keeps of ``race`` before its ``game_start`` goes out."""
    dealing, seeds = stored(race.dealers)
    first, second = race.player_ids
    name0, name1 = race.names
    first_seat, second_seat = race.seats
    return RaceStart(
        game_id=race.game_id,
        rules_json=race.rules_json,
        dealing=dealing,
        seeds=seeds,
        player_ids=(first, second),
        names=(name0, name1),
        ratings=race.ratings,
        bots=(first_seat.info.bot, second_seat.info.bot),
        kind=race.kind,
    )


def game_starts(race: RaceState) -> list[Send]:
    """Each player's ``game_start`` (seq 0): the same but for the seat."""
    first, second = race.seats
    board = board_to_wire(first.board, first.status)
    # A mirror race deals both seats one layout: the same board on the wire.
    mirror = race.dealers[0] == race.dealers[1]
    boards = [board, board if mirror else board_to_wire(second.board, second.status)]
    kind = race.kind
    ghost = None if kind.ghost is None else kind.ghost.name
    return [
        Send(
            (seat.info.player_id,),
            GameStart(
                game_id=race.game_id,
                seat=index,
                players=race.names,
                bots=race.bots,
                ratings=race.shown_ratings,
                rules=race.rules,
                boards=boards,
                commits=race.commits,
                seq=0,
                daily=kind.daily,
                ghost=ghost,
                arena_id=kind.arena_id,
            ),
        )
        for index, seat in enumerate(race.seats)
    ]


def game_state(race: RaceState, seat: int | None, now: float) -> GameState:
    """The whole race at ``now`` for a player (``seat``) or a spectator (None)."""
    until = now if race.ended is None else race.ended
    limit = race.rules.time_limit_s
    left = None if limit is None else to_ms(max(0.0, race.started + limit - until))
    return GameState(
        game_id=race.game_id,
        seat=seat,
        players=race.names,
        bots=race.bots,
        ratings=race.shown_ratings,
        rules=race.rules,
        boards=[board_to_wire(s.board, s.status) for s in race.seats],
        commits=race.commits,
        elapsed_ms=to_ms(max(0.0, until - race.started)),
        clock_left_ms=left,
        seq=race.seq,
        over=race.over,
    )


def game_over(race: RaceState, winner: int | None, reason: str) -> GameOver:
    """The ``game_over`` of ``race``, which has just taken its final ``seq``."""
    ratings = None
    if race.ratings is not None and race.ratings_after is not None:
        pairs = zip(race.ratings, race.ratings_after, strict=True)
        ratings = [{"before": before.shown, "after": after.shown} for before, after in pairs]
    return GameOver.model_validate(
        {
            "game_id": race.game_id,
            "result": "draw" if winner is None else "win",
            "winner": winner,
            "reason": reason,
            "counts": race.counts,
            "times_ms": [seat.last_card_ms() for seat in race.seats],
            "seeds": race.seeds,
            "ratings": ratings,
            "unrated": race.unrated,
            "seq": race.seq,
        }
    )


def finished_race(race: RaceState, now: float) -> FinishedRace:
    """The record the store keeps of ``race``, over at ``now``."""
    over = race.over
    assert over is not None, "the race is not over"
    first, second = race.seats
    # Each seat's moves are in seq order, and seqs are unique: tuples sort by seq.
    moves = sorted([*first.moves, *second.moves])
    dealing, seeds = stored(race.dealers)
    return FinishedRace(
        game_id=race.game_id,
        rules_json=race.rules_json,
        dealing=dealing,
        seeds=seeds,
        player_ids=(first.info.player_id, second.info.player_id),
        started=race.started,
        ended=now,
        moves=tuple(moves),
        result=over.result,
        winner=over.winner,
        reason=over.reason,
        counts=(over.counts[0], over.counts[1]),
        ratings=race.ratings,
        ratings_after=race.ratings_after,
        unrated=race.unrated,
        fair_play=race.fair_play,
        kind=race.kind,
    )


def with_results(
    race: RaceState, out: list[Output], daily: DailyResult | None, arena: ArenaResult | None
) -> list[Output]:
    """``out``, the outputs that ended ``race``, with its ``game_over`` and its record
    saying what it did on its day's board (``daily``) or in its arena (``arena``).

    The desks that know it (:mod:`core.daily`, :mod:`core.arenas`) learn only
    once the race is over; the race's own ``game_over`` (kept for whoever
    comes back) becomes the one with their results.
    """
    old = race.over
    if old is None or (daily is None and arena is None):
        return out
    over = race.over = old.model_copy(update={"daily": daily, "arena": arena})
    points = None if arena is None else (arena.points[0], arena.points[1])
    amended: list[Output] = []
    for item in out:
        if isinstance(item, Send) and item.message is old:
            amended.append(Send(item.to, over))
        elif isinstance(item, RaceEnded) and item.record.game_id == race.game_id:
            amended.append(RaceEnded(replace(item.record, arena_points=points)))
        else:
            amended.append(item)
    return amended
