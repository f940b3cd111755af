"""A throwaway Redis server for the tests, from Debian's ``redis-server``.

:func:`running_redis` starts ``redis-server`` on 127.0.0.1 on a free port with
nothing kept on disk, waits until it answers ``PING`` (a bounded loop with a
deadline, not a sleep), yields its URL, and stops it. :func:`restart` stops it
and starts it again on the same port, for the tests of a Redis restart.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["RedisServer", "redis_binary", "running_redis"]

_STARTUP_TIMEOUT = 20.0


def redis_binary() -> str | None:
    return shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class RedisServer:
    """One ``redis-server`` process on a fixed port: start, stop, start again."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        options = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self._process = subprocess.Popen(
            [self.binary, "--port", str(self.port), *options, "--loglevel", "warning"],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + _STARTUP_TIMEOUT
        while not self._answers():
            if self._process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self._process.returncode}")
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not answer PING in time")
            time.sleep(0.02)  # polling a process that is starting, with a deadline

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=10)
            self._process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False


@contextmanager
def running_redis(binary: str) -> Iterator[RedisServer]:
    server = RedisServer(binary)
    server.start()
    try:
        yield server
    finally:
        server.stop()
