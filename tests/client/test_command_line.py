"""The command lines a newcomer types: ``make play NAME=...`` and ``--server`` as the browser
shows the address."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from textual.widgets import Input

import lang
from client.cli import parse_args
from client.failures import url_problem, websocket_url
from client.options import Options
from client.textual_app import FlowerGardenApp

from .conftest import driving, flat

ROOT = Path(__file__).resolve().parents[2]


def make_play(*variables: str) -> list[str]:
    """The client's arguments as ``make play`` runs it (``-n``: said, not run; ``-o``: the
    venv taken as built)."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    command = [make, "-s", "-n", "-o", ".venv/.installed", "play", *variables]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    (line,) = [line for line in out.splitlines() if "flowergarden" in line]
    return shlex.split(line)[1:]


@pytest.mark.parametrize("name", ["al ice", "o'brien", "ann"])
def test_make_play_hands_the_name_over_as_one_word(name):
    args = make_play(f"NAME={name}")
    assert args[args.index("--name") + 1] == name
    assert parse_args(args).name == name


def test_make_play_without_a_name():
    assert "--name" not in make_play()


async def test_a_name_with_a_space_is_refused_by_its_code_in_the_clients_words(start_server):
    server = await start_server()
    app = FlowerGardenApp(Options(server=server.url, name="al ice"))
    async with driving(app) as a:
        await a.until(lambda: type(a.app.screen).__name__ == "NameScreen", "the name asked again")
        await a.until_shown(lang.t("error.bad_name"))  # bad_name: never the server's English
        assert a.app.screen.query_one(Input).value == "al ice"  # kept, to mend
        assert "Traceback" not in flat(await a.text())


@pytest.mark.parametrize(
    ("given", "url"),
    [
        ("http://127.0.0.1:8765", "ws://127.0.0.1:8765/ws"),
        ("http://127.0.0.1:8765/", "ws://127.0.0.1:8765/ws"),
        ("https://race.example.org/", "wss://race.example.org/ws"),
        ("http://[::1]:8765/", "ws://[::1]:8765/ws"),
        ("ws://127.0.0.1:8765/ws", "ws://127.0.0.1:8765/ws"),
    ],
)
def test_the_browsers_address_is_taken_as_its_websocket(given, url):
    assert websocket_url(given) == url
    assert parse_args(["--server", given]).server == url


@pytest.mark.parametrize(
    "given", ["http://127.0.0.1:8765/lobby", "http://127.0.0.1:8765/?server=x", "ftp://h:1/"]
)
def test_other_urls_are_still_refused(given, capsys):
    assert url_problem(websocket_url(given)) is not None
    with pytest.raises(SystemExit):
        parse_args(["--server", given])
    assert "http://HOST:8765" in capsys.readouterr().err  # the hint names both forms


def test_the_help_says_so(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    assert "http://HOST:PORT, taken as ws://HOST:PORT/ws" in " ".join(
        capsys.readouterr().out.split()
    )
