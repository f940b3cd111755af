"""What the fault harness does to the services its workers share: PostgreSQL and Redis.

The servers themselves are started by the tests' own modules
(``tests/services.py``, ``tests/redis_service.py``); this module only stops
and starts them again, as an operator would:

- :class:`PostgresControl` stops a running PostgreSQL with ``pg_ctl stop -m
  fast`` and starts it again on the same data folder and port with the same
  options (read from its ``postmaster.opts``), waiting until it takes
  connections (``pg_ctl -w``). Whichever server it started last it stops
  itself on :meth:`PostgresControl.close`, since the module that started the
  first one knows only that one's process.
- :class:`Restartable` is what the harness needs of Redis: a restart on the
  same port, with nothing kept (``tests.redis_service.RedisServer`` is one).

Both are blocking calls: the harness runs them on a thread, so that the races
go on meanwhile.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import Any, Protocol

import psycopg

__all__ = ["PostgresControl", "Restartable"]

_TIMEOUT = 60


class Restartable(Protocol):
    """A Redis server that can be stopped and started again, empty, on its port."""

    @property
    def url(self) -> str: ...

    @property
    def port(self) -> int: ...

    def restart(self) -> None: ...


def _as_postgres() -> dict[str, Any]:
    """``subprocess`` arguments that drop root for the ``postgres`` user, which PostgreSQL
    requires (as tests/services.py runs it); nothing otherwise."""
    if os.geteuid() != 0:
        return {}
    return {"user": "postgres", "group": "postgres", "extra_groups": []}


class PostgresControl:
    """Stops and starts the PostgreSQL server at ``admin_url`` in place, with ``pg_ctl``."""

    def __init__(self, admin_url: str, bindir: Path) -> None:
        self.admin_url = admin_url
        self._pg_ctl = str(bindir / "pg_ctl")
        with psycopg.connect(admin_url) as conn:
            row = conn.execute(b"SHOW data_directory").fetchone()
        assert row is not None
        self.data = Path(str(row[0]))
        # The postmaster's own command line: "/usr/lib/.../postgres" "-D" "DATA" "-p" ...
        words = shlex.split((self.data / "postmaster.opts").read_text())
        options = words[1:]
        at = options.index("-D")
        del options[at : at + 2]  # pg_ctl gives -D itself
        self._options = shlex.join(options)
        self._started_here = False
        self.stops = 0

    def stop(self) -> None:
        """``pg_ctl stop -m fast``: every session ends, and the server is down when it returns."""
        self._pg_ctl_run("stop", "-m", "fast")
        self.stops += 1

    def start(self) -> None:
        """Start the server again as it ran; return once it takes connections."""
        log = self.data / "pg_ctl.log"
        self._pg_ctl_run("start", "-l", str(log), "-o", self._options)
        self._started_here = True

    def close(self) -> None:
        """Stop the server if this started it (the one first started is its starter's)."""
        if self._started_here:
            self._pg_ctl_run("stop", "-m", "fast")
            self._started_here = False

    def _pg_ctl_run(self, *args: str) -> None:
        command = [self._pg_ctl, *args[:1], "-D", str(self.data), "-w", *args[1:]]
        command += ["-t", str(_TIMEOUT)]
        subprocess.run(
            command,
            check=True,
            capture_output=True,
            cwd=self.data,  # the postgres user may not enter the caller's folder
            timeout=_TIMEOUT + 5,
            **_as_postgres(),
        )
