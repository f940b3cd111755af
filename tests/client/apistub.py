"""A stand-in for the game server's HTTP API: a real HTTP server on port 0, in a thread.

:class:`ApiStub` serves canned JSON of the documented shape (PROTOCOL.md,
"HTTP") by path: ``pages[path]`` is ``(status, body)``, a body being any JSON
value, or bytes sent as they are, or :data:`SLOW` for an answer that never
comes while the test runs. ``pages["path?query"]`` answers that query alone.
Every request's path and query is kept in :attr:`ApiStub.requests`. Its
``url`` is a websocket URL, as the client is given one: the API is on the
same host and port. The builders below make the bodies, a race's record from
real engine play, so that it replays and verifies.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import engine
from protocol import Rules, board_to_wire

if TYPE_CHECKING:
    from types import TracebackType

SLOW = object()
"""A page that answers only once the test is over (a server that does not answer in time)."""


class ApiStub:
    def __init__(self, pages: dict[str, tuple[int, Any]]) -> None:
        self.pages = pages
        self.requests: list[str] = []
        self.released = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"ws://127.0.0.1:{self.port}/ws"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.01,), daemon=True)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                stub.requests.append(self.path)
                path = self.path.split("?", 1)[0]
                status, body = stub.pages.get(self.path) or stub.pages.get(path) or (404, b"")
                if body is SLOW:
                    stub.released.wait(30)
                    return
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass  # quiet: the test reads stub.requests

        return Handler

    def __enter__(self) -> ApiStub:
        self.thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


def closed_port() -> int:
    """A port on loopback where nothing listens (bound, then let go)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = server.server_address[1]
    server.server_close()
    return port


# -- bodies --------------------------------------------------------------------

RATED = Rules(deal="mirror", winnable_only=True, rated=True)
CLASSIC = Rules(deal="independent", winnable_only=False, redeals=1)


def profile(
    name: str = "ann", rating: float = 1523.4, *, provisional: bool = False
) -> dict[str, Any]:
    return {
        "name": name,
        "rating": rating,
        "provisional": provisional,
        "bot": False,
        "races": 12,
        "wins": 7,
        "draws": 1,
        "losses": 4,
        "best_clear_ms": 41_250,
        "joined": "2024-05-01",
    }


def leaderboard(*names: str) -> dict[str, Any]:
    rows = [
        {"rank": rank, "name": name, "rating": 1700 - 10 * rank, "races": 20 + rank}
        for rank, name in enumerate(names, 1)
    ]
    return {"players": rows}


def record(
    game_id: str = "g7",
    players: tuple[str, str] = ("ann", "bob"),
    *,
    rules: Rules = RATED,
    seeds: tuple[bytes, bytes] = (bytes(range(32)), bytes(range(32))),
    plays: tuple[int, int] = (6, 3),
    ended: str = "2024-05-02T10:30:00+00:00",
) -> dict[str, Any]:
    """A finished race's whole record: each seat plays up to ``plays`` cards (redealing when
    stuck, if the rules allow), seat 0 then seat 1 by turns a second apart; then seat 1
    resigns. Real engine play, so it replays and verifies."""
    dealers = [engine.SeedDealer(seed) for seed in seeds]
    boards = [engine.Board(d.layout(rules.winnable_only), rules.redeals) for d in dealers]
    dealt = [board_to_wire(board).model_dump(mode="json") for board in boards]
    moves = _by_turns(boards, dealers, list(plays))
    times: list[int | None] = [None, None]
    for move in moves:
        if move["card"] != "redeal":
            times[move["seat"]] = move["t_ms"]
    rated = rules.rated
    return {
        **summary(game_id, players, rules=rules, ended=ended, rated=rated),
        "counts": [board.count for board in boards],
        "times_ms": times,
        "dealing": "sha256",
        "seeds": [seed.hex() for seed in seeds],
        "commits": [dealer.commit for dealer in dealers],
        "boards": dealt,
        "moves": moves,
    }


def _by_turns(
    boards: list[engine.Board], dealers: list[engine.SeedDealer], left: list[int]
) -> list[dict[str, Any]]:
    """Each seat in turn plays its first legal card (or redeals when stuck), 500 ms apart,
    until it has played its ``left`` cards or can do nothing more."""
    moves: list[dict[str, Any]] = []
    t_ms = 0
    while any(left):
        for seat in (0, 1):
            board = boards[seat]
            if not left[seat]:
                continue
            t_ms += 500
            if not board.has_play() and board.redeals_left:
                board.redeal(dealers[seat].redeal)
                card = "redeal"
            elif board.has_play():
                card = str(board.legal_plays()[0])
                board.play(board.legal_plays()[0])
                left[seat] -= 1
            else:
                left[seat] = 0
                continue
            moves.append({"seq": len(moves) + 1, "seat": seat, "card": card, "t_ms": t_ms})
    return moves


def summary(
    game_id: str,
    players: tuple[str, str] = ("ann", "bob"),
    *,
    rules: Rules = RATED,
    ended: str = "2024-05-02T10:30:00+00:00",
    rated: bool = True,
    winner: int = 0,
) -> dict[str, Any]:
    """A race's summary, as a history lists it: ``winner`` won when the other resigned."""
    ratings = [{"before": 1500, "after": 1523}, {"before": 1480, "after": 1457}]
    if winner == 1:
        ratings = [{"before": 1500, "after": 1478}, {"before": 1480, "after": 1502}]
    return {
        "game_id": game_id,
        "ended": ended,
        "players": list(players),
        "bots": [False, False],
        "rules": rules.model_dump(mode="json"),
        "result": "win",
        "winner": winner,
        "reason": "resigned",
        "counts": [6, 3],
        "times_ms": [5500, 5000],
        "ratings": ratings if rated else None,
    }
