"""Engine values to wire values and back."""

from __future__ import annotations

import pytest

import engine
from protocol import (
    Redealt,
    WireBoard,
    board_from_wire,
    board_to_wire,
    card_from_wire,
    card_to_wire,
    decode_server,
    encode,
    wire_status,
)


def round_trip(board: engine.Board) -> engine.Board:
    return board_from_wire(board_to_wire(board))


def test_every_card_round_trips() -> None:
    for card in engine.CARDS:
        assert card_from_wire(card_to_wire(card)) is card
    assert card_to_wire(engine.Card.parse("QH")) == "QH"


@pytest.mark.parametrize("code", ["ZZ", "qh", "10H", "", "QHX"])
def test_a_bad_code_is_a_malformed_card(code: str) -> None:
    with pytest.raises(engine.MalformedCard):
        card_from_wire(code)


@pytest.mark.parametrize("seed", range(20))
def test_fresh_deals_round_trip(seed: int) -> None:
    board = engine.Board(engine.deal(seed), redeals=seed % 2)
    wire = board_to_wire(board)
    assert len(wire.beds) == 6
    assert all(len(bed) == 6 for bed in wire.beds)
    assert len(wire.bouquet) == 16
    assert (wire.count, wire.redeals_left) == (0, seed % 2)
    assert wire.foundations.model_dump() == {"S": 0, "H": 0, "D": 0, "C": 0}
    assert wire.status == board.status.value
    assert round_trip(board) == board


def test_a_deal_reads_bottom_to_front() -> None:
    layout = engine.deal(1)
    wire = board_to_wire(engine.Board(layout))
    assert wire.beds == [[str(card) for card in bed] for bed in layout.beds]
    assert wire.bouquet == [str(card) for card in layout.bouquet]


@pytest.mark.parametrize("seed", range(10))
def test_boards_in_mid_game_round_trip(seed: int) -> None:
    board = engine.Board(engine.winnable_deal(seed), redeals=1)
    for plays in range(52):
        assert round_trip(board) == board
        wire = board_to_wire(board)
        assert wire.count == plays == sum(wire.foundations.model_dump().values())
        board.play(board.legal_plays()[0])
    wire = board_to_wire(board)
    assert (wire.status, wire.count, wire.beds, wire.bouquet) == ("cleared", 52, [[]] * 6, [])
    assert round_trip(board) == board


def test_every_engine_status_has_a_wire_name() -> None:
    seen = {}
    for seed in range(200):
        for redeals in (0, 1):
            board = engine.Board(engine.deal(seed), redeals=redeals)
            seen[board.status] = board_to_wire(board).status
    cleared = engine.Board(engine.winnable_deal(0))
    for card in engine.greedy_plays(cleared):
        cleared.play(card)
    seen[cleared.status] = board_to_wire(cleared).status
    assert seen == {status: status.value for status in engine.Status}
    assert seen == {status: wire_status(status) for status in engine.Status}


@pytest.mark.parametrize("status", list(engine.Status))
def test_wire_status_is_the_engine_status_by_name(status: engine.Status) -> None:
    assert wire_status(status) == status.value
    assert type(wire_status(status)) is str  # a plain string on the wire, not the enum


@pytest.mark.parametrize("status", ["timed_out", "resigned", "abandoned", "stalled"])
def test_the_race_may_override_the_status(status: str) -> None:
    board = engine.Board(engine.deal(3))
    assert board_to_wire(board, status).status == status  # type: ignore[arg-type]


def test_a_board_survives_the_wire() -> None:
    board = engine.Board(engine.winnable_deal(7), redeals=1)
    for _ in range(9):
        board.play(board.legal_plays()[-1])
    message = Redealt(game_id="g", seat=1, board=board_to_wire(board), t_ms=1, seq=4)
    received = decode_server(encode(message))
    assert isinstance(received, Redealt)
    assert board_from_wire(received.board) == board


def test_a_board_that_does_not_add_up_is_refused() -> None:
    wire = board_to_wire(engine.Board(engine.deal(1)))
    beds = [list(bed) for bed in wire.beds]
    beds[0][0] = beds[1][0]  # one card twice, another missing
    with pytest.raises(ValueError, match="exactly once"):
        board_from_wire(wire.model_copy(update={"beds": beds}))
    with pytest.raises(ValueError, match="exactly once"):
        board_from_wire(
            wire.model_copy(update={"foundations": wire.foundations.model_copy(update={"S": 1})})
        )


def test_the_wire_board_shape_is_checked() -> None:
    obj = board_to_wire(engine.Board(engine.deal(1))).model_dump()
    with pytest.raises(ValueError, match="beds"):
        WireBoard.model_validate({**obj, "beds": obj["beds"][:5]}, strict=True)
    with pytest.raises(ValueError, match="foundations"):
        WireBoard.model_validate({**obj, "foundations": {"S": 0, "H": 0, "D": 0}}, strict=True)
    with pytest.raises(ValueError, match="foundations"):
        WireBoard.model_validate(
            {**obj, "foundations": {"S": 14, "H": 0, "D": 0, "C": 0}}, strict=True
        )
