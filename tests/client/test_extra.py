"""The terminal client is the ``client`` extra of pyproject.toml: ``flowergarden`` without it
says what to install, and what it looks for is what the extra installs."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from client.__main__ import CLIENT_MODULES, INSTALL_CLIENT, main

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def extra(name: str) -> list[Requirement]:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    return [Requirement(line) for line in project["optional-dependencies"][name]]


def test_the_client_extra_is_what_flowergarden_looks_for() -> None:
    assert {canonicalize_name(r.name) for r in extra("client")} == set(CLIENT_MODULES)


def test_the_server_needs_none_of_it() -> None:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    server = {canonicalize_name(Requirement(line).name) for line in project["dependencies"]}
    assert not server & set(CLIENT_MODULES)


def test_dev_has_the_client_so_the_tests_and_make_play_do() -> None:
    (itself,) = [r for r in extra("dev") if canonicalize_name(r.name) == "flowergarden-race"]
    assert itself.extras == {"client"}


@pytest.mark.parametrize("missing", ["textual", "rich"])
def test_without_the_extra_flowergarden_says_what_to_install(monkeypatch, capsys, missing) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # as if not installed
    assert main(["practice"]) == 1
    err = capsys.readouterr().err
    assert f"the terminal client needs {missing}, which this Python does not have" in err
    assert INSTALL_CLIENT in err
    assert INSTALL_CLIENT == "pip install 'flowergarden-race[client]'"


def test_with_the_extra_flowergarden_runs_the_client(capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    assert "usage: flowergarden" in capsys.readouterr().out
