"""The server's settings: the documented defaults, the environment, and flags over both."""

from __future__ import annotations

import dataclasses

import pytest

from server.config import Settings, parse_args

DESIGN_FLAGS = [
    "--host",
    "--port",
    "--db",
    "--grace",
    "--idle-timeout",
    "--max-message",
    "--log-level",
]


def flag(field: str) -> str:
    return "--" + field.replace("_", "-")


def usage_error(argv: list[str], env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        parse_args(argv, env)
    assert exit_.value.code == 2
    return capsys.readouterr().err


def test_the_defaults_are_those_of_the_design() -> None:
    settings = parse_args([], {})
    assert settings == Settings()
    assert (settings.host, settings.port) == ("127.0.0.1", 8765)
    assert (settings.grace, settings.idle_timeout, settings.max_message) == (30.0, 60.0, 4096)


def test_the_environment_sets_every_setting() -> None:
    env = {
        "FLOWERGARDEN_HOST": "0.0.0.0",
        "FLOWERGARDEN_PORT": "9000",
        "FLOWERGARDEN_DB": "/tmp/x.sqlite3",
        "FLOWERGARDEN_GRACE": "5",
        "FLOWERGARDEN_IDLE_TIMEOUT": "7.5",
        "FLOWERGARDEN_MAX_MESSAGE": "8192",
        "FLOWERGARDEN_LOG_LEVEL": "DEBUG",
        "FLOWERGARDEN_MAX_CONNECTIONS_PER_IP": "3",
        "FLOWERGARDEN_HELLO_TIMEOUT": "2",
        "FLOWERGARDEN_SEND_QUEUE": "64",
    }
    assert parse_args([], env) == Settings(
        host="0.0.0.0",
        port=9000,
        db="/tmp/x.sqlite3",
        grace=5.0,
        idle_timeout=7.5,
        max_message=8192,
        log_level="DEBUG",
        max_connections_per_ip=3,
        hello_timeout=2.0,
        send_queue=64,
    )


def test_a_flag_beats_the_environment() -> None:
    env = {"FLOWERGARDEN_PORT": "9000", "FLOWERGARDEN_GRACE": "5"}
    settings = parse_args(["--port", "9001"], env)
    assert (settings.port, settings.grace) == (9001, 5.0)


def test_a_malformed_flag_in_the_environment_is_ignored_when_a_flag_overrides_it() -> None:
    assert parse_args(["--port", "9001"], {"FLOWERGARDEN_PORT": "abc"}).port == 9001


def test_help_lists_every_flag_and_the_environment(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        parse_args(["--help"], {})
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for name in DESIGN_FLAGS + [flag(f.name) for f in dataclasses.fields(Settings)]:
        assert name in text
    assert "FLOWERGARDEN_" in text


def test_port_0_asks_for_any_free_port() -> None:
    assert parse_args(["--port", "0"], {}).port == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["--port", "65536"],
        ["--port", "-1"],
        ["--grace", "-1"],
        ["--idle-timeout", "0"],
        ["--max-message", "100"],
        ["--log-level", "LOUD"],
        ["--send-queue", "0"],
    ],
)
def test_an_out_of_range_value_is_a_usage_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert argv[0] in usage_error(argv, {}, capsys)


def test_a_malformed_flag_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert "--port" in usage_error(["--port", "abc"], {}, capsys)


def test_a_malformed_environment_value_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert "--port" in usage_error([], {"FLOWERGARDEN_PORT": "abc"}, capsys)


# -- several workers ---------------------------------------------------------------

PG = "postgresql://fg@db/fg"
REDIS = "redis://cache:6379/0"


def test_one_worker_and_no_redis_by_default() -> None:
    settings = parse_args([], {})
    assert (settings.workers, settings.redis, settings.worker_id) == (1, "", "")
    assert not settings.reuse_port


def test_several_workers_share_redis_and_postgresql() -> None:
    argv = ["--workers", "4", "--redis", REDIS, "--db", PG, "--worker-id", "eu-west.a_1"]
    settings = parse_args(argv, {})
    assert (settings.workers, settings.redis, settings.db) == (4, REDIS, PG)
    assert settings.worker_id == "eu-west.a_1"
    assert settings.reuse_port


def test_the_workers_flags_come_from_the_environment_too() -> None:
    env = {
        "FLOWERGARDEN_WORKERS": "2",
        "FLOWERGARDEN_REDIS": "rediss://cache:6380",
        "FLOWERGARDEN_DB": "postgres://fg@db/fg",
        "FLOWERGARDEN_WORKER_ID": "server1",
    }
    settings = parse_args([], env)
    assert (settings.workers, settings.redis, settings.worker_id) == (
        2,
        env["FLOWERGARDEN_REDIS"],
        "server1",
    )


@pytest.mark.parametrize("url", [REDIS, "rediss://cache:6380/1", "unix:///run/redis.sock"])
def test_a_lone_server_may_use_redis(url: str) -> None:
    settings = parse_args(["--redis", url], {})
    assert (settings.workers, settings.redis) == (1, url)
    # Sharing the lobby, it may share its port (a new server beside a running one).
    assert settings.reuse_port


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--workers", "0"], "--workers must be at least 1"),
        (["--redis", "cache:6379"], "--redis must be a URL starting with redis://"),
        (["--redis", "http://cache"], "rediss:// or unix://"),
        (["--worker-id", "a b"], "--worker-id must be 1 to 64 letters"),
        (["--worker-id", "x" * 65], "--worker-id"),
        (["--workers", "2", "--db", PG], "--workers 2 needs --redis"),
        (["--workers", "2", "--redis", REDIS], "--workers 2 needs a postgresql:// --db"),
        (["--workers", "3", "--redis", REDIS, "--db", "x.sqlite3"], "postgresql:// --db"),
        (["--workers", "2", "--redis", REDIS, "--db", PG, "--port", "0"], "needs a port number"),
    ],
)
def test_the_workers_flags_are_checked(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert says in usage_error(argv, {}, capsys)


def test_a_refused_worker_count_says_why_and_where_to_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = usage_error(["--workers", "2"], {}, capsys)
    assert "share the lobby through Redis and the records through PostgreSQL" in text
    assert "deploy/README.md" in text


def test_help_tells_what_db_takes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--help"], {})
    text = " ".join(capsys.readouterr().out.split())
    assert "an SQLite file" in text
    assert "postgresql:// URL" in text
    for name in ("--workers", "--redis", "--worker-id"):
        assert name in text


def test_init_db_is_a_switch_from_the_flag_or_the_environment(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert parse_args([], {}).init_db is False
    assert parse_args(["--init-db"], {}).init_db is True
    for value, wanted in (("1", True), ("true", True), ("True", True), ("0", False), ("", False)):
        assert parse_args([], {"FLOWERGARDEN_INIT_DB": value}).init_db is wanted, value
    assert parse_args(["--init-db"], {"FLOWERGARDEN_INIT_DB": "0"}).init_db is True
    with pytest.raises(SystemExit):
        parse_args([], {"FLOWERGARDEN_INIT_DB": "maybe"})
    assert "FLOWERGARDEN_INIT_DB must be 1 or 0" in capsys.readouterr().err
