"""The server's settings: command-line flags, each also ``FLOWERGARDEN_<NAME>``.

A flag on the command line wins over the environment, which wins over the
default. docs/server.md ("Flags") lists them.

Every field of :class:`Settings` is a flag. What follows from the flags
without being one is a property: :attr:`Settings.reuse_port`, so that no
combination of flags can contradict it.
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol import HELLO_TIMEOUT_S
from server.arena_schedule import arena_plans
from server.store.backends import is_postgres

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = ["ENV_PREFIX", "REDIS_SCHEMES", "Settings", "parse_args"]

ENV_PREFIX = "FLOWERGARDEN_"
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
"""The URL schemes redis-py's ``Redis.from_url`` takes."""
_WORKER_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
"""A worker id names a Redis channel and a Prometheus label: kept to what is safe in both."""


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8765
    db: str = "flowergarden.sqlite3"
    grace: float = 30.0
    idle_timeout: float = 60.0
    max_message: int = 4096
    log_level: str = "INFO"
    max_connections_per_ip: int = 256
    max_connections: int = 10_000
    hello_timeout: float = HELLO_TIMEOUT_S
    send_queue: int = 512
    new_players_per_ip: int = 500
    wrong_codes_per_ip: int = 120
    http_per_ip: int = 120
    rated_per_day: int = 5
    workers: int = 1
    redis: str = ""
    worker_id: str = ""
    db_wait: float = 60.0
    init_db: bool = False
    admin_token: str = ""
    forget_after_days: float = 30.0
    arenas: str = ""

    @property
    def database_wait(self) -> float:
        """Seconds to wait at start for a database that is not up yet: ``db_wait`` for
        PostgreSQL, none for an SQLite file, which waiting would not make appear."""
        return self.db_wait if is_postgres(self.db) else 0.0

    @property
    def reuse_port(self) -> bool:
        """Whether the listening socket takes ``SO_REUSEPORT``: when the lobby is shared.

        A server that shares its lobby through Redis may share its port with
        the others on the machine (the supervisor's workers, or a new server
        started beside a running one), and the kernel spreads new connections
        over them. A server of its own keeps the plain "address already in
        use", which is what catches a second copy started by mistake.
        """
        return bool(self.redis)


_HELP = {
    "host": "address to listen on (0.0.0.0 for every interface)",
    "port": "port to listen on; 0 picks a free one, and the bound address is logged",
    "db": "where players and finished races are kept: an SQLite file (':memory:' keeps"
    " nothing) or a postgresql:// URL",
    "grace": "seconds a racer whose connection dropped has to come back",
    "idle_timeout": "seconds a racer may go without a play before they are timed out",
    "max_message": "largest frame accepted, in bytes; a larger one closes with 1009",
    "log_level": "DEBUG, INFO, WARNING or ERROR",
    "max_connections_per_ip": "open connections allowed from one address, handshakes included",
    "max_connections": "open TCP connections allowed in all, handshakes included; past it a new"
    " one is answered 503, and past 10%% more closed unread",
    "hello_timeout": "seconds a new connection has to say hello",
    "send_queue": "messages queued for a slow receiver before it is disconnected",
    "new_players_per_ip": "new players (hello without a token) one address may make an hour",
    "wrong_codes_per_ip": "wrong room codes one address may try an hour, 20 at most at once",
    "http_per_ip": "HTTP API requests one address may make a minute, half of them at once",
    "rated_per_day": "rated races the same two players may race each other a day",
    "workers": "worker processes serving the one port; more than 1 needs --redis and a"
    " postgresql:// --db: see deploy/README.md",
    "redis": "Redis URL (redis://, rediss:// or unix://) through which workers share the lobby",
    "worker_id": "this process's name among the workers (in /metrics); empty makes one:"
    " HOSTNAME-PID, or with --workers N, HOSTNAME-1 to HOSTNAME-N (ID-1 to ID-N when given)",
    "db_wait": "seconds a server started before its PostgreSQL waits for it, trying again"
    " with a line in the log each time; an SQLite file is never waited for",
    "admin_token": "the operator's token: with it, the admin API under /api/admin/ answers"
    " requests that carry 'Authorization: Bearer TOKEN' (docs/operating.md); without it,"
    " every admin path is 404. Give it as FLOWERGARDEN_ADMIN_TOKEN rather than as a flag,"
    " which every user of the machine sees in ps",
    "forget_after_days": "days after which a player who never finished a race and has not"
    " come back is forgotten: their name is free and their token no longer works (0: never)",
    "arenas": "recurring arenas, plans separated by ';', each key=value words: every=MINUTES"
    " (from 00:00 UTC) minutes=LENGTH name=NAME and any race rule, e.g. 'every=60 minutes=30"
    " name=Hourly deal=mirror winnable_only=true rated=true' (docs/operating.md)",
    "init_db": "make a new database in an SQLite --db file that exists but is empty (without"
    " it such a file is refused: it may be a database that lost its contents); a missing"
    " file is always made, and a database that is there is opened as it is",
}
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")
"""What a switch's environment variable may say, in any case."""

_SHARED = (
    "several workers share the lobby through Redis and the records through PostgreSQL;"
    " see deploy/README.md"
)


def parse_args(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``argv`` (default ``sys.argv[1:]``) over ``env`` (default ``os.environ``)."""
    env = os.environ if env is None else env
    defaults = Settings()
    parser = argparse.ArgumentParser(
        prog="flowergarden-server",
        description="The Flower Garden race server: a websocket lobby where two people race.",
        epilog="Every flag can also be set as FLOWERGARDEN_<FLAG>, e.g. FLOWERGARDEN_PORT=9000.",
    )
    for name in Settings.__dataclass_fields__:
        default = getattr(defaults, name)
        kind = type(default)
        env_value = env.get(ENV_PREFIX + name.upper())
        if kind is bool:
            _switch(parser, name, default if env_value is None else _truth(parser, name, env_value))
            continue
        parser.add_argument(
            "--" + name.replace("_", "-"),
            dest=name,
            type=kind,
            # argparse converts a string default with ``type``, so a malformed
            # environment value is a usage error like a malformed flag.
            default=env_value if env_value is not None else default,
            metavar=name.upper(),
            help=f"{_HELP[name]} (default: {default if default != '' else 'none'})",
        )
    args = parser.parse_args(argv)
    settings = Settings(**vars(args))
    _check(parser, settings)
    _check_workers(parser, settings)
    return settings


def _switch(parser: argparse.ArgumentParser, name: str, default: bool) -> None:
    """A flag that is on or off: ``--NAME`` turns it on."""
    flag = "--" + name.replace("_", "-")
    parser.add_argument(flag, dest=name, action="store_true", default=default, help=_HELP[name])


def _truth(parser: argparse.ArgumentParser, name: str, value: str) -> bool:
    """A switch's environment variable: ``1``/``true``/``yes``/``on`` or ``0``/``false``/...."""
    if value.strip().lower() in _TRUE:
        return True
    if value.strip().lower() not in _FALSE:
        parser.error(f"{ENV_PREFIX}{name.upper()} must be 1 or 0 (true or false), not {value!r}")
    return False


def _check(parser: argparse.ArgumentParser, settings: Settings) -> None:
    if not 0 <= settings.port <= 65535:
        parser.error("--port must be 0 to 65535")
    if settings.grace < 0 or settings.idle_timeout <= 0 or settings.hello_timeout <= 0:
        parser.error("--grace must be >= 0, --idle-timeout and --hello-timeout > 0")
    if settings.db_wait < 0 or settings.forget_after_days < 0:
        parser.error("--db-wait and --forget-after-days must be >= 0")
    if settings.max_message < 256:
        parser.error("--max-message must be at least 256 bytes")
    if min(settings.max_connections_per_ip, settings.max_connections, settings.send_queue) < 1:
        parser.error(
            "--max-connections-per-ip, --max-connections and --send-queue must be at least 1"
        )
    if min(settings.http_per_ip, settings.rated_per_day) < 1:
        parser.error("--http-per-ip and --rated-per-day must be at least 1")
    if settings.new_players_per_ip < 1 or settings.wrong_codes_per_ip < 1:
        parser.error("--new-players-per-ip and --wrong-codes-per-ip must be at least 1")
    try:
        arena_plans(settings.arenas)
    except ValueError as exc:
        parser.error(f"--arenas: {exc}")
    if settings.log_level.upper() not in {"DEBUG", "INFO", "WARNING", "ERROR"}:
        parser.error("--log-level must be DEBUG, INFO, WARNING or ERROR")


def _check_workers(parser: argparse.ArgumentParser, settings: Settings) -> None:
    """The flags of several workers: each refusal says what to give instead."""
    if settings.workers < 1:
        parser.error("--workers must be at least 1")
    if settings.redis and not settings.redis.startswith(REDIS_SCHEMES):
        parser.error("--redis must be a URL starting with redis://, rediss:// or unix://")
    if settings.worker_id and not _WORKER_ID.fullmatch(settings.worker_id):
        parser.error("--worker-id must be 1 to 64 letters, digits, '.', '_' or '-'")
    if settings.workers == 1:
        return
    if not settings.redis:
        parser.error(f"--workers {settings.workers} needs --redis: {_SHARED}")
    if not is_postgres(settings.db):
        parser.error(f"--workers {settings.workers} needs a postgresql:// --db: {_SHARED}")
    if settings.port == 0:
        # Each worker would be given a port of its own: they would not share one.
        parser.error(
            f"--workers {settings.workers} needs a port number: with --port 0 each worker"
            " would listen on a different port"
        )
