"""deploy/compose.yaml passes the operator's settings to every server and leaves no
anonymous volume behind at `down`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml")  # PyYAML, which the dev tools bring

COMPOSE = Path(__file__).resolve().parents[1] / "deploy" / "compose.yaml"
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


def test_every_server_takes_the_admin_token_from_the_environment() -> None:
    servers = {
        name: service
        for name, service in _compose()["services"].items()
        if service["image"] == "flowergarden:local"
    }
    assert set(servers) == {"server1", "server2"}
    for service in servers.values():
        given = service["environment"]["FLOWERGARDEN_ADMIN_TOKEN"]
        assert given == "${FLOWERGARDEN_ADMIN_TOKEN:-}", "never a token written in the file"


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
