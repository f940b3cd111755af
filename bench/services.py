"""The services the multi-worker benchmark starts itself: PostgreSQL and Redis, on loopback.

Small equivalents of ``tests/services.py`` and ``tests/redis_service.py``,
which the benchmark cannot reuse as they are: the test PostgreSQL runs with
fsync off, and the test Redis keeps its process (whose CPU time the benchmark
reads) to itself.

- :func:`postgres` makes a cluster in a fresh temporary folder with ``initdb``
  (trust authentication: it listens on 127.0.0.1 and a private socket folder
  only) and runs ``postgres`` on a free port with the server's **default
  settings**: fsync, ``synchronous_commit`` and ``full_page_writes`` on, as a
  deployment would have them. Only ``initdb`` itself runs with ``--no-sync``
  (it makes the empty cluster; the server writes nothing through it). Under
  root both run as the ``postgres`` user, which PostgreSQL requires.
- :func:`fresh_database`: an empty database per measurement, so that every
  measurement starts with no players and no races.
- :func:`redis`: ``redis-server`` on a free port, nothing kept on disk.

Every start waits for its own signal of readiness with a deadline, and every
stop is by the process's id.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg

from .common import free_port

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "SHOWN",
    "Service",
    "fresh_database",
    "postgres",
    "postgres_bindir",
    "redis",
    "redis_version",
]

READY = "database system is ready to accept connections"
SHOWN = ("server_version", "fsync", "synchronous_commit", "full_page_writes", "shared_buffers")
"""The PostgreSQL settings the benchmark reports (all of them the defaults)."""
_TIMEOUT = 60.0
_names = itertools.count()


@dataclass(frozen=True, slots=True)
class Service:
    url: str
    pid: int
    settings: dict[str, str]


def postgres_bindir() -> Path:
    """The newest ``/usr/lib/postgresql/<version>/bin`` with ``initdb`` and ``postgres``."""
    found = []
    for bindir in Path("/usr/lib/postgresql").glob("*/bin"):
        if all(os.access(bindir / tool, os.X_OK) for tool in ("initdb", "postgres")):
            found.append((int(re.sub(r"\D", "", bindir.parent.name) or "0"), bindir))
    if not found:
        raise RuntimeError("PostgreSQL is not installed: make services")
    return max(found)[1]


def _as_postgres() -> dict[str, Any]:
    """``subprocess`` arguments that drop root for the ``postgres`` user (nothing otherwise)."""
    if os.geteuid() != 0:
        return {}
    return {"user": "postgres", "group": "postgres", "extra_groups": []}


@contextlib.contextmanager
def postgres(bindir: Path) -> Iterator[Service]:
    """A PostgreSQL server with its default settings for the block; a superuser URL to it."""
    folder = Path(tempfile.mkdtemp(prefix="bench-pg-"))
    data, sockets = folder / "data", folder / "sockets"
    sockets.mkdir()
    if os.geteuid() == 0:
        for path in (folder, sockets):
            shutil.chown(path, "postgres", "postgres")
    try:
        _initdb(bindir, data)
        port = free_port()
        process = _start_postgres(bindir, data, sockets, port)
        try:
            _wait_ready(process)
            url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
            yield Service(url, process.pid, _shown(url))
        finally:
            process.send_signal(signal.SIGINT)  # a fast shutdown
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _initdb(bindir: Path, data: Path) -> None:
    """A fresh cluster in ``data``, its superuser ``postgres`` trusted on every socket."""
    options = ("-U", "postgres", "--no-sync", "--auth=trust", "--encoding=UTF8", "--locale=C")
    subprocess.run(
        [str(bindir / "initdb"), "-D", str(data), *options],
        check=True,
        cwd=data.parent,
        capture_output=True,
        **_as_postgres(),
    )


def _start_postgres(bindir: Path, data: Path, sockets: Path, port: int) -> subprocess.Popen[str]:
    """``postgres`` on 127.0.0.1:``port``, its log on a pipe for :func:`_wait_ready`."""
    command = [str(bindir / "postgres"), "-D", str(data), "-p", str(port)]
    command += ["-k", str(sockets), "-c", "listen_addresses=127.0.0.1"]
    return subprocess.Popen(
        command,
        cwd=data.parent,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        **_as_postgres(),
    )


def _wait_ready(process: subprocess.Popen[str]) -> None:
    """Read the server's log until it is ready; then keep reading it on a thread."""
    assert process.stderr is not None
    log: list[str] = []
    deadline = time.monotonic() + _TIMEOUT
    while READY not in (log[-1] if log else ""):
        left = deadline - time.monotonic()
        if left <= 0:
            raise RuntimeError("PostgreSQL did not start in time:\n" + "".join(log))
        readable, _, _ = select.select([process.stderr], [], [], left)
        if readable:
            line = process.stderr.readline()
            if not line:
                process.wait()
                raise RuntimeError("PostgreSQL exited on start:\n" + "".join(log))
            log.append(line)
    threading.Thread(target=_drain, args=(process,), daemon=True).start()


def _drain(process: subprocess.Popen[str]) -> None:
    """Keep reading the server's log, so that a full pipe never stops it."""
    assert process.stderr is not None
    for _line in process.stderr:
        pass


def _shown(url: str) -> dict[str, str]:
    """The values of the settings in :data:`SHOWN`."""
    shown = {}
    with psycopg.connect(url) as conn:
        for name in SHOWN:
            row = conn.execute(f"SHOW {name}".encode()).fetchone()
            shown[name] = "?" if row is None else str(row[0])
    return shown


@contextlib.contextmanager
def fresh_database(admin_url: str) -> Iterator[str]:
    """A new, empty database for the block; its URL."""
    name = f"bench_{os.getpid()}_{next(_names)}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"'.encode())
    try:
        yield admin_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with (
            contextlib.suppress(psycopg.Error),
            psycopg.connect(admin_url, autocommit=True) as admin,
        ):
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)'.encode())


@contextlib.contextmanager
def redis(prefix: tuple[str, ...] = ()) -> Iterator[Service]:
    """``redis-server`` on 127.0.0.1, nothing kept on disk; ``prefix`` runs it (``taskset``)."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed: make services")
    port = free_port()
    options = ["--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(
        [*prefix, binary, *options, "--loglevel", "warning"], stdout=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + _TIMEOUT
        while not _answers(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)  # polling a process that is starting, with a deadline
        yield Service(f"redis://127.0.0.1:{port}/0", process.pid, {})
    finally:
        process.terminate()
        process.wait(10)


def redis_version() -> str:
    """``7.0.15``, from ``redis-server --version``."""
    done = subprocess.run(["redis-server", "--version"], capture_output=True, text=True, check=True)
    return done.stdout.split()[2].removeprefix("v=")


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False
