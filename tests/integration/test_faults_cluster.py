"""Several workers lose nothing under real faults (docs/design.md, "Several workers").

Each test runs three real worker processes (``python -m server``, as the
supervisor starts them) on a real PostgreSQL and a real Redis, each worker
reaching Redis through a proxy the test can cut (:mod:`bench.chaos_faults`).
Six races run throughout, each between a player who opens a room on one
worker and one who joins it from another (or the same), so that the victim
``w1`` owns races, holds sockets of races owned elsewhere, and stays out of
others. Once every race is under way, one fault; then every race is played
to its end, the racers coming back after every drop as a client does.

After the fault and at the end, the checker (:mod:`bench.chaos_check`) holds
every frame each racer was told against PostgreSQL: every event told is
stored with its ``seq`` and card, no race has two results, each racer's
``seq`` follows on (a gap only behind a ``game_state`` on coming back),
every race ends, and none ``abandoned``.

This module has a PostgreSQL of its own, since one test stops it.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import pytest

from bench.chaos_backing import PostgresControl
from bench.chaos_crowd import Crowd
from bench.chaos_faults import Harness, recovery
from bench.chaos_racers import Pace, Racer
from tests import services

from .conftest import WINNABLE
from .test_faults_owners import end_kept

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
    from pathlib import Path

    from bench.chaos_check import Verdict
    from bench.chaos_faults import Fault
    from tests.redis_service import RedisServer

    from .racers import Client

pytestmark = pytest.mark.timeout(90)

PACE = Pace(0.08, 0.2)
"""Faster than a person, so that a race lasts about 8 s and the module under 3 minutes."""
LAYOUT = (("w1", "w2"), ("w2", "w1"), ("w1", "w1"), ("w3", "w2"), ("w1", "w3"), ("w2", "w3"))
"""Each race's worker of the room's host, and of its guest: ``w1`` is the victim."""
UNDER_WAY = 8
"""Plays each racer has made before the fault."""
SETTLE = 60.0
"""Seconds for every race to end once the fault is over: far more than one takes."""
_tests = itertools.count()


@pytest.fixture(scope="module")
def postgres() -> Iterator[tuple[str, PostgresControl]]:
    bindir = services.postgres_bindir()
    if bindir is None:
        if services.services_required():
            pytest.fail("FLOWERGARDEN_REQUIRE_SERVICES=1 but PostgreSQL is not installed")
        pytest.skip("PostgreSQL is not installed: run `make services`")
    with services.running_postgres(bindir) as admin:
        control = PostgresControl(admin, bindir)
        try:
            yield admin, control
        finally:
            control.close()


@pytest.fixture
async def harness(
    postgres: tuple[str, PostgresControl], redis_server: RedisServer, tmp_path: Path
) -> AsyncIterator[Harness]:
    admin, control = postgres
    with services.fresh_database(admin) as db:
        running = Harness(db=db, redis_server=redis_server, postgres=control, logs=tmp_path)
        try:
            await running.start()
            yield running
        finally:
            await running.close()


async def races_under_way(harness: Harness) -> Crowd:
    """The races of :data:`LAYOUT`, each racer :data:`UNDER_WAY` plays in."""
    crowd, test = Crowd(), next(_tests)
    workers = harness.workers

    def racer(name: str, first: str, seed: int, **pairing: Any) -> Racer:
        at = harness.worker(first)
        return Racer(name, workers, pace=PACE, first=at, seed=seed, news=crowd.news, **pairing)

    hosts = [
        crowd.add(racer(f"t{test}h{i}", home, i, host=True)) for i, (home, _) in enumerate(LAYOUT)
    ]
    await crowd.until(lambda: all(h.room.done() for h in hosts), 20, "every room opened")
    for i, ((_, away), host) in enumerate(zip(LAYOUT, hosts, strict=True)):
        crowd.add(racer(f"t{test}g{i}", away, 100 + i, join=host.room.result()))
    racers = crowd.racers
    await crowd.until(lambda: all(r.acked >= UNDER_WAY for r in racers), 30, "races under way")
    return crowd


async def played_out(harness: Harness, crowd: Crowd, fault: Fault) -> Verdict:
    """Check after the fault, let every race end, and check again; the final verdict."""
    after = await harness.check(crowd.racers, final=False)
    assert after.problems() == {}, after.problems()
    cut = await crowd.finish(SETTLE)
    assert cut == [], [(racer.name, racer.notes) for racer in cut]
    verdict = await harness.check(crowd.racers, final=True)
    assert verdict.problems() == {}, verdict.problems()
    assert verdict.races == len(LAYOUT)
    assert verdict.reasons == {"cleared": len(LAYOUT)}, verdict.reasons
    notes = {racer.name: racer.notes for racer in crowd.racers if racer.notes}
    assert notes == {}, notes
    return verdict


async def test_a_worker_stopped_past_its_lease_loses_nothing(harness: Harness) -> None:
    crowd = await races_under_way(harness)
    victim = harness.worker("w1")
    fault = await harness.stop_worker(victim, 7.0, crowd.racers)
    assert len(fault.affected) >= 4  # three races it owns, one with a racer on it
    await played_out(harness, crowd, fault)
    # Another worker took its races while it stood still.
    assert any(w.matching(r"took over \d+ races of w1", fault.began) for w in harness.workers)


async def test_a_worker_killed_and_restarted_within_a_second_loses_nothing(
    harness: Harness,
) -> None:
    crowd = await races_under_way(harness)
    victim = harness.worker("w1")
    fault = await harness.kill_worker(victim, crowd.racers)
    assert len(fault.affected) >= 4
    await played_out(harness, crowd, fault)
    assert all(seconds is not None for seconds in recovery(fault).values())


async def test_a_worker_cut_off_from_redis_loses_nothing(harness: Harness) -> None:
    crowd = await races_under_way(harness)
    victim = harness.worker("w1")
    fault = await harness.cut_redis(victim, 6.0, crowd.racers)
    assert len(fault.affected) >= 4
    await played_out(harness, crowd, fault)
    assert victim.matching("holding every race", fault.began)


async def test_redis_restarted_empty_loses_nothing(harness: Harness) -> None:
    crowd = await races_under_way(harness)
    fault = await harness.restart_redis(crowd.racers)
    assert len(fault.affected) == len(LAYOUT)
    await played_out(harness, crowd, fault)
    for worker in harness.workers:
        await worker.logged("subscribed again after losing Redis", 10)


async def test_postgres_stopped_for_ten_seconds_loses_nothing(harness: Harness) -> None:
    crowd = await races_under_way(harness)
    fault = await harness.stop_postgres(10.0, crowd.racers)
    assert len(fault.affected) == len(LAYOUT)
    await played_out(harness, crowd, fault)


async def test_a_race_that_ended_just_before_its_worker_died_is_told_on_coming_back(
    harness: Harness, player: Callable[..., Awaitable[Client]]
) -> None:
    """Finding of ``make chaos``: a race ended on a worker while one racer was away, and
    the worker was killed a second later. Its lobby core, which owed the racer the end,
    went with it; the racer's every ``hello`` was then answered ``welcome`` alone. The
    end is now kept in the store too (server/cluster/owed.py)."""
    w1, w2 = harness.worker("w1"), harness.worker("w2")
    ann, bob = await player(w1.url), await player(w1.url)
    await ann.send(type="create_room", rules=WINNABLE)
    await bob.send(type="join_room", code=(await ann.recv("room"))["code"])
    start = await bob.recv("game_start")
    await ann.recv("game_start")
    bob.drop()  # Bob is away when Ann resigns: w1 owes him the end
    await ann.until("opponent_away")
    await ann.send(type="resign")
    await ann.until("game_over")
    await end_kept(harness.db, bob.player_id)
    await harness.kill_worker(w1, [])  # and started again under its name, knowing nothing
    back = await player(w2.url, token=bob.token)
    await back.send(type="lobby", id="where")
    reply = await back.recv("game_state", "lobby")
    assert reply["type"] == "game_state", reply
    assert reply["game_id"] == start["game_id"] and reply["over"]["reason"] == "resigned"
