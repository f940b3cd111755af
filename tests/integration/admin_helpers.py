"""Asking a real server's admin API (``/api/admin/``), as an operator's script would."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from server.app import GameServer

TOKEN = "test-admin-token-0123456789"
"""The admin token the tests' servers are given."""


async def admin(
    server: GameServer | int,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    token: str | None = TOKEN,
) -> tuple[int, dict[str, str], Any]:
    """``METHOD /api/admin/PATH`` with the bearer ``token`` (None: no header); status,
    headers (lowercase names) and the JSON body."""
    port = server if isinstance(server, int) else server.port
    url = f"http://127.0.0.1:{port}/api/admin/{path}"
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"

    def fetch() -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                return reply.status, dict(reply.headers.items()), reply.read()
        except urllib.error.HTTPError as refused:
            return refused.code, dict(refused.headers.items()), refused.read()

    status, answer_headers, raw = await asyncio.to_thread(fetch)
    return status, {k.lower(): v for k, v in answer_headers.items()}, json.loads(raw)


async def act(
    server: GameServer | int, action: str, target: str, reason: str = "a test", **body: Any
) -> dict[str, Any]:
    """``POST`` an action on a player (``ban``, ``rename``...) or, for ``annul``, a race;
    the answer, which must be 200."""
    kind = "races" if action == "annul" else "players"
    status, _, answer = await admin(
        server, "POST", f"{kind}/{target}/{action}", {"reason": reason, **body}
    )
    assert status == 200, answer
    return dict(answer)
