"""What the client says when it cannot get through, and whether it keeps trying.

Each failure is real: a port where nothing listens, an HTTP server that is
not a websocket server (a tiny one, and the real server at a wrong path), a
peer that never answers, a bad URL, a name that does not resolve, a server
whose store fails when a new player says hello. Waits are for the state.
"""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

import pytest
from textual.widgets import Input
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosedError, InvalidMessage, InvalidStatus
from websockets.http11 import Response

import client.net
from client.failures import NO_NEW_PLAYERS, URL_HINT, closed, failure, hello_refused, url_problem
from client.options import Options
from client.textual_app import FlowerGardenApp
from protocol import Error
from protocol.close_codes import STAY_AWAY, CloseCode

from .conftest import driving, flat, fresh_name
from .scripted import ScriptedServer, tcp_server
from .wire import welcome

if TYPE_CHECKING:
    import asyncio

    from protocol import ServerMessage

NOT_OURS = f"that is not a Flower Garden server: {URL_HINT}"


def app_for(url: str, name: str | None = None) -> FlowerGardenApp:
    return FlowerGardenApp(Options(server=url, name=name or fresh_name("ann")))


def free_port() -> int:
    """A port nothing listens on (bound a moment ago, and let go)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def net_done(app: FlowerGardenApp) -> bool:
    """The network worker has ended: the client gave up."""
    return all(worker.is_finished for worker in app.workers if worker.group == "net")


async def quits(driver) -> None:
    """q still quits from the lobby."""
    await driver.press("q")
    await driver.until(lambda: driver.app.return_code == 0, "the app to exit")


async def test_nothing_listening_says_so_and_keeps_trying(start_server):
    port = free_port()
    async with driving(app_for(f"ws://127.0.0.1:{port}/ws")) as a:
        words = f"cannot reach 127.0.0.1:{port}: is the server running? (`make serve`)"
        await a.until_shown(words)
        assert a.state.link == "connecting" and a.state.attempt >= 1  # and it keeps trying
        assert a.state.link_reason == words
        assert "connecting in" in (await a.lines())[0]
        await start_server(port=port)  # `make serve`, a moment late: the client gets in
        await a.until(lambda: a.state.link == "online", "online", timeout=20)
        assert a.state.link_reason == ""
        assert words not in flat(await a.text())
        await quits(a)


async def http_404(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readuntil(b"\r\n\r\n")
    writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    await writer.drain()
    writer.close()


async def test_an_http_server_that_is_not_a_websocket_server_stops_the_client():
    async with (
        tcp_server(http_404) as (port, connections),
        driving(app_for(f"ws://127.0.0.1:{port}/ws")) as a,
    ):
        words = f"127.0.0.1:{port} answered HTTP 404: {NOT_OURS}"
        await a.until_shown(words)
        assert a.state.link == "failed" and a.state.link_reason == words
        assert "cannot connect" in (await a.lines())[0]
        await a.until(lambda: net_done(a.app), "the worker to end")
        assert len(connections) == 1  # no retrying a wrong address
        await quits(a)


async def test_the_real_server_at_a_wrong_path_stops_the_client(start_server):
    server = await start_server()
    url = server.url.replace("/ws", "/nope")
    async with driving(app_for(url)) as a:
        words = f"127.0.0.1:{server.port} answered HTTP 404: {NOT_OURS}"
        await a.until_shown(words)
        assert a.state.link == "failed" and a.state.link_reason == words
        await quits(a)


async def not_http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(b"SSH-2.0-OpenSSH_9.6\r\n")  # another protocol on that port
    await writer.drain()
    writer.close()


async def test_a_peer_that_does_not_speak_http_stops_the_client():
    async with (
        tcp_server(not_http) as (port, _connections),
        driving(app_for(f"ws://127.0.0.1:{port}/ws")) as a,
    ):
        words = f"127.0.0.1:{port} does not speak websocket: {NOT_OURS}"
        await a.until_shown(words)
        assert a.state.link == "failed" and a.state.link_reason == words


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://127.0.0.1:8765/ws", "not a websocket URL: 'http://127.0.0.1:8765/ws'"),
        ("127.0.0.1:8765", "not a websocket URL: '127.0.0.1:8765'"),
        ("ws:///ws", "no host in 'ws:///ws'"),
        ("ws://127.0.0.1:99999/ws", "not a valid URL: 'ws://127.0.0.1:99999/ws'"),
    ],
)
async def test_a_bad_url_is_said_at_once(url, words):
    async with driving(app_for(url)) as a:
        await a.until_shown(f"{words} ({URL_HINT})")
        assert a.state.link == "failed"
        await quits(a)


async def test_a_host_that_does_not_resolve_is_said():
    async with driving(app_for("ws://flowergarden.invalid:8765/ws")) as a:  # RFC 6761
        words = "cannot find the host flowergarden.invalid: check the server URL"
        await a.until_shown(words)


async def silent(reader: asyncio.StreamReader, _writer: asyncio.StreamWriter) -> None:
    await reader.read()  # takes the handshake, never answers


async def test_a_peer_that_never_answers_times_out_and_is_tried_again(monkeypatch):
    monkeypatch.setattr(client.net, "OPEN_TIMEOUT", 0.2)
    async with (
        tcp_server(silent) as (port, connections),
        driving(app_for(f"ws://127.0.0.1:{port}/ws")) as a,
    ):
        words = f"127.0.0.1:{port} did not answer in time"
        await a.until_shown(words)
        assert a.state.link == "connecting"
        await a.until(lambda: len(connections) >= 2, "a second try")
        await quits(a)


def store_fails_once(connection: int, request: dict[str, object]) -> list[ServerMessage]:
    """A server whose store fails on the first new player's hello, then recovers."""
    if request["type"] != "hello":
        return []
    if connection == 0:
        return [Error(code="unavailable", message="the store is failing; try again later")]
    return [welcome(name=str(request["name"]))]


async def test_unavailable_at_hello_is_not_a_taken_name():
    async with ScriptedServer(store_fails_once).running() as server:
        name = fresh_name("ann")
        async with driving(app_for(server.url, name)) as a:
            await a.until_shown(NO_NEW_PLAYERS)
            assert type(a.app.screen).__name__ == "NameScreen"
            assert "taken" not in flat(await a.text())
            assert a.app.screen.query_one(Input).value == name  # offered again as it was
            await a.press("enter")  # try again in a moment
            await a.until(lambda: a.state.link == "online", "welcomed")
            assert a.state.name == name
            assert [kind for _, kind in server.requests].count("hello") == 2


# -- the words and verdicts, without sockets ----------------------------------

URL = "ws://example.org:8765/ws"


def status(code: int) -> InvalidStatus:
    return InvalidStatus(Response(code, "x", Headers()))


@pytest.mark.parametrize(
    ("exc", "before", "words", "retry"),
    [
        (ConnectionRefusedError(), False, "cannot reach example.org:8765: is the server", True),
        (ConnectionResetError(), True, "the connection to example.org:8765 was cut", True),
        (TimeoutError(), False, "example.org:8765 did not answer in time", True),
        (status(404), False, f"example.org:8765 answered HTTP 404: {NOT_OURS}", False),
        (status(404), True, f"example.org:8765 answered HTTP 404: {NOT_OURS}", True),
        (status(502), False, "answered HTTP 502: the server may be restarting", True),
        (InvalidMessage("no HTTP"), False, f"does not speak websocket: {NOT_OURS}", False),
        (socket.gaierror(socket.EAI_NONAME, "x"), False, "cannot find the host example.org", False),
        (socket.gaierror(socket.EAI_AGAIN, "x"), False, "cannot find the host example.org", True),
        (socket.gaierror(socket.EAI_NONAME, "x"), True, "cannot find the host example.org", True),
        (OSError(113, "No route to host"), False, "example.org:8765: No route to host", True),
        (ConnectionClosedError(None, None), False, "example.org:8765 was cut", True),
    ],
)
def test_failures_in_words(exc, before, words, retry):
    said = failure(exc, URL, welcomed_before=before)
    assert words in said.words and said.retry is retry


def test_the_other_endings_in_words():
    assert closed(1001, URL).words == "the server shut down; it may be restarting"
    assert closed(None, URL).words == "the connection to example.org:8765 dropped"
    assert closed(None, URL).retry
    assert hello_refused("unavailable", "x", returning=True).retry
    assert not hello_refused("unsupported_protocol", "speaks 2", returning=True).retry
    assert not hello_refused("rate_limited", "x", returning=False).retry
    assert url_problem("wss://example.org/ws") is None
    assert url_problem(URL) is None


@pytest.mark.parametrize("code", sorted(STAY_AWAY))
def test_a_close_that_says_stay_away_stops_the_client(code):
    ended = closed(code, URL)
    assert not ended.retry
    replaced = code == CloseCode.REPLACED
    assert ended.link == ("replaced" if replaced else "banned")
    assert ("signed in elsewhere" if replaced else "banned") in ended.words


def test_a_banned_hello_stops_the_client_as_the_close_does():
    refused = hello_refused("banned", "whatever the server says", returning=True)
    assert refused == closed(CloseCode.BANNED, URL)
    assert not refused.retry and refused.link == "banned"


@pytest.mark.parametrize("code", [None, 1000, 1001, 1006, 1008, 1011, 1012])
def test_every_other_close_is_tried_again(code):
    assert closed(code, URL).retry
