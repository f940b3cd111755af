"""The supervisor's pure parts: the restart backoff, worker names, a worker's settings."""

from __future__ import annotations

import dataclasses
import os
import signal
import sys

import pytest

from core.backoff import RESTART, Attempts
from server.cluster.workers import (
    BACKOFF_RESET,
    exit_status,
    own_worker_id,
    worker_command,
    worker_env,
    worker_names,
)
from server.config import Settings, parse_args

PG = "postgresql://fg:secret@db.example:5432/fg"
SHARED = Settings(workers=3, db=PG, redis="redis://cache:6379/0", port=9000)


def restarts() -> Attempts:
    """The supervisor's count of a worker's restarts, as ``Supervisor._keep`` makes it."""
    return Attempts(RESTART, healthy=BACKOFF_RESET)


def test_the_restart_delay_doubles_from_half_a_second_to_ten() -> None:
    backoff = restarts()
    delays = [backoff.failed(ran=1.0) for _ in range(7)]
    assert delays == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    assert BACKOFF_RESET == 60.0


def test_a_minute_of_uptime_starts_the_restart_delay_over() -> None:
    backoff = restarts()
    for _ in range(7):
        backoff.failed(ran=0.2)
    assert backoff.failed(ran=59.9) == 10.0
    assert backoff.failed(ran=60.0) == 0.5
    assert backoff.failed(ran=3.0) == 1.0
    assert backoff.failed(ran=3600.0) == 0.5


def test_workers_are_named_after_the_host_or_the_given_id() -> None:
    assert worker_names(Settings(workers=3), hostname="box") == ["box-1", "box-2", "box-3"]
    named = Settings(workers=2, worker_id="eu.a")
    assert worker_names(named, hostname="box") == ["eu.a-1", "eu.a-2"]


def test_a_lone_server_is_named_by_its_flag_or_its_host_and_pid() -> None:
    assert own_worker_id(Settings(worker_id="server1"), "box", 42) == "server1"
    assert own_worker_id(Settings(), "box", 42) == "box-42"
    assert own_worker_id(Settings()).endswith(f"-{os.getpid()}")


def test_a_worker_is_the_one_process_server_named() -> None:
    command = worker_command("box-2")
    assert command == [sys.executable, "-m", "server", "--workers", "1", "--worker-id", "box-2"]


def test_a_worker_has_the_supervisors_settings_but_its_own_name() -> None:
    settings = dataclasses.replace(SHARED, grace=2.5, log_level="DEBUG", worker_id="eu")
    env = worker_env(settings, {"PATH": "/bin", "FLOWERGARDEN_GRACE": "99"})
    assert env["PATH"] == "/bin"
    worker = parse_args(worker_command("eu-2")[3:], env)
    assert worker == dataclasses.replace(settings, workers=1, worker_id="eu-2")
    assert worker.reuse_port


def test_the_database_password_stays_out_of_a_workers_command_line() -> None:
    assert not any("secret" in part for part in worker_command("box-1"))
    assert "secret" in worker_env(SHARED, {})["FLOWERGARDEN_DB"]


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (0, "exited with status 0"),
        (3, "exited with status 3"),
        (-signal.SIGKILL, "was killed by SIGKILL"),
        (-signal.SIGSEGV, "was killed by SIGSEGV"),
        (-250, "was killed by signal 250"),
    ],
)
def test_an_exit_code_in_words(code: int, words: str) -> None:
    assert exit_status(code) == words
