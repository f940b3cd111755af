"""A player on the wire, without a browser: websockets' sync client, for the races a test
needs on record before it opens a page (the race history, a replay)."""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from websockets.sync.client import connect

from .helpers import fresh_name

if TYPE_CHECKING:
    from collections.abc import Iterator

    from websockets.sync.client import ClientConnection

TIMEOUT = 10.0
RANKS = "A23456789TJQK"


@contextmanager
def wire_player(url: str, name: str | None = None, **hello: Any) -> Iterator[WirePlayer]:
    """A player who has said hello (with ``hello``'s fields too), for the ``with`` block."""
    # max_queue=None: a player may leave messages unread, and a full queue would keep
    # the close frame from being read.
    with connect(url, open_timeout=TIMEOUT, max_queue=None) as ws:
        yield WirePlayer(ws, name, **hello)


class WirePlayer:
    def __init__(self, ws: ClientConnection, name: str | None = None, **hello: Any) -> None:
        self.ws = ws
        self.name = name or fresh_name("r")
        self.send(type="hello", name=self.name, **hello)
        self.welcome = self.recv("welcome")

    def send(self, **message: Any) -> None:
        self.ws.send(json.dumps(message))

    def recv(self, *types: str) -> dict[str, Any]:
        """The next message of one of ``types``, skipping the others."""
        while True:
            message: dict[str, Any] = json.loads(self.ws.recv(timeout=TIMEOUT))
            if not types or message["type"] in types:
                return message


def legal(board: dict[str, Any]) -> list[str]:
    open_cards = list(board["bouquet"]) + [bed[-1] for bed in board["beds"] if bed]
    return [card for card in open_cards if board["foundations"][card[1]] == RANKS.index(card[0])]


def played(board: dict[str, Any], card: str) -> dict[str, Any]:
    beds = [bed[:-1] if bed and bed[-1] == card else list(bed) for bed in board["beds"]]
    foundations = {**board["foundations"], card[1]: board["foundations"][card[1]] + 1}
    bouquet = [c for c in board["bouquet"] if c != card]
    return {**board, "beds": beds, "bouquet": bouquet, "foundations": foundations}


def start(
    a: WirePlayer, b: WirePlayer, rules: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both seek with ``rules``; their game_start messages (``a`` takes seat 0)."""
    a.send(type="seek", rules=rules)
    a.recv("seeking")
    b.send(type="seek", rules=rules)
    return a.recv("game_start"), b.recv("game_start")


def play_greedily(
    player: WirePlayer, start_message: dict[str, Any], *, redeal: bool
) -> dict[str, Any]:
    """Play every legal card, redealing once when stuck; the board as it ends."""
    board = start_message["boards"][start_message["seat"]]
    while True:
        cards = legal(board)
        if cards:
            player.send(type="play", card=cards[0])
            player.recv("played")
            board = played(board, cards[0])
        elif redeal and board.get("redeals_left"):
            player.send(type="redeal")
            board = player.recv("redealt")["board"]
            assert board["redeals_left"] == 0
        else:
            return board
