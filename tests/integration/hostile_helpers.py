"""Helpers for the hostile-client tests (``test_hostile_*.py``).

* :class:`Lockstep` drives a well-behaved race one play at a time and checks
  that the mover, the opponent and every spectator see the very same event,
  with its ``seq`` one more than the last; it also times each play's round trip.
* :func:`write_at_once` puts several frames on a websocket in one TCP write.
* :func:`raw_handshake`, :func:`masked_frame` and :func:`read_frame` speak the
  WebSocket wire format by hand, for what a well-behaved library refuses to send.
* :func:`small_window_client` connects a client whose socket and library
  buffers are tiny, so that one that does not read soon stops the server's writes.
* :func:`rss_kib` reads a process's resident memory.
* :func:`drawn` draws examples from a hypothesis strategy once, the same on every run,
  for a test that sends them all over one server.

As in ``conftest.py``, nothing sleeps: every wait is an awaited event with a timeout.
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import statistics
import struct
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from hypothesis import HealthCheck, Phase, given, settings
from websockets.frames import Opcode

from fuzz.frames_fuzz import client_frame

from .conftest import TIMEOUT, Client, Race, apply, legal

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable

    from hypothesis.strategies import SearchStrategy

    from server.app import GameServer

    from .conftest import Servers

T = TypeVar("T")


def drawn(strategy: SearchStrategy[T], count: int) -> list[T]:
    """``count`` examples of ``strategy``, the same ones on every run."""
    examples: list[T] = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(example: T) -> None:
        examples.append(example)

    collect()
    return examples


EVENT_TYPES = frozenset({"game_start", "played", "redealt", "status", "game_over"})


def events_of(messages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The race events among ``messages``, without the request ``id`` a mover's ack carries."""
    return [{k: v for k, v in m.items() if k != "id"} for m in messages if m["type"] in EVENT_TYPES]


def assert_seq_stream(events: list[dict[str, Any]], first: int = 1) -> None:
    """``seq`` goes up by one from ``first``, and exactly one ``game_over`` ends it."""
    assert [e["seq"] for e in events] == list(range(first, first + len(events))), events
    assert [e["type"] for e in events].count("game_over") == 1, events
    assert events[-1]["type"] == "game_over", events[-1]


async def watch(client: Client, game_id: str) -> dict[str, Any]:
    """Spectate ``game_id``; the ``game_state`` that answers."""
    await client.send(type="watch", game_id=game_id, id="watch")
    state = await client.recv("game_state")
    assert state["id"] == "watch"
    return state


class Lockstep:
    """A well-behaved race played one card at a time, seats taking turns.

    Each play is awaited on every receiver before the next one is sent, so any
    message out of place (an extra frame, a wrong ``seq``, a lost event) shows at
    once. With the default ``mirror`` + ``winnable_only`` rules both boards are
    the same and clear, and seat ``a`` moving first clears first.
    """

    def __init__(self, race: Race, watchers: Iterable[Client] = ()) -> None:
        self.race = race
        self.clients = [race.a, race.b]
        self.boards = [race.board_a(), race.board_b()]
        self.watchers = list(watchers)
        self.turn = 0
        self.events: list[dict[str, Any]] = []
        """Every event since the watchers joined, as all receivers saw it."""
        self.rtts: list[float] = []
        self.over: dict[str, Any] | None = None

    @property
    def receivers(self) -> list[Client]:
        return [*self.clients, *self.watchers]

    async def step(self) -> float:
        """One play by the seat whose turn it is; its round trip in seconds."""
        assert self.over is None, "the race is over"
        mover, board = self.clients[self.turn], self.boards[self.turn]
        card = legal(board)[0]
        request = f"ls{len(self.rtts)}"
        started = time.perf_counter()
        await mover.send(type="play", card=card, id=request)
        ack = await mover.recv("played")
        rtt = time.perf_counter() - started
        assert (ack["card"], ack.get("id")) == (card, request), ack
        event = events_of([ack])[0]
        for other in self.receivers:
            if other is not mover:
                assert await other.recv() == event, f"{other.name} saw something else"
        self.events.append(event)
        self.boards[self.turn] = apply(board, card)
        self.rtts.append(rtt)
        if ack["status"] == "cleared":
            overs = [await client.recv("game_over") for client in self.receivers]
            assert all(over == overs[0] for over in overs), overs
            self.over = overs[0]
            self.events.append(overs[0])
        else:
            self.turn ^= 1
        return rtt

    async def finish(self, pace: Callable[[], Awaitable[object]] | None = None) -> dict[str, Any]:
        """Play to the end (awaiting ``pace`` before each play); the ``game_over``."""
        while self.over is None:
            if pace is not None:
                await pace()
            await self.step()
        assert self.over["result"] == "win", self.over
        assert self.over["reason"] == "cleared", self.over
        assert self.over["winner"] == self.race.seat_a, self.over
        return self.over

    def p50(self, since: int = 0) -> float:
        return statistics.median(self.rtts[since:])


# -- raw websocket traffic -----------------------------------------------------------


def masked_frame(payload: bytes, opcode: int = Opcode.TEXT.value, *, fin: bool = True) -> bytes:
    """One client frame (masked, as RFC 6455 requires) carrying ``payload`` as it is."""
    return client_frame(payload, opcode, fin=fin)


def write_at_once(client: Client, *texts: str) -> None:
    """Send ``texts`` as text frames in a single TCP write (one segment on loopback).

    A client connection without extensions keeps no state between frames, so
    writing them on its socket, under the library, is safe.
    """
    data = b"".join(masked_frame(text.encode()) for text in texts)
    client.sock.sendall(data)


def handshake_request(port: int, path: str = "/ws") -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


async def raw_handshake(
    port: int, rcvbuf: int | None = None
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A websocket opened by hand: the streams, just after the server's ``101``.

    ``rcvbuf``: the socket's ``SO_RCVBUF``, so that a client which stops
    reading soon stops the server's writes too. Its segments are kept as
    small as on the internet: on loopback, where a segment may be 64 KiB, the
    kernel sizes the server's send buffer to megabytes from the start.
    """
    if rcvbuf is None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    else:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1400)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
        reader, writer = await asyncio.open_connection(sock=sock)
    writer.write(handshake_request(port))
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
    assert head.startswith(b"HTTP/1.1 101"), head
    return reader, writer


async def read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The next (unmasked, unfragmented) server frame: its opcode and payload."""
    async with asyncio.timeout(TIMEOUT):
        first, second = await reader.readexactly(2)
        length = second & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", await reader.readexactly(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", await reader.readexactly(8))
        return first & 0x0F, await reader.readexactly(length)


def split_frames(data: bytes) -> list[tuple[int, bytes]]:
    """The whole (unmasked) server frames in ``data``: opcode and payload of each."""
    frames = []
    start = 0
    while len(data) - start >= 2:
        length, head = data[start + 1] & 0x7F, 2
        if length == 126:
            (length,), head = struct.unpack("!H", data[start + 2 : start + 4]), 4
        elif length == 127:
            (length,), head = struct.unpack("!Q", data[start + 2 : start + 10]), 10
        if start + head + length > len(data):
            break
        frames.append((data[start] & 0x0F, data[start + head : start + head + length]))
        start += head + length
    return frames


async def read_close_code(reader: asyncio.StreamReader) -> int:
    """Skip data frames up to the server's close frame; its code."""
    while True:
        opcode, payload = await read_frame(reader)
        if opcode == Opcode.CLOSE.value:
            return int(struct.unpack("!H", payload[:2])[0])


async def eof_within(reader: asyncio.StreamReader, timeout: float = TIMEOUT) -> bytes:
    """Everything the server still sends, up to its end of the connection (EOF or reset)."""
    data = b""
    async with asyncio.timeout(timeout):
        try:
            while chunk := await reader.read(65536):
                data += chunk
        except ConnectionResetError:
            pass
    return data


async def small_window_client(servers: Servers, server: GameServer) -> Client:
    """A client whose socket receive buffer is tiny and whose library reads at most
    one message ahead: once it stops reading, the server's writes to it stall."""
    return await servers.connect(server, rcvbuf=4096, max_queue=1)


def shrink_send_buffers(port: int, size: int = 4096) -> None:
    """Give the sockets that this process's listener on ``port`` accepts from now on
    an ``SO_SNDBUF`` of ``size`` (Linux: accepted sockets inherit it).

    On loopback the kernel grows a send buffer to megabytes, so a client that
    does not read would otherwise take minutes of traffic to stall the server's
    writes; a small buffer models a slow link. Found through ``/proc/self/fd``,
    so that nothing but the server's public ``port`` is needed.
    """
    found = False
    for fd in os.listdir("/proc/self/fd"):
        try:
            sock = socket.socket(fileno=os.dup(int(fd)))
        except OSError:
            continue  # not a socket (or already gone)
        with sock:
            try:
                listening = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
                if listening and sock.getsockname()[1] == port:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)
                    found = True
            except (OSError, IndexError, TypeError):
                continue  # a socket of another family or kind
    assert found, f"no listening socket on port {port} in this process"


def rss_kib(pid: int | str = "self") -> int:
    """Resident memory of process ``pid``, in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/PID/status")
