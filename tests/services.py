"""Real services for the tests: a throwaway PostgreSQL server, and a database per test.

Theory of operation: :func:`postgres_bindir` finds the newest Debian build
(``/usr/lib/postgresql/<version>/bin``, from ``make services``).
:func:`running_postgres` makes a cluster in a fresh temporary folder with
``initdb`` (trust authentication: it listens on 127.0.0.1 and a private socket
folder only), starts ``postgres`` on a free port with fsync off (a test server
need not survive a power cut), waits for its own "ready to accept connections"
line on stderr with a deadline, yields an admin URL, and stops it with a fast
shutdown. PostgreSQL refuses to run as root, so under root both run as the
``postgres`` user, with the folder chowned to it. :func:`fresh_database`
makes one empty database per test, so tests share the server, never data.

``FLOWERGARDEN_REQUIRE_SERVICES=1`` (CI) turns "not installed" from a skip
into a failure: see :func:`services_required`.
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
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "POSTGRES_GLOB",
    "free_port",
    "fresh_database",
    "postgres_bindir",
    "running_postgres",
    "services_required",
]

POSTGRES_GLOB = "/usr/lib/postgresql/*/bin"
"""Where Debian's postgresql-NN packages put the server's binaries."""

READY = "database system is ready to accept connections"
"""The line the postmaster logs once it takes connections."""

_STARTUP_TIMEOUT = 60.0
_STOP_TIMEOUT = 30.0
_databases = itertools.count()


def services_required() -> bool:
    """True where a missing service must fail the tests rather than skip them (CI)."""
    return os.environ.get("FLOWERGARDEN_REQUIRE_SERVICES") == "1"


def postgres_bindir() -> Path | None:
    """The newest ``/usr/lib/postgresql/<version>/bin`` with ``initdb`` and ``postgres``."""
    found = []
    for bindir in Path("/").glob(POSTGRES_GLOB.lstrip("/")):
        if all(os.access(bindir / tool, os.X_OK) for tool in ("initdb", "postgres")):
            version = re.sub(r"\D", "", bindir.parent.name) or "0"
            found.append((int(version), bindir))
    return max(found)[1] if found else None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _as_postgres() -> dict[str, Any]:
    """``subprocess`` arguments that drop root for the ``postgres`` user (nothing otherwise)."""
    if os.geteuid() != 0:
        return {}
    return {"user": "postgres", "group": "postgres", "extra_groups": []}


def _wait_until_ready(process: subprocess.Popen[str], log: list[str]) -> None:
    """Read the server's stderr until it says it is ready; raise past the deadline."""
    assert process.stderr is not None
    deadline = time.monotonic() + _STARTUP_TIMEOUT
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise RuntimeError("PostgreSQL did not start in time:\n" + "".join(log))
        readable, _, _ = select.select([process.stderr], [], [], left)
        if not readable:
            continue
        line = process.stderr.readline()
        if not line:  # the server exited
            process.wait()
            raise RuntimeError("PostgreSQL exited on start:\n" + "".join(log))
        log.append(line)
        if READY in line:
            return


def _drain(process: subprocess.Popen[str], log: list[str]) -> None:
    """Keep reading the server's log, so that it never blocks on a full pipe."""
    assert process.stderr is not None
    for line in process.stderr:
        log.append(line)


@contextmanager
def running_postgres(bindir: Path, port: int | None = None) -> Iterator[str]:
    """A PostgreSQL server of its own for the block, on ``port`` or a free one; yields a
    superuser URL to it. (A port chosen first lets a test start a server before it.)"""
    folder = Path(tempfile.mkdtemp(prefix="flowergarden-pg-"))
    data, sockets = folder / "data", folder / "sockets"
    sockets.mkdir()
    if os.geteuid() == 0:
        for path in (folder, sockets):
            shutil.chown(path, "postgres", "postgres")
    try:
        # Trust: the server listens on 127.0.0.1 and a private socket folder only.
        options = ("-U", "postgres", "--no-sync", "--auth=trust", "--encoding=UTF8", "--locale=C")
        subprocess.run(
            [str(bindir / "initdb"), "-D", str(data), *options],
            check=True,
            cwd=folder,
            capture_output=True,
            **_as_postgres(),
        )
        with _postmaster(bindir, data, sockets, port or free_port()) as bound:
            yield f"postgresql://postgres@127.0.0.1:{bound}/postgres"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def _postmaster(bindir: Path, data: Path, sockets: Path, port: int) -> Iterator[int]:
    """``postgres`` running on ``port`` for the block; its port."""
    # fsync and full pages off: a test server need not survive a power cut.
    settings = {"listen_addresses": "127.0.0.1", "fsync": "off", "full_page_writes": "off"}
    command = [str(bindir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(sockets)]
    for name, value in settings.items():
        command += ["-c", f"{name}={value}"]
    process = subprocess.Popen(
        command,
        cwd=data.parent,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        **_as_postgres(),
    )
    log: list[str] = []
    try:
        _wait_until_ready(process, log)
        threading.Thread(target=_drain, args=(process, log), daemon=True).start()
        yield port
    finally:
        # SIGINT, a "fast" shutdown: it ends any connection a failed test left open.
        process.send_signal(signal.SIGINT)
        try:
            process.wait(_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def fresh_database(admin_url: str) -> Iterator[str]:
    """A new, empty database on the server at ``admin_url`` for the block; its URL."""
    name = f"test_{os.getpid()}_{next(_databases)}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        # FILE_COPY: copying the small template's files beats logging its every
        # block (PostgreSQL 15's default) by half, and fsync is off anyway.
        admin.execute(f'CREATE DATABASE "{name}" STRATEGY = FILE_COPY'.encode())
    try:
        yield admin_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with (
            contextlib.suppress(psycopg.Error),
            psycopg.connect(admin_url, autocommit=True) as admin,
        ):
            # FORCE: a store a failed test left open must not keep its database.
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)'.encode())
