"""server/http/metrics.py on its own: what each call the glue makes shows in the exposition."""

from __future__ import annotations

import asyncio
import random

import pytest
from prometheus_client.parser import text_string_to_metric_families

from core.lobby import Lobby
from server.http.metrics import Metrics


def metrics(players: int = 0, connections: int = 0, worker: str = "0") -> Metrics:
    lobby = Lobby(rng=random.Random(0), idle_limit=None, grace=0.0)
    return Metrics(lobby, [None] * players, lambda: connections, worker)


def samples(m: Metrics) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(m.render().decode())
        for s in family.samples
    }


def test_counts_callbacks_and_placeholders():
    m = metrics(players=2, connections=5, worker="w3")
    m.plays += 3
    m.messages += 4
    m.error("bad_json")
    m.error("bad_json")
    m.closed(1000)
    m.closed(None)
    got = samples(m)
    assert got[("flowergarden_plays_total", frozenset())] == 3
    assert got[("flowergarden_messages_received_total", frozenset())] == 4
    assert got[("flowergarden_errors_sent_total", frozenset({("code", "bad_json")}))] == 2
    assert got[("flowergarden_closes_total", frozenset({("code", "1000")}))] == 1
    assert got[("flowergarden_closes_total", frozenset({("code", "1006")}))] == 1
    assert got[("flowergarden_players_online", frozenset())] == 2
    assert got[("flowergarden_connections", frozenset())] == 5
    assert got[("flowergarden_races_live", frozenset())] == 0
    assert got[("flowergarden_spectators", frozenset())] == 0
    assert got[("flowergarden_worker_info", frozenset({("worker", "w3")}))] == 1
    # Defined now, observed once there are several workers.
    assert got[("flowergarden_redis_seconds_count", frozenset())] == 0
    assert got[("flowergarden_failovers_total", frozenset())] == 0


def test_two_instances_do_not_share_a_registry():
    first, second = metrics(), metrics()
    first.plays += 1
    assert samples(second)[("flowergarden_plays_total", frozenset())] == 0


async def test_a_store_call_is_timed_however_it_ends():
    m = metrics()
    loop = asyncio.get_running_loop()
    ok, failed, cancelled = loop.create_future(), loop.create_future(), loop.create_future()
    for future in (ok, failed, cancelled):
        assert m.store_timed(future) is future
    timed = m.store_timed(asyncio.sleep(0, "done"), "add_player")
    ok.set_result(None)
    failed.set_exception(OSError("disk full"))
    cancelled.cancel()
    assert await timed == "done"
    # The timing callbacks were added first, so they have run once the wait ends.
    await asyncio.wait({ok, failed, cancelled})
    with pytest.raises(OSError):
        failed.result()
    got = samples(m)
    assert got[("flowergarden_store_seconds_count", frozenset({("call", "write")}))] == 3
    assert got[("flowergarden_store_seconds_count", frozenset({("call", "add_player")}))] == 1
