"""Two real client apps race on a real server, driven by Pilot like two people.

One plays by its one-key labels, the other through the card prompt; every
wait is for a condition on the client state, never a sleep.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from protocol import Rules, Seek

from .conftest import driving, flat, fresh_name, key_for, legal_card, over, seat

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from .conftest import Driver


@contextlib.asynccontextmanager
async def racing(make_app, server, **options) -> AsyncIterator[tuple[Driver, Driver]]:
    """Two apps that quick-match each other (``--seek``) with the test rules."""
    a = make_app(server, fresh_name("ann"), action="seek", **options)
    b = make_app(server, fresh_name("bob"), action="seek", **options)
    async with driving(a) as da, driving(b) as db:
        await da.until(lambda: a.state.race is not None, "a's race")
        await db.until(lambda: b.state.race is not None, "b's race")
        yield da, db


def prompt_text(card, turn: int) -> str:
    """How a person might type ``card``: ``qh``, ``10h`` or ``th``, by turns."""
    code = str(card).lower()
    if code[0] == "t" and turn % 2:
        return "10" + code[1]
    return code


async def play_by_key(player: Driver) -> None:
    race = player.race
    count = race.board.count
    await player.press(key_for(race, legal_card(race)))
    await player.until(lambda: race.board.count == count + 1 or race.over, "the ack")


async def play_by_prompt(player: Driver, turn: int) -> None:
    race = player.race
    count = race.board.count
    await player.press(*prompt_text(legal_card(race), turn), "enter")
    await player.until(lambda: race.board.count == count + 1 or race.over, "the ack")


async def test_two_clients_race_to_the_end(start_server, make_app):
    server = await start_server()
    async with racing(make_app, server) as (a, b):
        race_a, race_b = a.race, b.race
        assert race_a.game_id == race_b.game_id
        assert race_a.board == race_b.board  # mirror
        await b.press("slash")  # b keeps the card prompt open for the whole race
        turn = 0
        for _ in range(6):  # b is quicker off the mark, then a overtakes and clears
            await play_by_prompt(b, turn)
            turn += 1
        seat_a, seat_b = seat(race_a), seat(race_b)
        while race_a.over is None:
            await play_by_key(a)
            # The opponent's view follows each play as its `played` arrives.
            mine = race_a.board.count

            def seen(n: int = mine) -> bool:
                return race_b.boards[seat_a].count == n

            await b.until(seen, "b sees a play")
            assert race_b.boards[seat_a] == race_a.board
            if race_a.over is None and race_a.board.count % 8 == 0:
                await play_by_prompt(b, turn)
                turn += 1
        await b.until(lambda: race_b.over is not None, "b's game_over")
        assert over(race_a).winner == seat_a
        assert over(race_a).reason == "cleared"
        assert over(race_b).counts[seat_a] == 52
        assert over(race_b).counts[seat_b] == race_b.board.count == 12
        text_a, text_b = await a.text(), await b.text()
        assert "You won" in text_a and "You lost" in text_b
        name_a, name_b = race_a.players[seat_a], race_a.players[seat_b]
        assert f"{name_a} cleared every card" in text_b
        assert "12/52" in text_b
        # Each player's time from the server's t_ms, the margin, and the deal checked.
        result_a = flat(text_a)
        assert f"{name_a} cleared in " in result_a and ", 40 cards ahead" in result_a
        assert f"{name_b} 12/52, last card at " in result_a
        assert "deal verified" in text_a and "deal verified" in text_b
        assert race_a.deal_check is not None and race_a.deal_check.ok


async def test_a_listed_seek_is_joined_with_its_rules(start_server, make_app):
    """ann seeks with rules of her own; bob, in the lobby, picks her seek and Enter pairs them."""
    server = await start_server()
    mine = Rules(deal="independent", winnable_only=False, redeals=1, tiebreak="first")
    a = make_app(server, fresh_name("ann"), action="seek", rules=mine)
    b = make_app(server, fresh_name("bob"))
    async with driving(a) as da, driving(b) as db:
        await da.until(lambda: a.state.waiting is not None, "ann seeking")

        def seeks() -> list[object]:
            return [] if b.state.lobby is None else list(b.state.lobby.seeks)

        await db.until(seeks, "bob sees the seek (the lobby is polled)", 15)
        await db.until_shown("independent · 1 redeal · tiebreak first")
        b.screen.query_one("#seeks").focus()
        await db.press("enter")
        await db.until(lambda: b.state.race is not None, "bob's race")
        await da.until(lambda: a.state.race is not None, "ann's race")
        assert b.state.race.rules == a.state.race.rules == mine


async def test_illegal_key_is_refused_without_a_round_trip(start_server, make_app):
    server = await start_server()
    async with racing(make_app, server) as (a, _b):
        board = a.race.board
        fronts = [bed[-1] for bed in board.beds]
        blocked = next(i for i, card in enumerate(fronts) if not board.is_legal(card))
        await a.press(str(blocked + 1))
        assert a.state.notice_is_error and "must wait" in a.state.notice
        assert a.race.sent == []  # nothing went to the server
        assert "must wait" in await a.text()
        await a.press("slash", "z", "z", "enter")
        assert "not a card" in a.state.notice
        await a.press("escape")
        assert not a.app.screen.query_one("#prompt").display


async def test_server_error_is_shown_not_a_crash(start_server, make_app):
    server = await start_server()
    app = make_app(server, fresh_name("ann"), action="join_room", room="NOROOM")
    async with driving(app) as a:
        await a.until(lambda: a.state.notice, "the error")
        assert "no open room has that code" in a.state.notice
        assert "no open room" in await a.text()


async def test_resign_then_rematch(start_server, make_app):
    server = await start_server()
    async with racing(make_app, server) as (a, b):
        first = a.race.game_id
        await play_by_key(a)
        await a.press("x")  # asks first
        await a.press("n")
        assert a.race.over is None
        await a.press("x", "y")
        await b.until(lambda: b.race.over is not None, "b sees the resignation")
        await a.until(lambda: a.race.over is not None, "a's game_over")
        assert over(b.race).reason == "resigned"
        text = await b.text()
        assert "You won" in text and f"{a.race.players[seat(a.race)]} resigned" in text
        await a.press("r")  # a asks for a rematch; b is told
        await b.until(lambda: b.race.rematch_offered, "the offer")
        assert "wants a rematch" in await b.text()
        await b.press("r")
        await a.until(lambda: a.race.game_id != first, "a's new race")
        await b.until(lambda: b.race.game_id != first, "b's new race")
        assert a.race.over is None and a.race.board.count == 0
        await play_by_key(b)  # and the new race is playable
        await a.press("x", "y")
        await a.until(lambda: a.race.over is not None, "the end")
        await a.press("escape")  # back to the lobby
        await a.until(lambda: a.state.race is None and a.state.lobby is not None, "the lobby")
        assert type(a.app.screen).__name__ == "LobbyScreen"


async def test_a_lapsed_rematch_offer_is_said_so(start_server, make_app):
    server = await start_server()
    async with racing(make_app, server) as (a, b):
        await a.press("x", "y")
        await a.until(lambda: a.race.over is not None, "a's game_over")
        await b.until(lambda: b.race.over is not None, "b's game_over")
        b.app.send(Seek(rules=a.race.rules))  # anything else in the lobby: the offer lapses
        await b.until(lambda: b.state.waiting is not None, "b seeking")
        await a.press("r")
        await a.until(lambda: a.state.notice == "the rematch offer has lapsed", "told so")
        assert not a.race.rematch_asked


async def test_reconnects_and_resumes_after_the_socket_drops(start_server, make_app):
    server = await start_server(grace=30.0)
    async with racing(make_app, server) as (a, b):
        race_b = b.race
        for _ in range(3):
            await play_by_key(a)
        game_id, seq = a.race.game_id, a.race.seq
        connection = a.app.connection
        assert connection is not None and connection.websocket is not None
        connection.websocket.transport.abort()  # the network drops: no closing handshake
        await a.until(lambda: a.state.link == "reconnecting", "a reconnecting")
        assert "reconnecting" in (await a.lines())[0]
        await b.until(lambda: race_b.away_until is not None, "b told that a is away")
        assert "to come back" in await b.text()
        await play_by_key(b)  # the race goes on meanwhile
        await a.until(lambda: a.state.link == "online", "a back online")
        await a.until(lambda: a.race.seq == seq + 1, "a resumed from game_state")
        race_a = a.race
        assert race_a.game_id == game_id
        assert race_a.board.count == 3
        assert race_a.boards[seat(race_b)].count == 1  # the play made while a was away
        await b.until(lambda: race_b.away_until is None, "b told that a is back")
        await play_by_key(a)
        await b.until(lambda: race_b.boards[seat(race_a)].count == 4, "b sees a again")
