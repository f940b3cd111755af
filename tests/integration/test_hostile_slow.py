"""Hostile clients: receivers that never read.

A racer and a spectator stop reading while the race goes on, and keep asking
for more (lobby snapshots, ``watch`` again): the server's writes to them stall,
their send queues fill, and they are cut off. A spectator who makes exactly the
same requests but reads is not; the opponent finishes the race; memory stays
bounded. The server runs with a small ``send_queue`` and small socket send
buffers so that this takes a fraction of a second.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from websockets.exceptions import ConnectionClosed

from .conftest import WINNABLE, apply, legal, lobby_until, seek_pair
from .hostile_helpers import (
    assert_seq_stream,
    events_of,
    rss_kib,
    shrink_send_buffers,
    small_window_client,
    watch,
)

if TYPE_CHECKING:
    from .conftest import Client

SEND_QUEUE = 16
ROOMS = 20
"""Open public rooms, so that each lobby snapshot is a few KiB."""
ASKS_PER_PLAY = 2
RSS_BOUND_KIB = 64 * 1024
"""Generous: a leak of what the non-readers asked for would be tens of MiB per client."""


async def ask(client: Client, **fields: Any) -> None:
    """Send a request, ignoring that the server may already have cut the client off."""
    with contextlib.suppress(ConnectionClosed):
        await client.send(**fields)


async def test_receivers_that_never_read_are_cut_off(servers, start_server, player):
    server = await start_server(send_queue=SEND_QUEUE)
    shrink_send_buffers(server.port)
    for _ in range(ROOMS):
        host = await player(server)
        await host.send(type="create_room", public=True, rules=WINNABLE)
        await host.recv("room")
    rss_before = rss_kib()

    slow = await small_window_client(servers, server)
    await slow.hello()
    opponent = await player(server)
    race = await seek_pair(slow, opponent, WINNABLE)
    reader = await player(server)
    slow_watcher = await small_window_client(servers, server)
    await slow_watcher.hello()
    await watch(reader, race.game_id)
    await watch(slow_watcher, race.game_id)
    online = ROOMS + 4

    # The opponent plays the whole race. After every play the two slow clients
    # ask for more without reading, and the reader asks as the slow racer does.
    board = race.board_b()
    seen: list[dict[str, Any]] = []
    read: list[dict[str, Any]] = []
    while legal(board):
        card = legal(board)[0]
        await opponent.send(type="play", card=card)
        seen += await opponent.until("played")
        board = apply(board, card)
        for _ in range(ASKS_PER_PLAY):
            await ask(slow, type="lobby")
            await ask(slow_watcher, type="watch", game_id=race.game_id)
            await reader.send(type="lobby")
            read += await reader.until("lobby")
    seen += await opponent.until("game_over")
    if "game_over" not in [m["type"] for m in read]:  # it may have come before a lobby reply
        read += await reader.until("game_over")

    # Both non-readers are gone; the opponent heard of its racer only.
    snapshot = await lobby_until(reader, lambda s: s["online"] == online - 2)
    assert snapshot["games"] == []
    assert [m["type"] for m in seen].count("opponent_away") == 1, seen
    over = seen[-1]
    assert (over["result"], over["reason"], over["winner"]) == ("win", "cleared", race.seat_b)
    # The opponent and the reader saw the whole race, the very same events.
    assert events_of(seen) == events_of(read)
    assert_seq_stream(events_of(seen))
    assert [m["type"] for m in read].count("lobby") == 52 * ASKS_PER_PLAY

    # When they finally read, the non-readers find their connections dropped
    # without a close frame, after a prefix of what they were sent.
    for client in (slow, slow_watcher):
        got = await client.expect_close(None)
        assert len(got) < 52 * ASKS_PER_PLAY, "the server sent it everything after all"
        servers.clients.remove(client)

    growth = rss_kib() - rss_before
    assert growth < RSS_BOUND_KIB, f"RSS grew by {growth} KiB"
