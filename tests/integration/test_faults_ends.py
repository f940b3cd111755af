"""A race's end that crossed its player's leaving is told when they come back.

On one worker: a ``game_over`` waits for its race's record to be written. A
player whose socket closed while it waited never had it, yet the lobby core
had counted them told (they were online at the end): coming back, they got the
lobby. A connection that goes with frames unwritten now leaves its player owed
their last race's end.

Finding of ``make chaos``: a racer whose socket was on one worker and whose
race ran on another (their home) closed the socket just as the race ended.
The socket's worker told the home ``Gone``; the home had already sent the
``game_over`` after it, into a socket that was no longer there. Nothing was
lost on the link, so nothing marked the end as missed, and the home let the
player go: their next ``hello``, anywhere, was answered with ``welcome`` alone,
again and again, while they waited for a race that had ended. ``Gone`` now
says how many of the home's writes the socket had: fewer than the home sent,
and the end is told again on coming back, as after a lost link.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import TYPE_CHECKING, Any

from websockets.exceptions import ConnectionClosed

from server.cluster.cluster import Cluster

from .conftest import TIMEOUT
from .test_faults_links import proxy, race_across, workers
from .test_faults_takeover import POLL

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from server.app import GameServer

    from .racers import Client

__all__ = ["proxy", "workers"]  # the fixtures, shared


async def test_a_game_over_held_for_its_record_when_the_socket_went_is_told_again(
    servers, start_server, race
) -> None:
    db = servers.tmp_path / "held.sqlite3"
    server = await start_server(db=str(db))
    racing = await race(server)
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another writer: the record waits for the lock
    try:
        await racing.a.send(type="resign")
        racing.b.drop()  # Bob's socket goes while his game_over waits for the record
        async with asyncio.timeout(TIMEOUT):
            while server.conn_of(racing.b.player_id) is not None:
                await asyncio.sleep(POLL)  # polling the server, within the deadline
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    await racing.a.until("game_over")
    back = await servers.connect(server)
    await back.hello(token=racing.b.token)
    await back.send(type="lobby", id="where")
    reply = await back.recv("game_state", "lobby")
    assert reply["type"] == "game_state", reply
    assert reply["game_id"] == racing.game_id and reply["over"]["reason"] == "resigned"


async def test_a_game_over_that_crossed_the_players_leaving_is_told_on_coming_back(
    proxy, workers, player
) -> None:
    w1, w2 = await workers("w1"), await workers("w2", redis=proxy.url)
    ann, bob = await player(w1), await player(w2)
    start = await race_across(ann, bob)  # his home moves to w1; his socket stays on w2
    assert isinstance(w1.peers, Cluster)
    links = w1.peers.links

    def bobs_link() -> bool:
        return any(r.player and r.player.player_id == bob.player_id for r in links.remotes.values())

    assert bobs_link()
    # Bob leaves while w2 cannot reach Redis: his Gone waits in w2's bus, and w1 ends
    # the race meanwhile, sending his game_over to a socket that is gone.
    proxy.cut()
    await bob.ws.close()
    await ann.send(type="resign")
    await ann.until("game_over")
    proxy.heal()  # well within the lease: nobody is judged dead, no link is dropped
    async with asyncio.timeout(TIMEOUT):
        while bobs_link():
            await asyncio.sleep(POLL)  # polling w1's links, within the deadline
    reply = await first_word(player, w2, bob.token)
    assert reply["type"] == "game_state", reply
    assert reply["game_id"] == start["game_id"] and reply["over"] is not None


async def first_word(
    player: Callable[..., Awaitable[Client]], where: GameServer, token: str
) -> dict[str, Any]:
    """What a client coming back with ``token`` hears first after ``welcome``: its race's
    ``game_state``, or the ``lobby`` it asks for. A 1012 (a link w2 finds lost on its
    next beat) is met as a client would: by coming back again."""
    async with asyncio.timeout(TIMEOUT):
        while True:
            back = await player(where, token=token)
            await back.send(type="lobby", id="where")
            try:
                return await back.recv("game_state", "lobby")
            except ConnectionClosed as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 1012, closed
