"""The load generator: N real WebSocket connections, each with one message in flight.

``python -m bench.loadgen --url ws://127.0.0.1:P/ws --mode race|echo -n 1000``

Against the race server (``--mode race``) every connection is a player: it says
``hello`` and ``seek``s a race with ``mirror`` and ``winnable_only``, so the
N players make N/2 simultaneous races, each 52 plays per player. A player
plays the board out (the engine's first legal play each time) as fast as
acknowledgements come back: a ``play`` goes out, the player's own ``played``
(its acknowledgement) comes back, the next ``play`` goes out. After
``game_over`` it seeks again, so the load holds for the whole run.

The pairs of players seek at times spread evenly over the warm-up, as players
arrive at a real server, so that races also end at different times. With
``--lockstep`` every player seeks at once: all races then end, are written to
the store and start again in the same fraction of a second, a burst the
benchmark measures on its own.

Against an echo server (``--mode echo``) every connection sends a play-shaped
frame and waits for its echo, the same pattern without the game.

A round trip is one ``play`` and its acknowledgement (or one frame and its
echo). After a warm-up, the generator counts round trips over a fixed window
and keeps each one's latency; it reads the server's CPU time (``--server-pid``)
and its own at both ends of the window. Then players stop sending, the last
acknowledgements come in, and it hangs up. The generator runs on picows (and
uvloop, when installed) so that it is cheaper per frame than any server it
measures. Its last line of output is one JSON object.

For the multi-worker benchmark (``bench/cluster.py``): ``--url`` given more
than once spreads the connections over the URLs (connection ``i`` to URL
``i mod k``); ``--pairing rooms`` pairs each even player with the next one
for the whole run (the even one opens a room, the odd one joins it by its
code, and after each race both ask for a rematch: :class:`_RoomRacer`), so
that with two URLs every race has one player on each; ``--server-pid`` may be
given more than once (each process's CPU time counts with its children's:
a supervisor's workers); and ``--cpu-pid NAME=PID`` reports the CPU time of
other processes (Redis, PostgreSQL) in the window, with the frames the
generator sent, under ``extra``. Without them the output is as it was.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from array import array
from collections import deque
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeAlias

from picows import WSCloseCode, WSFrame, WSListener, WSMsgType, WSTransport, ws_connect

import engine

from .common import raise_open_files, run_loop, tree_cpu_seconds

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

__all__ = ["Generator", "Result", "connect_all", "main", "measure"]

Mode: TypeAlias = Literal["race", "echo"]
Pairing: TypeAlias = Literal["seek", "rooms"]

PLAY = b'{"type":"play","card":"%s"}'
ECHO_FRAME = PLAY % b"QH"
"""What an echo connection sends: the size and shape of a race player's ``play``."""
PLAYED_PREFIX = b'{"type":"played",'
SEAT_KEY = b'"seat":'
ZERO = ord("0")
SEEK = b'{"type":"seek","rules":{"deal":"mirror","winnable_only":true}}'
CONNECTING = 100
"""Handshakes in flight at once: more overflow the server's listen backlog."""
CREATE = b'{"type":"create_room","rules":{"deal":"mirror","winnable_only":true}}'
JOIN = b'{"type":"join_room","code":"%s"}'
REMATCH = b'{"type":"rematch"}'
CANCEL = b'{"type":"cancel"}'
RETRY_S = 0.05
"""A join may reach the other worker before the room's owner is listed in Redis (and
then count as a wrong code): try again."""
REOPEN_AFTER = 10
"""Failed joins after which the room is opened again: its listing in Redis may have failed."""
JOIN_TIMEOUT_S = 2.0
"""A join unanswered this long is tried again: a worker whose Redis call failed answers nothing."""
ROOMS_AT_ONCE = 20
"""Pairs of ``--pairing rooms`` setting up their room at once (:class:`_Openings`)."""


@dataclass(frozen=True, slots=True)
class Result:
    """One measurement window."""

    mode: str
    lockstep: bool
    connections: int
    round_trips: int
    window_s: float
    rt_per_s: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    races: int
    errors: int
    server_cpu_s: float
    server_cpu_us_per_rt: float
    generator_cpu_pct: float
    generator_loop: str
    extra: dict[str, Any] | None = None
    """With ``--cpu-pid``: other processes' CPU time in the window, frames sent, pairing."""


class Generator:
    """The shared state of all connections: the window and its counts."""

    def __init__(
        self,
        mode: Mode,
        *,
        lockstep: bool = False,
        pairing: Pairing = "seek",
    ) -> None:
        self.mode = mode
        self.pairing = pairing
        self.sent = 0
        """Frames written, over the whole run."""
        self.lockstep = lockstep
        self.clients: list[_Client] = []
        self.latencies = array("q")  # nanoseconds, round trips inside the window only
        self.recording = False
        self.stopping = False
        self.races = 0
        self.errors = 0
        self.in_flight = 0
        self.drained = asyncio.Event()
        self.orders: dict[str, ClearingOrder] = {}
        """A mirror race's plays, begun by its first player, for its second."""
        self.openings = _Openings()

    def client(self, index: int) -> _Client:
        client: _Client
        if self.mode == "echo":
            client = _Echoer(self, index)
        elif self.pairing == "rooms":
            client = _RoomRacer(self, index)
        else:
            client = _Racer(self, index)
        self.clients.append(client)
        return client

    def start(self, spread: float = 0.0) -> None:
        """Every client starts; the ``k``-th of ``n`` pairs of players ``k / n * spread`` s late."""
        loop = asyncio.get_running_loop()
        pairs = max(1, len(self.clients) // 2)
        for index, client in enumerate(self.clients):
            delay = (index // 2) / pairs * spread
            if delay > 0:
                loop.call_later(delay, client.start)
            else:
                client.start()

    def stop(self) -> None:
        """Send nothing new; ``drained`` is set once every reply has come back."""
        self.stopping = True
        if not self.in_flight:
            self.drained.set()

    def acknowledged(self, sent_ns: int) -> None:
        if self.recording:
            self.latencies.append(time.perf_counter_ns() - sent_ns)

    def landed(self) -> None:
        self.in_flight -= 1
        if self.stopping and not self.in_flight:
            self.drained.set()


class _Client(WSListener):
    """One connection; the subclasses say what it sends."""

    def __init__(self, gen: Generator, index: int) -> None:
        super().__init__()
        self.gen = gen
        self.index = index
        self.transport: WSTransport | None = None
        self.sent_ns = 0
        self.waiting = False
        self.closed = False

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.transport = transport

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        if frame.msg_type == WSMsgType.TEXT:
            self.on_text(frame.get_payload_as_bytes())
        elif frame.msg_type == WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code())
            transport.disconnect()

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        self.closed = True
        if self.waiting:
            self.waiting = False
            self.gen.errors += 1
            self.gen.landed()

    def send(self, data: bytes) -> None:
        """Send one request and start its clock."""
        assert self.transport is not None
        self.waiting = True
        self.gen.in_flight += 1
        self.sent_ns = time.perf_counter_ns()
        self.write(data)

    def write(self, data: bytes) -> None:
        """One text frame."""
        assert self.transport is not None
        self.gen.sent += 1
        self.transport.send(WSMsgType.TEXT, data)

    def land(self) -> None:
        """The reply to the request in flight came back."""
        self.waiting = False
        self.gen.landed()

    def start(self) -> None:
        raise NotImplementedError

    def on_text(self, data: bytes) -> None:
        raise NotImplementedError


class _Echoer(_Client):
    def start(self) -> None:
        self.send(ECHO_FRAME)

    def on_text(self, data: bytes) -> None:
        self.gen.acknowledged(self.sent_ns)
        self.land()
        if not self.gen.stopping:
            self.send(ECHO_FRAME)


class _Racer(_Client):
    """A player: hello, seek, play the whole board, seek again."""

    def __init__(self, gen: Generator, index: int) -> None:
        super().__init__(gen, index)
        self.seat = -1
        self.order = ClearingOrder.NONE
        self.next = 0
        self.over = True
        self.welcomed = False

    def on_ws_connected(self, transport: WSTransport) -> None:
        super().on_ws_connected(transport)
        name = f"b{os.getpid() % 10_000}x{self.index}"
        self.write(json.dumps({"type": "hello", "name": name}).encode())

    def start(self) -> None:
        if self.welcomed:
            self.write(SEEK)

    def next_race(self) -> None:
        """After ``game_over``: seek again."""
        self.write(SEEK)

    def on_text(self, data: bytes) -> None:
        # Two of every three frames a player gets are ``played``: the server
        # writes them compact and in field order, so the seat is read from the
        # bytes (the server's frame for seat 0 or 1 is one of two shapes)
        # rather than parsing the JSON, keeping the generator cheap per frame.
        if data.startswith(PLAYED_PREFIX):
            at = data.find(SEAT_KEY)
            if at > 0:
                self._played_by(data[at + len(SEAT_KEY)] - ZERO)
                return
        message = json.loads(data)
        handler = self._handlers.get(message["type"])
        if handler is not None:
            handler(self, message)

    def _played(self, message: dict[str, object]) -> None:
        seat = message["seat"]
        assert isinstance(seat, int)
        self._played_by(seat)

    def _played_by(self, seat: int) -> None:
        if seat != self.seat or not self.waiting:
            return  # the opponent's play
        self.gen.acknowledged(self.sent_ns)
        self.land()
        self._play_next()

    def _play_next(self) -> None:
        if self.over or self.gen.stopping:
            return
        frame = self.order.frame(self.next)
        if frame is not None:
            self.next += 1
            self.send(frame)

    def _game_start(self, message: dict[str, object]) -> None:
        self.seat = message["seat"]  # type: ignore[assignment]
        boards: list[dict[str, object]] = message["boards"]  # type: ignore[assignment]
        # Both seats of a mirror race have the same layout, so they share one
        # order, worked out a play at a time as the faster seat needs it.
        game_id: str = message["game_id"]  # type: ignore[assignment]
        order = self.gen.orders.pop(game_id, None)
        if order is None:
            order = self.gen.orders[game_id] = ClearingOrder(boards[self.seat])
        self.order = order
        self.next, self.over = 0, False
        self._play_next()

    def _game_over(self, message: dict[str, object]) -> None:
        self.over = True
        self.gen.races += self.seat  # each race once: its seat 1 player counts it
        if not self.waiting and not self.gen.stopping:
            self.next_race()

    def _error(self, message: dict[str, object]) -> None:
        # The loser's last play may reach the server after the race ended:
        # its answer is game_over, which is no fault of the server's.
        if message.get("code") != "game_over":
            self.gen.errors += 1
        if self.waiting:
            self.land()
        if self.over and not self.gen.stopping:
            self.next_race()

    def _welcome(self, message: dict[str, object]) -> None:
        self.welcomed = True

    _handlers: ClassVar[dict[str, Callable[[Any, dict[str, object]], None]]] = {
        "played": _played,
        "game_start": _game_start,
        "game_over": _game_over,
        "error": _error,
        "welcome": _welcome,
    }


class _Openings:
    """The pairs of ``--pairing rooms`` waiting to open their room, :data:`ROOMS_AT_ONCE`
    at a time: each pair set up costs the servers calls to Redis, which a worker
    does not queue when too many are under way (bench/README.md, "Several workers")."""

    def __init__(self) -> None:
        self.waiting: deque[_RoomRacer] = deque()
        self.opening = 0

    def ask(self, creator: _RoomRacer) -> None:
        self.waiting.append(creator)
        self._next()

    def done(self) -> None:
        self.opening -= 1
        self._next()

    def _next(self) -> None:
        while self.opening < ROOMS_AT_ONCE and self.waiting:
            self.opening += 1
            self.waiting.popleft().write(CREATE)


class _RoomRacer(_Racer):
    """A player with one opponent for the whole run (``--pairing rooms``).

    Quick match pairs whoever is waiting, so two players on one worker may
    meet even when half the players are on each. Here player ``2k`` opens a
    room with the quick match's rules, player ``2k + 1`` joins it by its
    code, and after each ``game_over`` both ask for a ``rematch``, which
    starts the next race with the same two players in the same worker's
    core. With two URLs the even players are on the first and the odd ones
    on the second: every race of the pair lives with the first player, and
    the second one's socket is proxied to it for the whole run.

    A join that fails (the room not listed in Redis yet, or a call to Redis
    that failed) or goes unanswered is tried again, later each time; after
    :data:`REOPEN_AFTER` failures the room is opened again.
    """

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.code: bytes | None = None
        """The room this (odd) player joins, until its first race starts."""
        self.tries = 0
        """Joins sent: the number of the one whose answer is awaited."""
        self.misses = 0

    def start(self) -> None:
        if self.welcomed and self.index % 2 == 0:
            self.gen.openings.ask(self)

    def next_race(self) -> None:
        if self.seat >= 0:  # not before a first race: there is nothing to rematch
            self.write(REMATCH)

    def join(self, code: bytes) -> None:
        if code == self.code and not self.gen.stopping:
            self.tries += 1
            self.write(JOIN % code)
            loop = asyncio.get_running_loop()
            loop.call_later(JOIN_TIMEOUT_S, self._unanswered, code, self.tries)

    def _unanswered(self, code: bytes, tries: int) -> None:
        if self.code == code and self.tries == tries:
            self._failed(code)

    def _failed(self, code: bytes) -> None:
        self.misses += 1
        if self.misses % REOPEN_AFTER:
            delay = min(1.0, RETRY_S * self.misses)  # less load on a server in trouble
            asyncio.get_running_loop().call_later(delay, self.join, code)
        else:  # the partner closes its room and opens another
            self.code = None
            self.gen.clients[self.index - 1].write(CANCEL)

    def _room(self, message: dict[str, object]) -> None:
        partner = self.gen.clients[self.index + 1]
        assert isinstance(partner, _RoomRacer)
        partner.code = str(message["code"]).encode()
        partner.join(partner.code)

    def _cancelled(self, message: dict[str, object]) -> None:
        if self.seat < 0 and not self.gen.stopping:
            self.write(CREATE)

    def _start_room(self, message: dict[str, object]) -> None:
        if self.seat < 0 and self.index % 2 == 0:
            self.gen.openings.done()
        self.code = None
        self._game_start(message)

    def _error_room(self, message: dict[str, object]) -> None:
        code = self.code
        if code is not None and message.get("code") in ("room_not_found", "rate_limited"):
            self.tries += 1  # answered: the timer of this join does nothing
            self._failed(code)
        elif message.get("code") != "busy":  # busy: a join or room answered late, no fault
            self._error(message)

    _handlers: ClassVar[dict[str, Callable[[Any, dict[str, object]], None]]] = {
        **_Racer._handlers,
        "room": _room,
        "cancelled": _cancelled,
        "game_start": _start_room,
        "error": _error_room,
    }


class ClearingOrder:
    """The plays that take a wire board as far as it goes (all 52 cards for a winnable
    layout): the engine's first legal play each time, as compact ``play`` frames.

    Worked out a play at a time, when a player asks for it, rather than all 52
    at ``game_start``: races that start together (every one of them with
    ``--lockstep``) asked for 500 whole orders at once (0.25 ms each), which
    stalled the generator for over 0.1 s, so that the plays and
    acknowledgements of that moment were timed late.
    """

    NONE: ClassVar[ClearingOrder]
    """An order with no plays, for a player not in a race."""

    __slots__ = ("_board", "_frames")

    def __init__(self, board: dict[str, object] | None) -> None:
        self._frames: list[bytes] = []
        self._board: engine.Board | None = None if board is None else _engine_board(board)

    def frame(self, index: int) -> bytes | None:
        """The ``play`` frame of play number ``index`` (from 0), or None past the last."""
        frames, board = self._frames, self._board
        while len(frames) <= index:
            if board is None or not (plays := board.legal_plays()):
                return None
            board.play(plays[0])
            # Compact, as the echo's frame and the project's own client write it.
            frames.append(PLAY % str(plays[0]).encode())
        return frames[index]


ClearingOrder.NONE = ClearingOrder(None)


def _engine_board(board: dict[str, object]) -> engine.Board:
    parse = engine.Card.parse
    beds: list[list[str]] = board["beds"]  # type: ignore[assignment]
    bouquet: list[str] = board["bouquet"]  # type: ignore[assignment]
    found: dict[str, int] = board["foundations"]  # type: ignore[assignment]
    return engine.Board.from_parts(
        [[parse(code) for code in bed] for bed in beds],
        [parse(code) for code in bouquet],
        [found[suit] for suit in "SHDC"],
        0,
    )


async def connect_all(
    url: str | Sequence[str],
    clients: Sequence[WSListener],
    *,
    at_once: int = CONNECTING,
) -> None:
    """Open one connection per client, ``at_once`` handshakes at a time; client ``i``
    to ``url``, or to the ``i``-th of several URLs, round robin."""
    gate = asyncio.Semaphore(at_once)
    urls = [url] if isinstance(url, str) else list(url)

    async def connect(client: WSListener, url: str) -> None:
        async with gate:
            # A small first read buffer: it grows for the rare large frame.
            await ws_connect(lambda: client, url, read_buffer_init_size=2048)

    await asyncio.gather(*(connect(c, urls[i % len(urls)]) for i, c in enumerate(clients)))


async def _until(ready: Callable[[], bool], timeout: float) -> None:
    """Wait for ``ready()`` to hold, checking every 20 ms; raise TimeoutError after ``timeout``."""
    async with asyncio.timeout(timeout):
        while not ready():
            await asyncio.sleep(0.02)


def _ms(values: Sequence[int], share: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(share * len(values)))] / 1e6


async def measure(
    url: str | Sequence[str],
    *,
    mode: Mode,
    connections: int,
    warmup: float,
    window: float,
    server_pid: int | Sequence[int] | None,
    lockstep: bool = False,
    pairing: Pairing = "seek",
    cpu_pids: Mapping[str, int] | None = None,
    connecting: int = CONNECTING,
) -> Result:
    """Connect, warm up, measure one window, stop, hang up.

    Races start at staggered times over the warm-up, as players arrive at a
    real server, so that they also end at different times; with ``lockstep``
    every race starts at once (and they all end and restart together).
    ``cpu_pids``: processes (and their children) whose CPU time in the window
    goes in ``extra``, by name. ``connecting``: handshakes at once.
    """
    gen = Generator(mode, lockstep=lockstep, pairing=pairing)
    clients = [gen.client(index) for index in range(connections)]
    await connect_all(url, clients, at_once=connecting)
    racers = [c for c in clients if isinstance(c, _Racer)]
    if mode == "race":
        await _until(lambda: all(c.welcomed or c.closed for c in racers), 60)
    pids = [server_pid] if isinstance(server_pid, int) else list(server_pid or ())
    named = dict(cpu_pids or {})
    gen.start(0.0 if lockstep or mode == "echo" else warmup)
    if pairing == "rooms":  # then warm up once every pair is racing (or after 30 s)
        with contextlib.suppress(TimeoutError):
            await _until(lambda: all(c.seat >= 0 or c.closed for c in racers), 30)
    await asyncio.sleep(warmup)
    unready = sum(1 for c in racers if c.closed or c.seat < 0) if pairing == "rooms" else 0
    server, others = _cpu(pids), {name: _cpu([pid]) for name, pid in named.items()}
    started, own = time.perf_counter(), _own_cpu()
    gen.recording = True
    await asyncio.sleep(window)
    gen.recording = False
    elapsed = time.perf_counter() - started
    own, server = _own_cpu() - own, _cpu(pids) - server
    others = {name: round(_cpu([pid]) - others[name], 3) for name, pid in named.items()}
    gen.stop()
    try:
        await asyncio.wait_for(gen.drained.wait(), 5)
    finally:
        await _hang_up(clients)
    extra = None
    if cpu_pids is not None:
        extra = {"cpu_s": others, "frames_sent": gen.sent, "pairing": pairing}
        extra["unready_at_window"] = unready
        extra["window_ended_at"] = time.time() - (time.perf_counter() - started - elapsed)
    return _result(gen, elapsed, own, server, extra)


def _result(
    gen: Generator,
    elapsed: float,
    own_cpu: float,
    server_cpu: float,
    extra: dict[str, Any] | None = None,
) -> Result:
    latencies = sorted(gen.latencies)
    count = len(latencies)
    return Result(
        mode=gen.mode,
        lockstep=gen.lockstep,
        connections=len(gen.clients),
        round_trips=count,
        window_s=round(elapsed, 3),
        rt_per_s=round(count / elapsed, 1),
        p50_ms=round(_ms(latencies, 0.50), 3),
        p99_ms=round(_ms(latencies, 0.99), 3),
        max_ms=round(latencies[-1] / 1e6 if latencies else float("nan"), 3),
        races=gen.races,
        errors=gen.errors,
        server_cpu_s=round(server_cpu, 3),
        server_cpu_us_per_rt=round(server_cpu / count * 1e6, 2) if count else float("nan"),
        generator_cpu_pct=round(own_cpu / elapsed * 100, 1),
        generator_loop=type(asyncio.get_running_loop()).__module__.split(".")[0],
        extra=extra,
    )


async def _hang_up(clients: Sequence[_Client]) -> None:
    for client in clients:
        if client.transport is not None and not client.closed:
            client.transport.send_close(WSCloseCode.OK)
            client.transport.disconnect()
    await asyncio.sleep(0.2)  # let the close frames go out


def _own_cpu() -> float:
    times = os.times()
    return times.user + times.system


def _cpu(pids: Sequence[int]) -> float:
    """CPU time of the processes ``pids`` and of their children."""
    return sum(tree_cpu_seconds(pid) for pid in pids)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.loadgen", description=__doc__)
    parser.add_argument(
        "--url",
        required=True,
        action="append",
        help="ws://127.0.0.1:PORT/ws; several: the connections round robin over them",
    )
    parser.add_argument("--mode", choices=("race", "echo"), required=True)
    parser.add_argument("-n", "--connections", type=int, default=1000)
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds before the window")
    parser.add_argument("--window", type=float, default=5.0, help="seconds measured")
    parser.add_argument(
        "--server-pid",
        type=int,
        action="append",
        help="read this process's CPU time, its children's included (several: the sum)",
    )
    parser.add_argument(
        "--cpu-pid",
        action="append",
        metavar="NAME=PID",
        help="also report this process's CPU time in the window, under extra",
    )
    parser.add_argument(
        "--connecting", type=int, default=CONNECTING, help="handshakes at once, at the start"
    )
    parser.add_argument(
        "--pairing",
        choices=("seek", "rooms"),
        default="seek",
        help="quick match, or each pair of players in a room of its own, then rematches",
    )
    parser.add_argument(
        "--lockstep",
        action="store_true",
        help="start every race at once, not spread over the warm-up",
    )
    args = parser.parse_args(argv)
    if not all(url.startswith("ws://127.0.0.1:") for url in args.url):
        parser.error("the generator only loads servers on 127.0.0.1")
    named = None
    if args.cpu_pid:
        pairs = [item.partition("=") for item in args.cpu_pid]
        named = {name: int(pid) for name, _, pid in pairs}
    raise_open_files()
    run = measure(
        args.url[0] if len(args.url) == 1 else args.url,
        mode=args.mode,
        connections=args.connections,
        warmup=args.warmup,
        window=args.window,
        server_pid=args.server_pid,
        lockstep=args.lockstep,
        pairing=args.pairing,
        cpu_pids=named,
        connecting=args.connecting,
    )
    result = run_loop(run, "uvloop" if _has_uvloop() else "asyncio")
    fields = asdict(result)
    if fields["extra"] is None:  # the output of a plain run, as it always was
        del fields["extra"]
    print(json.dumps(fields))
    return 0


def _has_uvloop() -> bool:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
