"""What ``/metrics`` shows, in Prometheus' text format, on ``prometheus_client``'s public API.

:class:`Metrics` holds one :class:`~prometheus_client.CollectorRegistry` per
server (never the process-wide default one, so that several servers in one
process, as in the tests, do not clash) and every instrument in it. The glue
(:mod:`server.app`) only calls it: ``metrics.error(code)``,
``metrics.closed(code)``, ``metrics.store_timed(future)``, and bumps the two
plain counters ``plays`` and ``messages``.

Nothing is counted twice. What the server already knows (connections open,
players online, live races, spectators) is read at scrape time through
callback gauges (``Gauge.set_function``). Plays and messages received are
plain ints, exposed by a custom collector (:class:`_Totals`): one play costs
a message received and a play accepted, and two ``Counter.inc()``, each a
lock taken and released, measured 0.46 to 0.82 µs apiece against 0.05 µs for
``server.http.metrics.plays += 1`` (``python -m timeit``, CPython 3.11): 0.9 to 1.6 µs
a play, 1 to 2% of the race server's whole cost per round trip, against 0.1 µs.
The rare events (errors, closes, store batches) use prometheus_client's own
counters and histogram.

Two instruments wait for the multi-worker work, defined here so that their
names and buckets are fixed now and dashboards can be written against them:
``flowergarden_redis_seconds`` (a Histogram of Redis calls) and
``flowergarden_failovers_total`` (a Counter of worker failovers). Nothing
observes them yet; they show as zero. ``flowergarden_worker_info`` names the
worker (``"0"`` while there is one) so that an operator can tell workers apart.
"""

from __future__ import annotations

import asyncio
import functools
import time
from typing import TYPE_CHECKING, TypeVar

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterator, Sized

    from prometheus_client.metrics_core import Metric

    from core.lobby import Lobby

__all__ = ["CONTENT_TYPE", "STORE_BUCKETS", "Metrics"]

T = TypeVar("T")

CONTENT_TYPE = CONTENT_TYPE_LATEST
"""The ``Content-Type`` of ``/metrics``: prometheus_client's for its text format."""
STORE_BUCKETS = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
)  # fmt: skip
"""Seconds: an SQLite commit takes a fraction of a millisecond to tens of
milliseconds; past 10 s it is being retried (a full disk)."""


class Metrics:
    """The instruments of one server, and the registry that ``/metrics`` renders."""

    __slots__ = (
        "_closes", "_errors", "_store", "failovers", "messages", "plays", "redis", "registry",
    )  # fmt: skip

    # Whole though over 40 lines: a table of the instruments /metrics shows, one each.
    def __init__(
        self,
        lobby: Lobby,
        players: Sized,
        connections: Callable[[], int],
        worker: str = "0",
    ) -> None:
        """``players``: the connections that said hello (read with ``len`` at
        each scrape); ``connections``: every TCP connection open, as ``/healthz``
        counts them."""
        self.plays = 0
        """Plays accepted (a ``played`` made): bumped by the glue, a plain int for speed."""
        self.messages = 0
        """Messages received, before the rate limit: bumped by the glue."""
        self.registry = registry = CollectorRegistry()
        Info("flowergarden_worker", "The worker this process is.", registry=registry).info(
            {"worker": worker}
        )
        gauges: dict[str, tuple[str, Callable[[], float]]] = {
            "connections": ("TCP connections open, handshakes included.", connections),
            "players_online": ("Connections whose player said hello.", lambda: len(players)),
            "races_live": ("Races under way.", lambda: len(lobby.elapsed(0.0))),
            "spectators": ("Spectators watching a live race.", lambda: _spectators(lobby)),
        }
        for name, (documentation, read) in gauges.items():
            Gauge(f"flowergarden_{name}", documentation, registry=registry).set_function(read)
        registry.register(_Totals(self))
        self._errors = Counter(
            "flowergarden_errors_sent", "Error messages sent, by code.", ["code"], registry=registry
        )
        self._closes = Counter(
            "flowergarden_closes",
            "Websockets closed, by the close code they ended with (1006: none).",
            ["code"],
            registry=registry,
        )
        self._store = Histogram(
            "flowergarden_store_seconds",
            "Store calls from asked to done: write (a batch, or a touch), add_player.",
            ["call"],
            registry=registry,
            buckets=STORE_BUCKETS,
        )
        self.redis = Histogram(
            "flowergarden_redis_seconds",
            "Redis calls from asked to done (observed once there are several workers).",
            registry=registry,
            buckets=STORE_BUCKETS,
        )
        self.failovers = Counter(
            "flowergarden_failovers",
            "Races taken over from a failed worker (counted once there are several workers).",
            registry=registry,
        )

    def render(self) -> bytes:
        """The whole exposition, in :data:`CONTENT_TYPE`."""
        return generate_latest(self.registry)

    def error(self, code: str) -> None:
        """An ``error`` with this code is being sent."""
        self._errors.labels(code).inc()

    def closed(self, code: int | None) -> None:
        """A websocket ended with this close code (None: it never closed cleanly)."""
        self._closes.labels("1006" if code is None else str(code)).inc()

    def store_timed(self, work: Awaitable[T], call: str = "write") -> asyncio.Future[T]:
        """``work`` as a future, timed from now until it is done, however it ends."""
        future = asyncio.ensure_future(work)
        observe = self._store.labels(call).observe
        future.add_done_callback(functools.partial(_took, observe, time.perf_counter()))
        return future


def _took(observe: Callable[[float], None], began: float, _: asyncio.Future[object]) -> None:
    observe(time.perf_counter() - began)


def _spectators(lobby: Lobby) -> int:
    """Spectators of every live race (a spectator watches one race at a time)."""
    races = (lobby.race(game_id) for game_id in lobby.elapsed(0.0))
    return sum(len(race.watchers) for race in races if race is not None)


class _Totals(Collector):
    """The counters kept as plain ints, read at each scrape."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    def collect(self) -> Iterator[Metric]:
        metrics = self._metrics
        yield CounterMetricFamily("flowergarden_plays", "Plays accepted.", value=metrics.plays)
        yield CounterMetricFamily(
            "flowergarden_messages_received",
            "Websocket messages received, before the rate limit.",
            value=metrics.messages,
        )
