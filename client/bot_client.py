"""The bot as a client: the server's bot policy, over nothing but the protocol.

:class:`BotClient` plays races with the policy the server runs in-process for
``seek.bot`` (:mod:`core.bot_policy`), through PROTOCOL.md alone: an example
for whoever writes their own bot, and a driver for soak tests.
``flowergarden bot`` (:mod:`client.bot`) is its command line.

How it goes, message by message (each one typed by :mod:`protocol`):

1. ``hello`` with the token kept for this server and name (``client/tokens.py``,
   as the terminal client keeps it; ``--tokens`` puts the file elsewhere), or
   with the name alone the first time, and ``bot: true`` either way: a program
   must say it is one; ``welcome`` gives the token to keep and the server's
   idle limit (``limits.idle_s``).
2. ``lobby``, a probe: if the player is in a race, ``game_state`` comes before
   the probe's answer (the server sends it at ``hello``) and the bot resumes the
   race. Otherwise it starts: ``seek`` with the rules, or ``join_room``.
3. The race: the bot keeps its own board, from ``game_start``, its own
   ``played`` and ``redealt``, or ``game_state`` (which replaces it). Each time
   that board changes it asks the policy for the next move and sleeps the
   policy's delay before sending ``play`` or ``redeal``; it is a real client,
   so sleeping is its pacing. Only the bot's own events change its board: the
   opponent's plays are only counted. An event whose ``seq`` skips one, a card
   its board says is illegal, or an ``illegal_move`` error means the bot's copy
   went wrong: it reconnects at once, and ``game_state`` puts it right.
4. ``game_over``: the bot stops, or with ``--forever`` seeks again.

A dropped connection is tried again after the clients' backoff
(:data:`core.backoff.CLIENT`: exponential from 0.5 s to 15 s, half of it
random), with the token, so the race goes on; a close code of
:data:`~protocol.close_codes.STAY_AWAY` (a newer connection with the same
token, or a ban) stops the bot. It never resigns. Exit code 0 after its last
race, 1 when it cannot go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

import engine
from core.backoff import CLIENT
from core.bot_policy import BotPolicy
from protocol import (
    PROTOCOL_VERSION,
    RACING,
    DecodeError,
    Error,
    GameOver,
    GameStart,
    GameState,
    Hello,
    JoinRoom,
    LobbyRequest,
    LobbySnapshot,
    Play,
    Played,
    Redeal,
    Redealt,
    Rules,
    Seek,
    StatusChanged,
    Welcome,
    board_from_wire,
    decode_server,
    encode,
)

from .failures import Failure, closed, failure, hello_refused, url_problem
from .options import DEFAULT_SERVER, RACE_RULES
from .tokens import KeptIdentity

if TYPE_CHECKING:
    from pathlib import Path

    from protocol import BoardStatus, ClientMessage, ServerMessage

    from .tokens import TokenStore

__all__ = ["BotClient", "BotOptions"]

log = logging.getLogger("flowergarden.bot")

OPEN_TIMEOUT = 10.0
PROBE = "bot-probe"
"""The ``id`` of the ``lobby`` probe after each ``welcome``."""
FATAL = {"room_not_found", "room_full", "rate_limited"}
"""Errors that answer the bot's ``seek`` or ``join_room`` and end it."""


@dataclass(frozen=True, slots=True)
class BotOptions:
    server: str = DEFAULT_SERVER
    level: int = 3
    name: str | None = None
    action: Literal["seek", "join_room"] = "seek"
    room: str = ""
    rules: Rules = RACE_RULES
    forever: bool = False
    tokens: Path | None = None


@dataclass(slots=True)
class _Race:
    """The bot's side of one race, as its messages show it."""

    game_id: str
    seat: int
    board: engine.Board
    status: BoardStatus
    seq: int
    policy: BotPolicy
    clock_end: float | None
    """When the race's clock runs out, on this client's loop clock (None: no clock)."""


class _Resync(Exception):
    """The bot's copy of its board went wrong: reconnect, and ``game_state`` puts it right."""


RESYNC = Failure("catching up with the server", retry=True)
"""How a connection the bot closed to resync ends: it connects again at once."""


class BotClient:
    """One bot on one server; see the module's docstring. :meth:`run` returns the exit code."""

    def __init__(
        self,
        options: BotOptions,
        tokens: TokenStore,
        *,
        rng: random.Random | None = None,
        open_timeout: float = OPEN_TIMEOUT,
    ) -> None:
        self.options = options
        self.tokens = tokens
        # Seeded at the edge, as the server seeds its bots: from secrets, unless a test says.
        self._rng = rng if rng is not None else random.Random(secrets.randbits(64))
        self._open_timeout = open_timeout
        self.name = options.name or f"bot{options.level}"
        self.races = 0
        """Races this bot has seen to their ``game_over``."""
        self.websocket: ClientConnection | None = None
        """The open, welcomed connection (tests drop it to see the bot come back)."""
        self._race: _Race | None = None
        self._idle_s: float | None = None
        self._mover: asyncio.Task[None] | None = None
        self._sending: set[asyncio.Task[None]] = set()
        """Sends under way: held here, since the loop keeps only weak references to tasks."""
        self._welcomed_before = False
        self._exit: int | None = None

    async def run(self) -> int:
        """Connect, race, reconnect when the line drops; the exit code."""
        problem = url_problem(self.options.server)
        if problem is not None:
            log.error("%s", problem)
            return 1
        attempt = 0
        while True:
            ended = await self._session()
            if isinstance(ended, int):
                return ended
            if not ended.retry:
                log.error("%s", ended.words)
                return 1
            attempt = 0 if ended is RESYNC else attempt + 1
            delay = 0.0 if attempt == 0 else CLIENT.after(attempt, self._rng)
            log.info("%s; connecting again in %.1f s", ended.words, delay)
            await asyncio.sleep(delay)

    # -- one connection ----------------------------------------------------------

    async def _session(self) -> int | Failure:
        """One connection: the exit code, or why it ended."""
        url = self.options.server
        try:
            async with connect(url, open_timeout=self._open_timeout, close_timeout=2) as ws:
                welcomed = await self._hello(ws)
                if isinstance(welcomed, int | Failure):
                    return welcomed
                try:
                    done = await self._serve(ws)
                    if done is not None:
                        return done
                except _Resync:
                    return RESYNC
                except ConnectionClosed:
                    pass
                finally:
                    self.websocket = None
                    self._stop_moving()
                return closed(ws.close_code, url)
        except (OSError, EOFError, WebSocketException) as exc:
            return failure(exc, url, welcomed_before=self._welcomed_before)

    async def _hello(self, ws: ClientConnection) -> Welcome | Failure | int:
        """Say hello, as the stored identity if there is one, until welcomed or refused."""
        url, stored = self.options.server, self.tokens.get(self.options.server, self.name)
        while True:
            name = stored.name if stored else self.name
            token = stored.token if stored else None
            # A program says so (PROTOCOL.md, "Bots"): labelled a bot, never rated.
            hello = Hello(name=name, token=token, protocol=PROTOCOL_VERSION, bot=True)
            await ws.send(encode(hello))
            reply = await self._answer(ws)
            if isinstance(reply, Welcome):
                self.name, self._idle_s = reply.name, float(reply.limits.idle_s)
                self.tokens.put(url, KeptIdentity(reply.name, reply.token))
                self._welcomed_before, self.websocket = True, ws
                log.info("welcomed as %s", reply.name)
                return reply
            if reply.code == "bad_token" and stored is not None:
                self.tokens.forget(url, stored.name)  # the server forgot us: start afresh
                stored = None
            elif reply.code == "name_taken" and stored is None and self.options.name is None:
                self.name = f"bot{self.options.level}-{secrets.token_hex(2)}"
            elif reply.code in ("bad_name", "name_taken"):
                log.error("the name %r was refused: %s", name, reply.message)
                return 1
            else:
                return hello_refused(reply.code, reply.message, returning=stored is not None)

    async def _answer(self, ws: ClientConnection) -> Welcome | Error:
        async with asyncio.timeout(self._open_timeout):
            while True:
                reply = self._decode(await ws.recv())
                if isinstance(reply, Welcome | Error):
                    return reply

    async def _serve(self, ws: ClientConnection) -> int | None:
        """Probe, then handle every message: the exit code when done, None if the line closed."""
        self._send(LobbyRequest(id=PROBE))
        async for frame in ws:
            message = self._decode(frame)
            if message is not None:
                self._handle(message)
            if self._exit is not None:
                await ws.close()
                return self._exit
        return None

    @staticmethod
    def _decode(frame: str | bytes) -> ServerMessage | None:
        try:
            return decode_server(frame if isinstance(frame, str) else frame.decode())
        except (DecodeError, UnicodeDecodeError) as exc:
            log.warning("ignoring a frame that is not protocol: %s", exc)
            return None

    def _send(self, message: ClientMessage) -> None:
        """Send without waiting: websockets' ``send`` of a text frame only buffers it."""
        ws = self.websocket
        if ws is not None:
            task = asyncio.create_task(_send(ws, encode(message)))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    # -- what the server says ----------------------------------------------------

    def _handle(self, message: ServerMessage) -> None:
        if isinstance(message, LobbySnapshot) and message.id == PROBE and self._race is None:
            self._start()
        elif isinstance(message, GameStart):
            self._begin(message)
        elif isinstance(message, GameState):
            self._resume(message)
        elif isinstance(message, Played | Redealt | StatusChanged):
            self._event(message)
        elif isinstance(message, GameOver):
            self._over(message)
        elif isinstance(message, Error):
            self._error(message)

    def _start(self) -> None:
        """Into a race: quick match, or the room (only once: after a race, ``--forever`` seeks)."""
        options = self.options
        if options.action == "join_room" and self.races == 0:
            log.info("joining room %s", options.room)
            self._send(JoinRoom(code=options.room))
        else:
            log.info("seeking a race (level %d)", options.level)
            self._send(Seek(rules=options.rules))

    def _begin(self, start: GameStart) -> None:
        seat, limit = start.seat, start.rules.time_limit_s
        clock_end = None if limit is None else asyncio.get_running_loop().time() + limit
        wire, policy = start.boards[seat], BotPolicy(self.options.level, self._rng)
        board = board_from_wire(wire)
        self._race = _Race(start.game_id, seat, board, wire.status, start.seq, policy, clock_end)
        log.info("race %s: seat %d, against %s", start.game_id, seat, start.players[1 - seat])
        self._plan()

    def _resume(self, state: GameState) -> None:
        """The whole race again: on coming back, or after a resync."""
        if state.seat is None:
            return
        if state.over is not None:
            self._race = None
            self._over(state.over)
            return
        old, seat = self._race, state.seat
        fresh = old is None or old.game_id != state.game_id
        policy = BotPolicy(self.options.level, self._rng) if fresh or old is None else old.policy
        left = state.clock_left_ms
        clock_end = None if left is None else asyncio.get_running_loop().time() + left / 1000
        wire = state.boards[seat]
        board = board_from_wire(wire)
        self._race = _Race(state.game_id, seat, board, wire.status, state.seq, policy, clock_end)
        log.info("race %s resumed at count %d", state.game_id, board.count)
        self._plan()

    def _event(self, event: Played | Redealt | StatusChanged) -> None:
        race = self._race
        if race is None or event.game_id != race.game_id or event.seq <= race.seq:
            return  # another race's, or one the last game_state already had
        if event.seq != race.seq + 1:
            raise _Resync
        race.seq = event.seq
        if event.seat != race.seat:
            return  # the opponent's: the bot's board is as it was
        if isinstance(event, Played):
            card = engine.Card.parse(event.card)
            if not race.board.is_legal(card):
                raise _Resync
            race.board.play(card)
            race.status = event.status
            log.debug("played %s: count %d", event.card, event.count)
        elif isinstance(event, Redealt):
            race.board, race.status = board_from_wire(event.board), event.board.status
            log.info("redealt")
        else:
            race.status = event.status
        self._plan()

    def _over(self, over: GameOver) -> None:
        self._stop_moving()
        race, self._race = self._race, None
        self.races += 1
        seat = race.seat if race is not None else None
        won = "won" if over.winner is not None and over.winner == seat else over.result
        log.info("race %s over: %s (%s), counts %s", over.game_id, won, over.reason, over.counts)
        if self.options.forever:
            self._start()
        else:
            self._exit = 0

    def _error(self, error: Error) -> None:
        if error.code == "illegal_move" and self._race is not None:
            raise _Resync
        if error.code in FATAL and self._race is None:
            log.error("%s: %s", error.code, error.message)
            self._exit = 1
        else:
            log.info("the server said %s: %s", error.code, error.message)

    # -- moving --------------------------------------------------------------------

    def _plan(self) -> None:
        """Ask the policy for the next move on the bot's board, just after it changed."""
        self._stop_moving()
        race = self._race
        if race is None or race.status not in RACING:
            return
        now = asyncio.get_running_loop().time()
        clock_left = None if race.clock_end is None else race.clock_end - now
        move = race.policy.next_move(race.board, idle_left=self._idle_s, clock_left=clock_left)
        if move is not None:
            message: ClientMessage = Redeal() if move.card is None else Play(card=str(move.card))
            self._mover = asyncio.create_task(self._after(move.delay, message))

    async def _after(self, delay: float, message: ClientMessage) -> None:
        await asyncio.sleep(delay)
        self._send(message)

    def _stop_moving(self) -> None:
        if self._mover is not None:
            self._mover.cancel()
            self._mover = None


async def _send(ws: ClientConnection, frame: str) -> None:
    # A send on a closed connection fails: the reader sees the close and reconnects.
    with contextlib.suppress(ConnectionClosed):
        await ws.send(frame)
