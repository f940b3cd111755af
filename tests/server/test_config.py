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
