"""The client's HTTP module (client/api_client.py) against a real HTTP server on port 0.

The server is :class:`~tests.client.apistub.ApiStub`, serving canned JSON of
the documented shape; every failure a person can meet comes back as one
:class:`ApiError` in words, never as a traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from client.api_client import ApiClient, ApiError, api_base
from client.apidata import RaceRecordData

from .apistub import SLOW, ApiStub, closed_port, leaderboard, profile, record, summary

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable


@pytest.mark.parametrize(
    ("url", "base"),
    [
        ("ws://127.0.0.1:8765/ws", "http://127.0.0.1:8765"),
        ("wss://race.example/ws", "https://race.example"),
        ("wss://example.org/fg/ws/", "https://example.org/fg"),
        ("ws://h:1/", "http://h:1"),
    ],
)
def test_the_api_is_on_the_websockets_host_and_port(url, base):
    assert api_base(url) == base


async def test_each_call_reads_its_answer():
    pages = {
        "/api/leaderboard": (200, leaderboard("cat", "dan")),
        "/api/players/ann": (200, profile("ann", provisional=True)),
        "/api/players/ann/races": (200, {"races": [summary("g2"), summary("g1")], "next": "g1"}),
        "/api/races/g7": (200, record("g7")),
    }
    with ApiStub(pages) as stub:
        api = ApiClient(stub.url)
        board = await api.leaderboard(10)
        assert [(row.rank, row.name) for row in board.players] == [(1, "cat"), (2, "dan")]
        ann = await api.player("ann")
        assert (ann.name, round(ann.rating), ann.provisional, ann.wins) == ("ann", 1523, True, 7)
        page = await api.races("ann", before="g3")
        assert [race.game_id for race in page.races] == ["g2", "g1"] and page.next == "g1"
        change = page.races[0].change(0)
        assert change is not None and change.after == 1523
        race = await api.race("g7")
        assert isinstance(race, RaceRecordData) and race.record["game_id"] == "g7"
        assert race.summary.players == ["ann", "bob"]
    assert stub.requests == [
        "/api/leaderboard?limit=10",
        "/api/players/ann",
        "/api/players/ann/races?limit=20&before=g3",
        "/api/races/g7",
    ]


async def test_the_first_page_has_no_cursor_and_names_are_quoted():
    pages: dict[str, tuple[int, Any]] = {
        "/api/players/a-b_c/races": (200, {"races": [], "next": None})
    }
    with ApiStub(pages) as stub:
        page = await ApiClient(stub.url).races("a-b_c")
        assert page.races == [] and page.next is None
    assert stub.requests == ["/api/players/a-b_c/races?limit=20"]


async def failure(
    pages: dict[str, tuple[int, Any]],
    call: Callable[[ApiClient], Awaitable[object]],
    **api: Any,
) -> tuple[ApiError, str]:
    with ApiStub(pages) as stub:
        with pytest.raises(ApiError) as caught:
            await call(ApiClient(stub.url, **api))
        return caught.value, f"127.0.0.1:{stub.port}"


async def test_an_unknown_name_or_race_is_said_so():
    pages = {
        "/api/players/zed": (404, {"error": "player_not_found"}),
        "/api/players/zed/races": (404, {"error": "player_not_found"}),
        "/api/races/nope": (404, {"error": "race_not_found"}),
    }
    error, _ = await failure(pages, lambda api: api.player("zed"))
    assert error.words == "no player named zed on this server"
    assert (error.status, error.code) == (404, "player_not_found")
    error, _ = await failure(pages, lambda api: api.races("zed"))
    assert error.words == "no player named zed on this server"
    error, _ = await failure(pages, lambda api: api.race("nope"))
    assert error.words == "the server has no finished race nope"


async def test_a_server_without_the_api_is_said_so():
    error, where = await failure({}, lambda api: api.leaderboard())
    assert (
        error.words == f"{where} has no race API at /api/leaderboard (HTTP 404): an older server?"
    )


async def test_rate_limited_and_restarting():
    error, where = await failure(
        {"/api/leaderboard": (429, {"error": "rate_limited"})}, ApiClient.leaderboard
    )
    assert error.words == f"{where} answers no more requests from this address for now: try again"
    error, where = await failure({"/api/leaderboard": (503, b"")}, ApiClient.leaderboard)
    assert error.words == f"{where} answered HTTP 503: the server may be restarting"


async def test_answers_that_are_not_json_or_not_of_the_shape():
    error, where = await failure(
        {"/api/leaderboard": (200, b"<html>hi</html>")}, ApiClient.leaderboard
    )
    assert error.words == f"{where} did not answer /api/leaderboard in JSON: an older server?"
    wrong = {"/api/players/ann": (200, {"name": "ann"})}
    error, where = await failure(wrong, lambda api: api.player("ann"))
    assert (
        error.words
        == f"{where} answered /api/players/ann in an unknown shape: rating: Field required"
    )
    no_race = {"/api/races/g1": (200, {"game_id": "g1"})}
    error, _ = await failure(no_race, lambda api: api.race("g1"))
    assert "in an unknown shape: ended: Field required" in error.words


async def test_nothing_listening_and_no_answer_in_time():
    port = closed_port()
    with pytest.raises(ApiError) as caught:
        await ApiClient(f"ws://127.0.0.1:{port}/ws").leaderboard()
    assert (
        caught.value.words
        == f"cannot reach 127.0.0.1:{port}: is the server running? (`make serve`)"
    )
    error, where = await failure(
        {"/api/leaderboard": (200, SLOW)}, ApiClient.leaderboard, timeout=0.2
    )
    assert error.words == f"{where} did not answer in time"


async def test_a_host_that_does_not_resolve():
    with pytest.raises(ApiError) as caught:
        await ApiClient("ws://no-such-host.invalid:8765/ws", timeout=2).leaderboard()
    assert caught.value.words == "cannot find the host no-such-host.invalid: check the server URL"


async def test_a_cursor_the_server_does_not_know_and_other_refusals():
    pages: dict[str, tuple[int, Any]] = {
        "/api/players/ann/races": (404, {"error": "race_not_found", "message": "no race g0"}),
        "/api/leaderboard": (503, {"error": "unavailable", "message": "try again later"}),
        "/api/players/ann": (400, {"error": "bad_request", "message": "limit must be 1 to 100"}),
    }
    error, _ = await failure(pages, lambda api: api.races("ann", before="g0"))
    assert error.words == "the server lists no race g0 of ann: start again (r)"
    error, _ = await failure(pages, ApiClient.leaderboard)
    assert error.words == "the server cannot answer that right now; try again in a moment (r)"
    error, where = await failure(pages, lambda api: api.player("ann"))
    assert error.words == f"{where} answered HTTP 400: limit must be 1 to 100"
