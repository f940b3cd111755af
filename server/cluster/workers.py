"""``--workers N``: a supervisor that keeps N worker processes serving one port.

Theory of operation
-------------------
With ``--workers 1`` (the default) there is no supervisor: the process is the
server. With ``--workers N`` (N > 1), ``flowergarden-server`` becomes this
:class:`Supervisor`, which serves nothing itself. It starts N workers, each
``python -m server --workers 1 --worker-id NAME-i`` (:func:`worker_command`)
with every other setting in its environment (:func:`worker_env`), and each
worker listens on the same host:port with ``SO_REUSEPORT``
(:attr:`~server.config.Settings.reuse_port`, on because ``--redis`` is
given), so that the kernel spreads new connections over them. What the
workers share, the lobby and the records, goes through Redis and PostgreSQL.

Why each worker is a subprocess running ``python -m server`` rather than a
``multiprocessing`` child:

* a worker is exactly the one-process server, through the same entry point
  and code path that ``--workers 1`` runs and its tests cover; nothing is
  pickled, and no resource-tracker process or re-import of the supervisor's
  ``__main__`` comes along;
* each worker starts in a process group of its own (``process_group=0``,
  set between fork and exec), so a terminal's Ctrl-C reaches the supervisor
  alone, which passes the stop on once: no worker sees a signal that the
  supervisor did not send;
* ``ps`` shows each worker with its name, while the settings, a database
  password among them, stay in the environment, which only the owner reads.

Stopping: on SIGTERM or SIGINT the supervisor starts no worker again and
sends SIGTERM to every worker (a worker takes either signal the same way:
``/healthz`` answers 503, connections close with 1001, the store closes).
SIGTERM also ends, quietly, a worker still starting that has not yet taken
the signal over; that counts as stopping as asked. The supervisor waits for
every worker, kills those still running after :data:`STOP_TIMEOUT`, and
exits 0 if every worker exited 0.

Restarts: a worker that exits without being asked (killed, crashed, or
stopped by someone else) is started again under the same name after a
:data:`core.backoff.RESTART` delay (0.5 s, doubling to 10 s; a run of
:data:`BACKOFF_RESET` seconds starts the series over), with a log line
naming it and its exit status. This is what makes ``kill -9`` of a worker
survivable on one machine: the others keep accepting meanwhile, and the
kernel stops routing to the dead socket.
A worker that cannot start at all (a port taken by another program, a bad
URL) is retried at the longest delay for as long as the supervisor runs,
each attempt logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import signal
import socket
import sys
import time
from typing import TYPE_CHECKING

from core.backoff import RESTART, Attempts
from server.config import ENV_PREFIX, Settings

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

__all__ = [
    "BACKOFF_RESET",
    "STOP_TIMEOUT",
    "Supervisor",
    "exit_status",
    "own_worker_id",
    "supervise",
    "worker_command",
    "worker_env",
    "worker_names",
]

log = logging.getLogger("flowergarden.workers")

BACKOFF_RESET = 60.0
"""Seconds of uptime after which a worker's death is taken as a fresh one: a crash once a
day is retried at once (RESTART's first delay), while a worker that dies as it starts
does not spin."""
STOP_TIMEOUT = 30.0
"""Seconds a worker has to stop once asked before it is killed. A worker closes
in about its close timeout (3 s of closing handshake, then a second) plus the
store's last writes (5 s at most): this is a bound for a hung one, not a schedule."""


def own_worker_id(settings: Settings, hostname: str | None = None, pid: int | None = None) -> str:
    """The name of a lone server or worker: ``--worker-id``, else ``HOSTNAME-PID``."""
    if settings.worker_id:
        return settings.worker_id
    hostname = socket.gethostname() if hostname is None else hostname
    return f"{hostname}-{os.getpid() if pid is None else pid}"


def worker_names(settings: Settings, hostname: str | None = None) -> list[str]:
    """The supervisor's workers: ``ID-1`` to ``ID-N``, ``ID`` being ``--worker-id`` or the
    host's name. A restarted worker keeps its name, so it stays one series in ``/metrics``."""
    base = settings.worker_id or (socket.gethostname() if hostname is None else hostname)
    return [f"{base}-{index}" for index in range(1, settings.workers + 1)]


def worker_command(name: str) -> list[str]:
    """The command line of the worker ``name``: the one-process server, named.

    ``sys.executable`` is the supervisor's own interpreter, so the worker
    runs the same installation of the package."""
    return [sys.executable, "-m", "server", "--workers", "1", "--worker-id", name]


def worker_env(settings: Settings, environ: Mapping[str, str]) -> dict[str, str]:
    """A worker's environment: ``environ`` with every setting as ``FLOWERGARDEN_<NAME>``.

    Flags given to the supervisor reach the worker this way too, so its
    settings are the supervisor's whichever way each was given; the worker's
    own flags (``--workers 1``, ``--worker-id``) win over these, as a flag
    wins over the environment.
    """
    env = dict(environ)
    for field in dataclasses.fields(Settings):
        env[ENV_PREFIX + field.name.upper()] = str(getattr(settings, field.name))
    return env


def exit_status(code: int) -> str:
    """``code`` as ``asyncio`` reports it (minus a signal number), in words."""
    if code >= 0:
        return f"exited with status {code}"
    try:
        return f"was killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"was killed by signal {-code}"


class Supervisor:
    """Keeps one worker process per name running until asked to stop: ``await run()``."""

    def __init__(
        self,
        settings: Settings,
        *,
        names: Sequence[str] | None = None,
        command: Callable[[str], list[str]] = worker_command,
        environ: Mapping[str, str] = os.environ,
        clock: Callable[[], float] = time.monotonic,
        stop_timeout: float = STOP_TIMEOUT,
    ) -> None:
        self.settings = settings
        self.names = list(worker_names(settings) if names is None else names)
        self._command = command
        self._env = worker_env(settings, environ)
        self._clock = clock
        self._stop_timeout = stop_timeout
        self._processes: dict[str, asyncio.subprocess.Process] = {}
        """The worker process running under each name, while one does."""
        self._stopping = asyncio.Event()
        self._kill_timer: asyncio.TimerHandle | None = None

    async def run(self) -> int:
        """Run every worker until SIGTERM or SIGINT; 0 if every one then exited 0."""
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop, sig)
        settings = self.settings
        log.info(
            "starting %d workers on %s:%d: %s",
            len(self.names),
            settings.host,
            settings.port,
            ", ".join(self.names),
        )
        try:
            codes = await asyncio.gather(*(self._keep(name) for name in self.names))
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)
            if self._kill_timer is not None:
                self._kill_timer.cancel()
        failed = [name for name, code in zip(self.names, codes, strict=True) if code != 0]
        if failed:
            log.error("stopped; workers that did not exit cleanly: %s", ", ".join(failed))
            return 1
        log.info("stopped: every worker exited cleanly")
        return 0

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Start no worker again, and ask every running one to stop (once)."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        log.info("%s: stopping every worker", signal.Signals(sig).name)
        for process in self._processes.values():
            _terminate(process)
        loop = asyncio.get_running_loop()
        self._kill_timer = loop.call_later(self._stop_timeout, self._kill)

    async def _keep(self, name: str) -> int:
        """Run the worker ``name``, again each time it dies, until asked to stop.

        The result is its last exit code, 0 when it stopped as asked."""
        restarts = Attempts(RESTART, healthy=BACKOFF_RESET)
        code = 0
        while not self._stopping.is_set():
            process = await self._start(name)
            started = self._clock()
            code = await process.wait()
            del self._processes[name]
            if self._stopping.is_set():
                return self._stopped(name, process.pid, code)
            delay = restarts.failed(ran=self._clock() - started)
            level = logging.WARNING if code != 0 else logging.INFO
            log.log(
                level,
                "worker %s (pid %d) %s; starting it again in %.1f s",
                name,
                process.pid,
                exit_status(code),
                delay,
            )
            if await self._stopped_within(delay):
                log.info("worker %s is not started again: stopping", name)
        return code

    async def _start(self, name: str) -> asyncio.subprocess.Process:
        process = await asyncio.create_subprocess_exec(
            *self._command(name),
            env=self._env,
            stdin=asyncio.subprocess.DEVNULL,
            process_group=0,  # a terminal's Ctrl-C is the supervisor's to pass on
        )
        self._processes[name] = process
        log.info("worker %s started (pid %d)", name, process.pid)
        if self._stopping.is_set():
            _terminate(process)  # the stop came while it was being started
        return process

    def _stopped(self, name: str, pid: int, code: int) -> int:
        """The exit code of a worker that ended after the stop, logged."""
        if code == -signal.SIGTERM:
            # Ended by the SIGTERM it was sent before its handler was set:
            # it was still starting, with nothing to close.
            code = 0
        level = logging.INFO if code == 0 else logging.WARNING
        log.log(level, "worker %s (pid %d) %s", name, pid, exit_status(code))
        return code

    async def _stopped_within(self, delay: float) -> bool:
        """Wait ``delay`` seconds, less if a stop comes; whether it did."""
        try:
            await asyncio.wait_for(self._stopping.wait(), delay)
        except TimeoutError:
            return False
        return True

    def _kill(self) -> None:
        for name, process in self._processes.items():
            log.error("worker %s (pid %d) did not stop in time: killing it", name, process.pid)
            with contextlib.suppress(ProcessLookupError):  # it has just ended
                process.kill()


def _terminate(process: asyncio.subprocess.Process) -> None:
    """SIGTERM, which a worker takes as it takes SIGINT: it closes and exits 0."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):  # it has just ended
            process.terminate()


def supervise(settings: Settings) -> int:
    """Run ``settings.workers`` workers until SIGTERM or SIGINT; the exit code."""
    return asyncio.run(Supervisor(settings).run())
