"""deploy/compose.yaml passes the operator's settings to every server and leaves no
anonymous volume behind at `down`; `make image` builds what the checkout holds."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml")  # PyYAML, which the dev tools bring

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "deploy" / "compose.yaml"
IMAGE_VOLUMES = {
    # What each image's Dockerfile declares as VOLUME: a path left unmounted there
    # becomes an anonymous volume at every `up`, left behind by `down`. Ours declares
    # none (tests/test_packaging.py).
    "postgres:16": {"/var/lib/postgresql/data"},
    "redis:7": {"/data"},
    "caddy:2": {"/config", "/data"},
    "flowergarden:local": set(),
}


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


PASSED_ON = ("FLOWERGARDEN_ADMIN_TOKEN", "FLOWERGARDEN_ARENAS")
"""What an operator sets for the whole stack, the same on every server."""


def test_every_server_takes_the_operators_settings_from_the_environment() -> None:
    servers = {
        name: service
        for name, service in _compose()["services"].items()
        if service["image"] == "flowergarden:local"
    }
    assert set(servers) == {"server1", "server2"}
    for service in servers.values():
        for name in PASSED_ON:  # never a value written in the file: a token least of all
            assert service["environment"][name] == f"${{{name}:-}}"


def test_every_declared_volume_is_mounted_named_or_on_a_tmpfs() -> None:
    compose = _compose()
    named = set(compose["volumes"])
    for name, service in compose["services"].items():
        covered = set(service.get("tmpfs", []))
        for mount in service.get("volumes", []):
            source, target = mount.split(":")[:2]
            assert source.startswith(".") or source in named, f"{name}: {mount}"
            covered.add(target)
        left = IMAGE_VOLUMES[service["image"]] - covered
        assert not left, f"{name} would leave anonymous volumes behind: {left}"


def _built_with(tmp_path: Path, engine: str) -> list[str]:
    """The arguments `make image ENGINE=...` gives the engine: a stand-in on PATH
    that writes them down."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stand_in = bin_dir / engine
    stand_in.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {tmp_path / "args"}\n')
    stand_in.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    subprocess.run(
        ["make", "--no-print-directory", "image", f"ENGINE={engine}"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=30,
    )
    return (tmp_path / "args").read_text().splitlines()


@pytest.mark.parametrize("engine", ["podman", "docker"])
def test_make_image_builds_anew_where_the_cache_would_be_stale(tmp_path: Path, engine: str) -> None:
    """Podman's builder would reuse the layer that installs the wheels however they
    changed; docker's keys it on them, and may keep its cache."""
    args = _built_with(tmp_path, engine)
    assert args[0] == "build" and args[-3:] == ["-t", "flowergarden:local", "."]
    assert ("--no-cache" in args) == (engine == "podman")
    assert ("--format" in args) == (engine == "podman")
