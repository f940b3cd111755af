"""The race screen as a person sees it: at 80x24 nothing is cut, and a resize redraws it."""

from __future__ import annotations

from client.card_faces import card_name
from client.keys import BED_KEYS
from client.options import Options
from client.textual_app import FlowerGardenApp

from .conftest import driving, seat
from .test_race import play_by_key, racing


def check_race_screen(lines: list[str], race, width: int, height: int) -> None:
    """Every bed's front card with its key, the bouquet, both counts: all there, none cut."""
    assert len(lines) == height
    assert all(len(line) <= width for line in lines)
    text = "\n".join(lines)
    board = race.board
    for index, bed in enumerate(board.beds):
        front = f"{BED_KEYS[index]} {card_name(bed[-1]).rjust(3)}"
        row = next(line for line in lines if front in line)
        for card in bed:  # the bed is fanned: every card of it is on its row
            assert card_name(card) in row
    for card in board.bouquet:
        assert f"{race.labels[card]} {card_name(card).rjust(3)}" in text
    other = race.boards[race.other]
    assert f"{race.players[race.seat]} (you)  {board.count}/52" in text
    assert f"{race.players[race.other]}  {other.count}/52" in text
    assert " vs " in lines[0] and "online" in lines[0]
    assert "? help" in lines[-1]
    # The boxes close: both boards' bottom borders are on screen.
    assert any(line.startswith("╰") and line.count("╯") == 2 for line in lines)


async def test_race_screen_at_80x24_and_after_a_resize(start_server, make_app):
    server = await start_server()
    async with racing(make_app, server) as (a, b):
        await play_by_key(b)  # a count that is not 0 on the opponent's side
        await a.until(lambda: a.race.boards[1 - seat(a.race)].count == 1, "b's play")
        check_race_screen(await a.lines(), a.race, 80, 24)
        await a.resize(120, 40)
        check_race_screen(await a.lines(), a.race, 120, 40)
        await a.resize(80, 24)
        check_race_screen(await a.lines(), a.race, 80, 24)


async def test_ascii_suits():
    practice = FlowerGardenApp(Options(practice=True, seed=3, ascii=True))
    async with driving(practice) as p:
        await p.until(lambda: p.state.race is not None, "the deal")
        text = await p.text()
        assert not set("♠♥♦♣") & set(text)
        assert any(card_name(card, ascii=True) in text for card in p.race.board.bouquet)
