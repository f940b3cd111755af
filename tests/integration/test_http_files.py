"""The browser client's files over real HTTP: types, caching, HEAD, and what is refused."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from server.http.static import StaticFiles

if TYPE_CHECKING:
    from server.app import GameServer


async def exchange(server: GameServer, head: str) -> tuple[int, dict[str, str], bytes]:
    """Send ``head`` (a request without its blank line) and read the whole answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(head.encode() + b"\r\nHost: test\r\n\r\n")
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    top, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = top.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


async def test_the_page_is_served_at_the_root_with_its_type_and_caching(server):
    status, headers, body = await exchange(server, "GET / HTTP/1.1")
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["cache-control"] == "no-cache"
    assert b"<html" in body.lower()
    again, _, empty = await exchange(server, f"GET / HTTP/1.1\r\nIf-None-Match: {headers['etag']}")
    assert (again, empty) == (304, b"")


async def test_every_shipped_file_is_served_with_the_type_of_its_kind(server):
    files = StaticFiles.load()
    scripts = [path for path in files.paths() if path.endswith(".js")]
    assert scripts, "the browser client ships its scripts"
    status, headers, body = await exchange(server, f"GET {scripts[0]} HTTP/1.1")
    assert status == 200
    assert headers["content-type"] == "text/javascript; charset=utf-8"
    assert headers["x-content-type-options"] == "nosniff"
    assert len(body) == int(headers["content-length"])


async def test_head_gives_the_headers_of_get_without_the_body(server):
    _, got, body = await exchange(server, "GET / HTTP/1.1")
    status, headers, nothing = await exchange(server, "HEAD / HTTP/1.1")
    assert status == 200
    assert nothing == b""
    assert headers["content-length"] == got["content-length"] == str(len(body))
    assert headers["etag"] == got["etag"]


async def test_other_methods_are_refused_and_the_server_goes_on(server, player):
    for method in ("POST", "PUT", "DELETE", "OPTIONS", "PATCH"):
        status, headers, _ = await exchange(server, f"{method} / HTTP/1.1")
        assert status == 405, method
        assert headers["allow"] == "GET, HEAD"
    status, _, _ = await exchange(server, "HEAD /ws HTTP/1.1")
    assert status == 405  # no websocket opens on a HEAD
    client = await player(server)
    await client.send(type="lobby")
    assert (await client.recv("lobby"))["online"] >= 1


async def test_no_path_reaches_a_file_outside_the_page(server):
    for path in (
        "/../pyproject.toml",
        "/..%2fpyproject.toml",
        "/%2e%2e/%2e%2e/etc/passwd",
        "//etc/passwd",
        "/static/../../server/app.py",
        "/index.html/..",
        "/__init__.py",
        "/.hidden",
    ):
        status, _, body = await exchange(server, f"GET {path} HTTP/1.1")
        assert status == 404, path
        assert b"import" not in body and b"root:" not in body
