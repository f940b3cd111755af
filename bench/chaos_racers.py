"""The racing clients of the fault harness: players who keep every frame they are told.

A :class:`Racer` is a player as a person's client would be, on websockets'
asyncio client: it says ``hello`` (with its token once it has one), enters a
race (quick match, or a room by its code), and plays its board out a card at
a time at a human pace (:class:`Pace`), one play in flight, the next only
once its ``played`` has come back. Every rule is ``mirror`` +
``winnable_only``, so a race ends when the faster player clears.

What the faults do to it, it takes as a client does: a connection that
drops or closes (1012, 1001, anything) is opened again at once to any
worker, and again after the delays of :data:`core.backoff.CLIENT` while
that fails; a handshake that hangs (a stopped worker) is given up after
:data:`OPEN_TIMEOUT`. Back, it says hello with its token and resumes from
``game_state`` (its board as the server has it). ``unavailable`` (a race
held for a moment) is tried again.

Nothing is judged here: every frame is kept as :class:`Heard` with the time
it came and the connection it came on, for :mod:`bench.chaos_check`.
What surprised the racer itself (no ``game_state`` for its race, an
``illegal_move``, a play never answered) is noted in :attr:`Racer.notes`.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from core.backoff import CLIENT
from protocol.close_codes import STAY_AWAY

from .clearing import ClearingOrder

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .chaos_workers import Worker

__all__ = ["OPEN_TIMEOUT", "RULES", "Heard", "Pace", "Racer", "Session"]

RULES = {"deal": "mirror", "winnable_only": True}
OPEN_TIMEOUT = 3.0
"""Seconds for an opening handshake: one with a stopped worker hangs, so try another."""
RESUME_WAIT = 5.0
"""Seconds after ``welcome`` in which a racer in a race expects its ``game_state``."""
ACK_WAIT = 30.0
"""Seconds a play may go unanswered (a store down for 10 s holds it) before it is noted."""
RESEEK = 20.0
"""Seconds a quick-match seek may wait before it is cancelled and made again."""
CHECK = 1.0
"""Seconds between two looks, while seeking, at whether the run is stopping."""


@dataclass(frozen=True, slots=True)
class Pace:
    """Seconds a racer thinks before each play: uniform between ``low`` and ``high``."""

    low: float = 0.25
    high: float = 0.6


@dataclass(frozen=True, slots=True)
class Heard:
    """One frame as a racer was told it: when (monotonic), on which connection, what."""

    at: float
    session: int
    message: dict[str, Any]


@dataclass(slots=True)
class Session:
    """One connection of a racer."""

    number: int
    worker: str
    opened: float
    welcomed: bool = False
    closed: float | None = None
    code: int | None = None
    """The close code the server sent (1006 when the connection dropped); None if never open."""
    failure: str = ""


@dataclass(slots=True)
class _Race:
    game_id: str
    seat: int
    order: ClearingOrder
    next: int = 0
    in_flight: bool = False
    over: bool = False


class _Reconnect(Exception):
    """The racer closes its connection to come back and learn its race again."""


class Racer:
    """One player (see the module docstring): ``await racer.run()``.

    ``races``: how many races to see to their end (None: until :meth:`stop`).
    ``first``: the worker of the first connection (the rest go to any).
    ``host``: open a room and give its code in :attr:`room`; ``join``: a code to join.
    Neither: quick match.
    """

    def __init__(
        self,
        name: str,
        workers: Sequence[Worker],
        *,
        pace: Pace,
        races: int | None = 1,
        first: Worker | None = None,
        host: bool = False,
        join: str | None = None,
        seed: int | None = None,
        news: asyncio.Event | None = None,
        wander: float = 0.0,
    ) -> None:
        self.name, self._workers, self.pace, self.races = name, workers, pace, races
        self._first, self._host, self._join = first, host, join
        self._wander = wander
        """The chance that, a race over, the racer leaves and comes back on any worker (a
        person closing the page): without it, every fault would drive the victim's racers
        to the others for good."""
        self._rng = random.Random(seed)
        self._news = news or asyncio.Event()
        """Set at every frame heard, for whoever awaits a racer's progress."""
        self.token: str | None = None
        self.player_id = ""
        self.heard: list[Heard] = []
        self.sessions: list[Session] = []
        self.notes: list[str] = []
        self.finished: list[str] = []
        """Game ids of the races this racer saw end."""
        self.room: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.reseeks = 0
        self.unavailable = 0
        """``unavailable`` answers: to a play while its race was held, or to a hello."""
        self.stopping = False
        self.done = False
        self._race: _Race | None = None
        self._due: float | None = None
        self._action = ""
        self._seeking_since: float | None = None

    @property
    def racing(self) -> str | None:
        """The game id of the race this racer is in, if it is in one."""
        race = self._race
        return None if race is None or race.over else race.game_id

    @property
    def acked(self) -> int:
        """This racer's plays acknowledged in its race so far (since it last learned it)."""
        return 0 if self._race is None else self._race.next

    def stop(self) -> None:
        """Race no more once the race under way, if any, is over."""
        self.stopping = True

    async def run(self) -> None:
        """Connect, race, come back after every drop, until done."""
        failures, avoid = 0, None
        while not self.done:
            worker = self._pick(avoid)
            session = Session(len(self.sessions) + 1, worker.name, time.monotonic())
            self.sessions.append(session)
            try:
                async with connect(
                    worker.url, open_timeout=OPEN_TIMEOUT, close_timeout=1, compression=None
                ) as ws:
                    try:
                        await self._serve(ws, session)
                    except _Reconnect:
                        pass
                    except ConnectionClosed:
                        pass
                    session.code = ws.close_code
            except (OSError, TimeoutError, WebSocketException) as exc:
                session.failure = type(exc).__name__
            session.closed = time.monotonic()
            if session.code in STAY_AWAY:
                self.notes.append(f"closed with {session.code} on {worker.name}")
            failures = 0 if session.welcomed else failures + 1
            avoid = None if session.welcomed else worker
            if failures and not self.done:
                await asyncio.sleep(CLIENT.after(failures, self._rng))  # the clients' backoff

    def _pick(self, avoid: Worker | None) -> Worker:
        if not self.sessions and self._first is not None:
            return self._first
        choices = [w for w in self._workers if w is not avoid] or list(self._workers)
        return self._rng.choice(choices)

    # -- one connection ----------------------------------------------------------

    async def _serve(self, ws: ClientConnection, session: Session) -> None:
        hello: dict[str, Any] = {"type": "hello", "name": self.name}
        if self.token is not None:
            hello["token"] = self.token
        self._due = None
        if self._race is not None:
            self._race.in_flight = False  # its answer went with the last connection
        await ws.send(json.dumps(hello))
        while not self.done:
            wait = None if self._due is None else max(0.0, self._due - time.monotonic())
            try:
                raw = await asyncio.wait_for(ws.recv(), wait)  # recv is safe to cancel
            except TimeoutError:
                action, self._due = self._action, None
                await self._act(ws, action)
                continue
            message: dict[str, Any] = json.loads(raw)
            self.heard.append(Heard(time.monotonic(), session.number, message))
            self._news.set()
            await self._on(ws, session, message)
        await ws.close()

    def _after(self, delay: float, action: str) -> None:
        self._due, self._action = time.monotonic() + delay, action

    def _think(self) -> float:
        return self._rng.uniform(self.pace.low, self.pace.high)

    async def _act(self, ws: ClientConnection, action: str) -> None:
        race = self._race
        if action == "play" and race is not None and not race.over and not race.in_flight:
            frame = race.order.frame(race.next)
            if frame is None:
                self.notes.append(f"{race.game_id}: no play left at {race.next} and no game_over")
                return
            race.in_flight = True
            await ws.send(frame.decode())
            self._after(ACK_WAIT, "unanswered")
        elif action == "unanswered" and race is not None and race.in_flight:
            self.notes.append(f"{race.game_id}: a play unanswered for {ACK_WAIT:.0f} s")
            raise _Reconnect
        elif action == "lost" and self.racing is not None:
            self.notes.append(f"{self.racing}: no game_state within {RESUME_WAIT:.0f} s of welcome")
            raise _Reconnect
        elif action == "lobby":
            await self._enter(ws)
        elif action == "wander":
            if self.stopping or (self.races is not None and len(self.finished) >= self.races):
                await self._enter(ws)  # done
            else:
                raise _Reconnect
        elif action == "seeking":
            await self._still_seeking(ws)

    async def _enter(self, ws: ClientConnection) -> None:
        """Not in a race: ask for one (or, stopping, be done)."""
        if self.racing is not None:
            return
        if self.stopping or (self.races is not None and len(self.finished) >= self.races):
            self.done = True
        elif self._host:
            await ws.send(json.dumps({"type": "create_room", "rules": RULES}))
        elif self._join is not None:
            await ws.send(json.dumps({"type": "join_room", "code": self._join}))
        else:
            await ws.send(json.dumps({"type": "seek", "rules": RULES}))
            self._seeking_since = time.monotonic()
            self._after(CHECK, "seeking")

    async def _still_seeking(self, ws: ClientConnection) -> None:
        since = self._seeking_since
        if self.racing is not None or since is None:
            return
        if self.stopping or time.monotonic() - since > RESEEK:
            self._seeking_since = None
            await ws.send(json.dumps({"type": "cancel"}))  # its answer goes to the lobby again
            self.reseeks += not self.stopping
            return
        self._after(CHECK, "seeking")

    # -- what the server says ----------------------------------------------------

    async def _on(self, ws: ClientConnection, session: Session, message: dict[str, Any]) -> None:
        kind = message["type"]
        race = self._race
        if kind == "welcome":
            session.welcomed = True
            self.token, self.player_id = message["token"], message["player_id"]
            if self.racing is not None:
                self._after(RESUME_WAIT, "lost")
            else:
                self._after(0.0, "lobby")
        elif kind == "game_start":
            self._begin(message["game_id"], message["seat"], message["boards"])
        elif kind == "game_state":
            self._state(message)
        elif kind == "played" and race is not None and message["game_id"] == race.game_id:
            if message["seat"] == race.seat and race.in_flight:
                race.in_flight = False
                race.next += 1
                self._after(self._think(), "play")
        elif kind == "game_over" and race is not None and message["game_id"] == race.game_id:
            self._ended()
        elif kind == "cancelled" and self.racing is None:
            self._after(0.0, "lobby")
        elif kind == "room" and not self.room.done():
            self.room.set_result(message["code"])
        elif kind == "error":
            self._error(message, session)

    def _begin(self, game_id: str, seat: int, boards: list[dict[str, Any]]) -> None:
        self._seeking_since = None
        self._race = _Race(game_id, seat, ClearingOrder(boards[seat]))
        self._after(self._think(), "play")

    def _state(self, state: dict[str, Any]) -> None:
        race = self._race
        if state["over"] is None:
            self._begin(state["game_id"], state["seat"], state["boards"])
        elif race is not None and race.game_id == state["game_id"] and not race.over:
            self._ended()

    def _ended(self) -> None:
        race = self._race
        assert race is not None
        race.over, race.in_flight = True, False
        self.finished.append(race.game_id)
        leave = self._rng.random() < self._wander
        self._after(self._rng.uniform(0.5, 2.0), "wander" if leave else "lobby")

    def _error(self, message: dict[str, Any], session: Session) -> None:
        code, race = message["code"], self._race
        if code == "unavailable":
            self.unavailable += 1
            if not session.welcomed:  # the hello itself refused: say it again, later
                raise _Reconnect
            if race is not None and race.in_flight:  # a race held for a moment: play again
                race.in_flight = False
                self._after(self._think(), "play")
            elif self.racing is None:
                self._after(self._think(), "lobby")
            # else the answer to a hello whose race cannot be found now: 1012 follows
        elif code == "game_over":
            if race is not None:
                race.in_flight = False  # the game_over itself is on its way
        elif code == "room_not_found" and self._join is not None:
            self._after(0.2, "lobby")
        elif code == "busy":
            pass  # a seek while a race is already ours: its game_state is coming
        else:
            self.notes.append(f"error {code}: {message.get('message', '')}")
            if self.racing is not None:
                raise _Reconnect  # learn the race again from the server
