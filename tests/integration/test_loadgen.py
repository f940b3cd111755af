"""The benchmark's load generator, against a real race server: it must measure, not fail."""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING

from bench.clearing import ClearingOrder
from bench.loadgen import measure
from core.limits import RateLimiter
from engine import Board, Status, winnable_deal
from protocol.convert import board_to_wire
from server.app import GameServer
from server.config import Settings
from server.store import SqliteStore

if TYPE_CHECKING:
    from pathlib import Path


def test_a_clearing_order_clears_a_winnable_board_play_by_play() -> None:
    layout = winnable_deal(12345)
    order = ClearingOrder(json.loads(board_to_wire(Board(layout)).model_dump_json()))
    assert order.frame(51) is not None  # asked out of order: worked out up to it
    frames = [order.frame(index) for index in range(52)]
    assert order.frame(52) is None
    board = Board(layout)
    for frame in frames:
        assert frame is not None
        card = board.legal_plays()[0]
        assert json.loads(frame) == {"type": "play", "card": str(card)}
        board.play(card)
    assert board.status is Status.CLEARED
    assert ClearingOrder.NONE.frame(0) is None


async def test_the_generator_measures_races_on_a_real_server(tmp_path: Path) -> None:
    settings = Settings(host="127.0.0.1", port=0, db=str(tmp_path / "fg.sqlite3"))
    lifted = functools.partial(RateLimiter, burst=1_000_000, rate=1e6)
    async with GameServer(settings, SqliteStore(settings.db), limiter=lifted) as server:
        result = await measure(
            server.url, mode="race", connections=4, warmup=0.3, window=0.7, server_pid=None
        )
    assert result.connections == 4
    assert result.round_trips > 0
    assert result.errors == 0
    assert result.p50_ms <= result.p99_ms <= result.max_ms
