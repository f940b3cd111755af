"""A server fenced out of its race announces nothing more of it (docs/design.md, "Fencing").

Another process takes the race in the store (as a worker that judged this one
dead would): the epoch grows. The next play here is refused by the store in
its transaction, so its ``played`` never goes out: the players are sent away
with 1012, and coming back they find the race as the store has it.
"""

from __future__ import annotations

from core.race_log import RaceStart
from server.store import open_store

from .conftest import apply, legal, play_out
from .racers import WINNABLE


async def test_a_play_the_store_refuses_is_never_announced(servers, start_server, race) -> None:
    db = str(servers.tmp_path / "fenced.sqlite3")
    server = await start_server(db=db)
    racing = await race(server)
    board, acks = await play_out(racing.a, racing.board_a(), limit=2)
    await racing.b.until("played")
    other = open_store(db)  # another worker, on the same store, takes the race
    await other.open()
    ((_, epoch),) = await other.take_races({racing.game_id})
    assert epoch == 2  # begun at 1 here; the other worker draws the next
    card = legal(board)[0]
    await racing.a.send(type="play", card=card, id="fenced")
    seen = await racing.a.expect_close(1012)
    assert all(message["type"] != "played" for message in seen), seen
    seen_b = await racing.b.expect_close(1012)
    assert all(message.get("seq", 0) <= acks[-1]["seq"] for message in seen_b), seen_b
    await other.close()
    # Coming back: the race goes on from what the store kept, the refused play not in it.
    back = await servers.connect(server)
    await back.hello(token=racing.a.token)
    state = (await back.until("game_state"))[-1]
    assert state["seq"] == acks[-1]["seq"]
    assert state["boards"][racing.seat_a] == board
    await back.send(type="play", card=card)
    ack = await back.recv("played")
    assert (ack["card"], ack["seq"]) == (card, acks[-1]["seq"] + 1)
    assert apply(board, card)["count"] == ack["count"]


async def test_a_race_the_store_will_not_start_is_never_announced(
    servers, start_server, player
) -> None:
    """A person racing on another worker (as the store has it) is not raced here too.

    A worker paused or cut off may still hold a seeker who meanwhile started
    racing elsewhere; pairing them here is refused by the store, so that nobody
    is told of a race that was never recorded (server/store/batch.py).
    """
    db = str(servers.tmp_path / "twice.sqlite3")
    server = await start_server(db=db)
    ann, bob, cat, dan = [await player(server) for _ in range(4)]
    other = open_store(db)  # another worker, on the same store, races Ann and Bob
    await other.open()
    seeds = ("ab" * 32, "ab" * 32)
    people, names = (ann.player_id, bob.player_id), (ann.name, bob.name)
    start = RaceStart("elsewhere", '{"deal":"mirror"}', "sha256", seeds, people, names)
    assert await other.begin_race(start, 1000.0) == frozenset()
    await other.close()
    await ann.send(type="seek", rules=WINNABLE)
    await ann.recv("seeking")
    await cat.send(type="seek", rules=WINNABLE)
    for refused in (cat, ann):
        seen = await refused.expect_close(1012)
        assert all(message["type"] != "game_start" for message in seen), seen
    # Cat was never racing: back, Cat is in the lobby and races Dan.
    back = await servers.connect(server)
    await back.hello(token=cat.token)
    await back.send(type="lobby", id="where")
    reply = await back.recv("lobby", "game_state")
    assert reply["type"] == "lobby", reply
    await dan.send(type="seek", rules=WINNABLE)
    await dan.recv("seeking")
    await back.send(type="seek", rules=WINNABLE)
    await back.recv("seeking")
    assert (await back.recv("game_start"))["players"] == [dan.name, cat.name]
