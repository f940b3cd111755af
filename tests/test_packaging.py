"""What an install takes is pinned, and the server's image is built as docs/operating.md says.

constraints.txt pins every package of every install (``make constraints`` writes
it): these tests fail once pyproject.toml asks for a package it does not pin, or
for a version other than the pinned one, so the file cannot fall behind unseen.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PROJECT = canonicalize_name("flowergarden-race")


def pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def pins() -> dict[NormalizedName, Version]:
    """constraints.txt: ``name==version`` lines, comments aside."""
    found = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"not a pin: {line!r}"
            found[canonicalize_name(name)] = Version(version)
    return found


def asked() -> list[Requirement]:
    """Every requirement pyproject.toml makes: the build's, the server's, each extra's."""
    data = pyproject()
    project = data["project"]
    assert isinstance(project, dict)
    lines = [*data["build-system"]["requires"], *project["dependencies"]]  # type: ignore[index]
    for extra in project["optional-dependencies"].values():
        lines += extra
    return [r for r in map(Requirement, lines) if canonicalize_name(r.name) != PROJECT]


def test_constraints_pin_every_requirement_within_what_pyproject_asks() -> None:
    pinned = pins()
    for requirement in asked():
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} is not in constraints.txt: run `make constraints`"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"constraints.txt pins {name} {pinned[name]}, pyproject.toml asks {requirement}:"
            " run `make constraints`"
        )


def test_constraints_pin_what_the_requirements_require_in_turn() -> None:
    # From this installation's metadata (`make venv`: the project with its dev
    # and client extras): a package pulled in by another must be pinned as well.
    pinned, seen = pins(), set[NormalizedName]()
    todo: list[tuple[str, frozenset[str]]] = [("flowergarden-race", frozenset({"dev"}))]
    while todo:
        name, extras = todo.pop()
        for line in metadata.requires(name) or []:
            requirement = Requirement(line)
            wanted = canonicalize_name(requirement.name)
            marker = requirement.marker
            if marker and not any(marker.evaluate({"extra": e}) for e in extras | {""}):
                continue
            if wanted == PROJECT:  # dev's own "flowergarden-race[client]"
                todo.append((name, frozenset(requirement.extras)))
            elif wanted not in seen:
                seen.add(wanted)
                todo.append((requirement.name, frozenset(requirement.extras)))
    assert len(seen) > 20  # the walk went past the first level
    missing = sorted(seen - pinned.keys())
    assert not missing, f"{missing} not in constraints.txt: run `make constraints`"


def test_the_server_imports_nothing_of_the_client_extra() -> None:
    # The image installs no extra: a server module importing Textual or Rich
    # would fail there, and nowhere in the tests' own environment.
    code = (
        "import pkgutil, sys, server, server.__main__\n"
        "for module in pkgutil.walk_packages(server.__path__, 'server.'):\n"
        "    __import__(module.name)\n"
        "print(','.join(m for m in ('textual', 'rich') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == ""


def dockerfile() -> list[str]:
    """The Dockerfile's instructions, continuation lines joined, comments left out."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_the_image_builds_on_a_pinned_base_without_the_client() -> None:
    text = (ROOT / "Dockerfile").read_text()
    # A `# syntax=` line makes BuildKit pull its frontend from Docker Hub first.
    assert not re.search(r"^#\s*syntax\s*=", text, re.MULTILINE | re.IGNORECASE)
    instructions = dockerfile()
    (base,) = [line for line in instructions if line.startswith("ARG PYTHON_IMAGE=")]
    assert re.fullmatch(r"ARG PYTHON_IMAGE=python:3\.\d+\.\d+-slim-\w+@sha256:[0-9a-f]{64}", base)
    assert {line for line in instructions if line.startswith("FROM")} == {
        "FROM ${PYTHON_IMAGE} AS build",
        "FROM ${PYTHON_IMAGE}",
    }
    (wheel,) = [line for line in instructions if "pip wheel" in line]
    assert "[" not in wheel  # no extra: the terminal client stays out
    assert any("constraints.txt" in line for line in instructions if line.startswith("COPY"))


def test_the_image_leaves_no_dead_layer_nor_anonymous_volume() -> None:
    instructions = dockerfile()
    # The wheels come through a mount, so no layer holds them.
    assert not [line for line in instructions if line.startswith("COPY --from")]
    (install,) = [line for line in instructions if "pip install" in line]
    assert install.startswith("RUN --mount=type=bind,from=build,source=/wheels,target=/wheels ")
    assert not [line for line in instructions if line.startswith("VOLUME")]
    assert "USER 10001" in instructions
    assert any(line.startswith("HEALTHCHECK") for line in instructions)
