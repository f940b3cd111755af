"""The daily deal in the store, on SQLite and PostgreSQL (server/store/daily_rows.py).

A day's seed is drawn once, whoever draws first; a ranked daily race enters its day's
board and its player's streak in the transaction that records it; a live daily race
keeps its kind, ghost and all, for a restart.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import pytest

import engine
from core.daily import DailyPlace
from core.fair_play import Evidence
from core.ghost import Ghost, LineMove
from core.race_kind import RaceKind
from core.race_log import FinishedRace, MoveRecord, RaceStart
from server.store import daily_rows as daily

from ..store_backends import recorded
from .test_store import ANN, BOB, CAT, DAN, with_players

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from server.store import Store

    from ..store_backends import AnyBackend

DAY = "2026-03-14"
FLAGGED = Evidence(52, 40, 0.01, 0.02, 0.3, 0.2, ("fast",))


@pytest.fixture
async def store(backend: AnyBackend) -> AsyncIterator[Store]:
    store = await with_players(backend)
    yield store
    await store.close()


def daily_race(
    game_id: str,
    *,
    day: str = DAY,
    player: str = ANN.player_id,
    last_ms: int = 4000,
    cleared: bool = True,
    ranked: bool = True,
    reason: str | None = None,
) -> FinishedRace:
    """A daily race of ``player`` in seat 0 (Bob sits in seat 1, for the store's keys)."""
    other = BOB.player_id if player != BOB.player_id else ANN.player_id
    moves = (
        MoveRecord(0, 0, "1S", 1.0),
        MoveRecord(1, 1, "2H", 1.5),
        MoveRecord(2, 0, "redeal", 2.0),
        MoveRecord(3, 0, "3D", last_ms / 1000),
    )
    return FinishedRace(
        game_id=game_id,
        rules_json='{"deal":"mirror"}',
        dealing="sha256",
        seeds=("ab" * 32, "ab" * 32),
        player_ids=(player, other),
        started=0.0,
        ended=60.0,
        moves=moves,
        result="win",
        winner=0 if cleared else 1,
        reason=reason or ("cleared" if cleared else "stalled"),
        counts=(52, 40) if cleared else (30, 40),
        kind=RaceKind(daily=day, ranked=ranked),
    )


async def keep(store: Store, race: FinishedRace, ended: float = 5000.0) -> None:
    await recorded(store, race, ended - 60, ended)


async def test_a_day_is_drawn_once_whoever_draws_first(store: Store) -> None:
    first, second = b"\x01" * engine.SEED_SIZE, b"\x02" * engine.SEED_SIZE
    drawn = await store.run(daily.draw(DAY, first, 100.0))
    again = await store.run(daily.draw(DAY, second, 200.0))
    assert drawn == again == daily.DailyRow(DAY, first, engine.commit(first))
    assert await daily.day_row(store, DAY) == drawn
    assert await daily.day_row(store, "2026-03-15") is None


async def test_a_ranked_race_enters_the_board_and_gives_the_ghost(store: Store) -> None:
    await keep(store, daily_race("g-ann", last_ms=4000))
    await keep(store, daily_race("g-bob", player=BOB.player_id, cleared=False))
    assert await daily.board(store, DAY) == [
        DailyPlace("g-ann", "Ann", 4000, 52),
        DailyPlace("g-bob", "Bob", None, 30),
    ]
    assert await daily.results_count(store, DAY) == 2
    # Seat 0's line only, the redeal included, at its own times.
    line = (LineMove("1S", 1000), LineMove("redeal", 2000), LineMove("3D", 4000))
    assert await daily.best(store, DAY) == Ghost("Ann", line)


async def test_a_page_of_the_board_and_the_races_kept_since_a_moment(store: Store) -> None:
    await keep(store, daily_race("g-slow", last_ms=9000), ended=5000.0)
    await keep(store, daily_race("g-fast", player=BOB.player_id, last_ms=3000), ended=6000.0)
    assert [place.game_id for place in await daily.board(store, DAY, 1)] == ["g-fast"]
    assert [place.game_id for place in await daily.board(store, DAY)] == ["g-fast", "g-slow"]
    assert [(place.game_id, ended) for place, ended in await daily.since(store, DAY, 5500.0)] == [
        ("g-fast", 6000.0)
    ]
    assert len(await daily.since(store, DAY, 0.0)) == 2
    assert await daily.since(store, "2026-03-15", 0.0) == []


async def test_only_the_first_ranked_race_of_a_day_is_kept(store: Store) -> None:
    await keep(store, daily_race("g-first", last_ms=9000))
    await keep(store, daily_race("g-again", last_ms=1000))  # two workers thought it first
    await keep(store, daily_race("g-practice", last_ms=500, ranked=False))
    assert [place.game_id for place in await daily.board(store, DAY)] == ["g-first"]
    assert await daily.streaks(store, ANN.player_id, DAY) == daily.Streaks(1, 1)


async def test_aborted_unranked_and_flagged_races(store: Store) -> None:
    await keep(store, daily_race("g-aborted", reason="aborted"))
    assert await daily.board(store, DAY) == []
    flagged = dataclasses.replace(daily_race("g-flagged"), fair_play=(FLAGGED, None))
    await keep(store, flagged)
    # On the board (the lobby core ranked it), but never anyone's ghost.
    assert [place.game_id for place in await daily.board(store, DAY)] == ["g-flagged"]
    assert await daily.best(store, DAY) is None


async def test_streaks_count_days_in_a_row(store: Store) -> None:
    days = ["2026-03-10", "2026-03-11", "2026-03-12", "2026-03-14", "2026-03-15"]
    for index, day in enumerate(days):
        await keep(store, daily_race(f"g{index}", day=day), ended=5000.0 + index)
    player = ANN.player_id
    assert await daily.streaks(store, player, "2026-03-15") == daily.Streaks(2, 3)
    assert await daily.streaks(store, player, "2026-03-16") == daily.Streaks(2, 3)  # may race yet
    assert await daily.streaks(store, player, "2026-03-17") == daily.Streaks(0, 3)
    assert await daily.streaks(store, BOB.player_id, "2026-03-15") == daily.Streaks(0, 0)
    standing = await store.standing(player)
    assert standing is not None and standing.last_daily == "2026-03-15"


async def test_ties_share_a_rank() -> None:
    places = [
        DailyPlace("a", "A", 100, 52),
        DailyPlace("b", "B", 100, 52),
        DailyPlace("c", "C", 200, 52),
        DailyPlace("d", "D", None, 40),
        DailyPlace("e", "E", None, 40),
        DailyPlace("f", "F", None, 39),
    ]
    assert daily.ranks(places) == [1, 1, 3, 4, 4, 6]


async def test_a_live_daily_race_keeps_its_kind_and_ghost(store: Store) -> None:
    ghost = Ghost("Ann", (LineMove("1S", 1000), LineMove("redeal", 2500)))
    kind = RaceKind(daily=DAY, ranked=True, ghost=ghost)
    start = RaceStart(
        game_id="g-live",
        rules_json='{"deal":"mirror"}',
        dealing="sha256",
        seeds=("ab" * 32, "ab" * 32),
        player_ids=(BOB.player_id, ANN.player_id),
        names=("Bob", "Ann"),
        kind=kind,
    )
    await store.begin_race(start, 1000.0)
    await store.add_player(CAT)
    await store.add_player(DAN)
    # Cat and Dan: a person races one race at a time.
    people = (CAT.player_id, DAN.player_id)
    plain = dataclasses.replace(start, game_id="g-plain", kind=RaceKind(), player_ids=people)
    await store.begin_race(plain, 1001.0)
    kinds = {live.game_id: live.kind for live, _, _ in await store.live_races()}
    assert kinds == {"g-live": kind, "g-plain": RaceKind()}
