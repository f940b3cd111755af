"""What the lobby core says for other workers: who waits in the queue, which rooms are open."""

from __future__ import annotations

from core.events import Queued, RoomListed
from protocol import Cancel, CreateRoom, JoinRoom, Rules, Seek

from .lobby_helpers import new_lobby


def shared(outputs: list[object]) -> list[object]:
    return [out for out in outputs if isinstance(out, Queued | RoomListed)]


def test_a_seeker_is_queued_then_unqueued_when_paired() -> None:
    lobby = new_lobby()
    assert shared(lobby.handle("ann", Seek(), 1.0)) == [Queued("ann", Rules())]
    assert shared(lobby.handle("bob", Seek(), 1.0)) == [Queued("ann", None)]


def test_cancelling_or_leaving_the_queue_unqueues() -> None:
    lobby = new_lobby()
    lobby.handle("ann", Seek(), 1.0)
    assert shared(lobby.handle("ann", Cancel(), 1.0)) == [Queued("ann", None)]
    lobby.handle("bob", Seek(), 1.0)
    assert lobby.disconnect("bob", 2.0) == [Queued("bob", None)]


def test_a_room_is_listed_while_open_and_unlisted_once_joined() -> None:
    lobby = new_lobby()
    (code,) = [out.code for out in shared(lobby.handle("ann", CreateRoom(), 1.0))]
    assert lobby.has_room(code.lower())
    assert shared(lobby.handle("bob", JoinRoom(code=code), 1.0)) == [RoomListed(code, False)]
    assert lobby.has_room(code)  # while its race runs: a join here is told room_full


def test_a_room_closed_by_its_host_is_unlisted() -> None:
    lobby = new_lobby()
    (listed,) = shared(lobby.handle("ann", CreateRoom(), 1.0))
    assert isinstance(listed, RoomListed) and listed.open
    assert shared(lobby.handle("ann", Cancel(), 1.0)) == [RoomListed(listed.code, False)]
