"""``/metrics``: Prometheus' text format on the server's own port, read by a real HTTP client.

Every scrape is a real HTTP request on a raw asyncio socket, and the text is
read with prometheus_client's own parser. Nothing sleeps: a count that the
server makes after the client has moved on (a close) is scraped again until
it shows, within a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.parser import text_string_to_metric_families

from .conftest import TIMEOUT, play_out

if TYPE_CHECKING:
    from collections.abc import Callable

    from prometheus_client.samples import Sample

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def http(port: int, method: str, path: str) -> tuple[int, dict[str, str], bytes] | None:
    """``METHOD path``: status, headers and whatever came after them (the
    server closes after every page); None if the server closed without answering."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        data = await asyncio.wait_for(reader.read(-1), TIMEOUT)
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
    if not data:
        return None
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


async def scrape(port: int) -> Samples:
    """Every sample of ``GET /metrics``, by name and labels."""
    answer = await http(port, "GET", "/metrics")
    assert answer is not None
    status, headers, body = answer
    assert status == 200
    assert headers["Content-Type"] == CONTENT_TYPE_LATEST
    samples: list[Sample] = [
        sample
        for family in text_string_to_metric_families(body.decode())
        for sample in family.samples
    ]
    return {(s.name, frozenset(s.labels.items())): s.value for s in samples}


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


async def scrape_until(port: int, check: Callable[[Samples], bool]) -> Samples:
    """Scrape until ``check`` holds: each scrape awaits the server, nothing sleeps."""
    async with asyncio.timeout(TIMEOUT):
        while not check(samples := await scrape(port)):
            pass
        return samples


async def test_a_race_errors_and_closes_are_counted(server, race):
    racing = await race(server)
    during = await scrape(server.port)
    assert value(during, "flowergarden_races_live") == 1
    assert value(during, "flowergarden_players_online") == 2
    assert value(during, "flowergarden_connections") == 3  # both players, and the scrape
    assert value(during, "flowergarden_worker_info", worker="0") == 1

    board, acks = await play_out(racing.a, racing.board_a())
    assert board["count"] == 52
    await racing.a.recv("game_over")
    await racing.b.until("game_over")
    after = await scrape(server.port)
    assert value(after, "flowergarden_plays_total") == len(acks) == 52
    assert value(after, "flowergarden_races_live") == 0
    assert value(after, "flowergarden_players_online") == 2
    # Two hellos, two seeks, the plays.
    assert value(after, "flowergarden_messages_received_total") == 2 + 2 + 52
    # Each new player is written before its welcome; the race's start,
    # journal and end are written before what announces them.
    assert value(after, "flowergarden_store_seconds_count", call="add_player") == 2
    assert (value(after, "flowergarden_store_seconds_count", call="write") or 0) >= 1
    assert value(after, "flowergarden_errors_sent_total", code="bad_json") is None

    await racing.a.send_raw("{not json")
    await racing.a.error("bad_json")
    await racing.b.send(type="play", card="AH")  # the race is over
    await racing.b.error("game_over")
    errors = await scrape(server.port)
    assert value(errors, "flowergarden_errors_sent_total", code="bad_json") == 1
    assert value(errors, "flowergarden_errors_sent_total", code="game_over") == 1

    await racing.b.close()  # a clean close: 1000
    closes = await scrape_until(
        server.port, lambda s: value(s, "flowergarden_closes_total", code="1000") is not None
    )
    assert value(closes, "flowergarden_closes_total", code="1000") == 1
    assert value(closes, "flowergarden_players_online") == 1
    racing.a.drop()  # no close frame: 1006
    await scrape_until(
        server.port, lambda s: value(s, "flowergarden_closes_total", code="1006") == 1
    )


async def test_spectators_are_counted_while_they_watch(server, race, player):
    racing = await race(server)
    viewer = await player(server)
    await viewer.send(type="watch", game_id=racing.game_id)
    await viewer.recv("game_state")
    assert value(await scrape(server.port), "flowergarden_spectators") == 1
    await play_out(racing.a, racing.board_a())
    await viewer.until("game_over")  # the race is over: nothing more to watch
    assert value(await scrape(server.port), "flowergarden_spectators") == 0


async def test_each_server_has_its_own_registry(start_server, player):
    first, second = await start_server(), await start_server(db=":memory:")
    await player(first)
    assert value(await scrape(first.port), "flowergarden_players_online") == 1
    assert value(await scrape(second.port), "flowergarden_players_online") == 0


async def test_metrics_answers_each_method_as_healthz_does(server):
    """A page is chosen by its path alone: GET is 200; what another method
    gets depends on websockets (15 closes it unanswered, 17 parses it and the
    page answers), the same for both pages."""
    answer = await http(server.port, "GET", "/metrics")
    assert answer is not None
    assert (answer[0], answer[1]["Content-Type"]) == (200, CONTENT_TYPE_LATEST)
    for method in ("HEAD", "POST"):
        metrics = await http(server.port, method, "/metrics")
        health = await http(server.port, method, "/healthz")
        assert (metrics is None) == (health is None), method
        if metrics is not None and health is not None:
            assert metrics[0] == health[0], method
