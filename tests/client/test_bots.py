"""Racing the server's bots from the terminal client: ``b``, the quick-match form, the flags.

Against a scripted server (the exact ``seek`` sent, the countdown on a hand-moved
clock, the labels) and, at the end, against the real one: a key, and a race
with a bot begins.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import pytest
from textual.widgets import Checkbox, RadioButton

from client.cli import parse_args
from client.levels import LEVELS, bot_wait_words
from client.messages import Command
from client.options import RACE_RULES, Options
from client.race_view import Waiting
from client.state import ClientState
from client.textual_app import FlowerGardenApp
from core.bot_policy import PACES
from core.bots import BOT_NAMES
from protocol import BotRequest, Cancelled, Rules, Seek, Seeking

from .conftest import driving, flat, fresh_name, screen_lines
from .scripted import ScriptedServer
from .test_race import play_by_key
from .test_screens import Clock, script
from .wire import dealt, game_over, game_start, game_state, play

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from .conftest import Driver

BOTS = ["ann", "BOT-Hare"]


@contextlib.asynccontextmanager
async def lobby_app(
    server: ScriptedServer, clock: Clock | None = None, **options: Any
) -> AsyncIterator[Driver]:
    app = FlowerGardenApp(Options(server=server.url, name="ann", **options), clock=clock or Clock())
    async with driving(app) as driver:
        await driver.until(lambda: driver.state.lobby is not None, "the lobby")
        yield driver


def on_top(driver: Driver) -> str:
    return type(driver.app.screen).__name__


def shown(driver: Driver, words: str) -> bool:
    return words in flat("\n".join(screen_lines(driver.app)))


def test_the_levels_are_the_servers_bots():
    assert [level.name for level in LEVELS] == [BOT_NAMES[n] for n in range(1, 6)]
    paces = [PACES[n].seconds for n in range(1, 6)]
    assert [level.seconds for level in LEVELS] == paces == [2.0, 1.2, 0.8, 0.5, 0.3]


# -- b: race a bot now -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("keys", "level"),
    [(["enter"], 3), (["5"], 5), (["down", "enter"], 4), (["1"], 1)],
    ids=["enter: level 3", "5", "down enter", "1"],
)
async def test_b_and_a_level_seek_a_bot_at_once_with_the_quick_match_rules(keys, level):
    async with ScriptedServer(script()).running() as server, lobby_app(server) as a:
        assert shown(a, "b race a bot")
        await a.press("b")
        await a.until(lambda: on_top(a) == "BotScreen", "the levels")
        text = flat(await a.text())
        assert "Race a bot now (mirror · winnable)" in text
        for line in ("1 BOT-Snail about 2.0 s a card", "3 BOT-Hare about 0.8 s a card"):
            assert line in text
        assert "5 BOT-Swift about 0.3 s a card" in text
        await a.press(*keys)
        await a.until(lambda: server.sent("seek"), "the seek")
        seek = server.sent("seek")[0]
        assert seek["bot"] == {"after_s": 0, "level": level}
        assert Rules.model_validate(seek["rules"]) == RACE_RULES
        assert on_top(a) == "LobbyScreen"


async def test_b_never_asks_for_a_rated_race_and_esc_asks_for_nothing():
    rated = RACE_RULES.model_copy(update={"rated": True, "redeals": 1})
    async with ScriptedServer(script()).running() as server, lobby_app(server, rules=rated) as a:
        await a.press("b")
        await a.until(lambda: on_top(a) == "BotScreen", "the levels")
        await a.press("escape")
        await a.until(lambda: on_top(a) == "LobbyScreen", "the lobby")
        await a.press("b")
        await a.until(lambda: on_top(a) == "BotScreen", "the levels")
        assert shown(a, "Race a bot now (mirror · winnable · 1 redeal)")
        await a.press("2")
        await a.until(lambda: server.sent("seek"), "the seek")
        assert len(server.sent("seek")) == 1
        sent = Rules.model_validate(server.sent("seek")[0]["rules"])
        assert sent == rated.model_copy(update={"rated": False})


async def test_b_while_seeking_stops_the_seek_first():
    async with ScriptedServer(script()).running() as server, lobby_app(server) as a:
        a.app.post_message(Command(Seek(rules=RACE_RULES)))
        await a.until(lambda: a.state.waiting is not None, "seeking")
        await a.press("b", "enter")
        await a.until(lambda: len(server.sent("seek")) == 2, "the second seek")
        kinds = [kind for _, kind in server.requests if kind in ("seek", "cancel")]
        assert kinds == ["seek", "cancel", "seek"]


# -- the quick-match form: a bot if nobody comes ---------------------------------------


async def test_the_form_asks_for_a_bot_after_a_wait_and_at_a_level():
    async with ScriptedServer(script()).running() as server, lobby_app(server) as a:
        await a.press("s")
        await a.until(lambda: on_top(a) == "RulesScreen", "the form")
        form = a.app.screen
        await a.until_shown("A bot if nobody comes, after: ● off ● 10 s ● 30 s ● 60 s")
        assert form.query_one("#after-off", RadioButton).value
        assert form.query_one("#bot-level").disabled  # no bot: no level to choose
        await a.press("enter")  # off: a seek for a person only, as before
        await a.until(lambda: server.sent("seek"), "the first seek")
        assert server.sent("seek")[0].get("bot") is None
        await a.press("escape")
        await a.until(lambda: a.state.waiting is None, "cancelled")

        await a.press("s")
        await a.until(lambda: on_top(a) == "RulesScreen", "the form")
        form = a.app.screen
        form.query_one("#bot-after").focus()
        await a.press("right", "right")  # off → 10 s → 30 s
        assert form.query_one("#after-30", RadioButton).value
        assert not form.query_one("#bot-level").disabled
        assert shown(a, "BOT-Hare, about 0.8 s a card")
        form.query_one("#bot-level").focus()
        await a.press("right")  # level 3 → 4
        await a.until(lambda: shown(a, "BOT-Falcon, about 0.5 s a card"), "the level's bot")
        await a.press("enter")
        await a.until(lambda: len(server.sent("seek")) == 2, "the second seek")
        seek = server.sent("seek")[1]
        assert seek["bot"] == {"after_s": 30, "level": 4}
        assert Rules.model_validate(seek["rules"]) == RACE_RULES
        await a.press("escape")
        await a.until(lambda: a.state.waiting is None, "cancelled")

        await a.press("s")  # the form offers the last choice again
        await a.until(lambda: on_top(a) == "RulesScreen", "the form")
        assert a.app.screen.query_one("#after-30", RadioButton).value
        assert a.app.screen.query_one("#level-4", RadioButton).value


async def test_a_rated_seek_may_ask_for_a_bot_and_the_form_says_that_race_is_unrated():
    async with ScriptedServer(script()).running() as server, lobby_app(server) as a:
        await a.press("s")
        await a.until(lambda: on_top(a) == "RulesScreen", "the form")
        form = a.app.screen
        form.query_one("#rated").focus()
        await a.press("space")
        await a.until(lambda: form.query_one("#rated", Checkbox).value, "rated")
        assert not shown(a, "never rated")
        form.query_one("#bot-after").focus()
        await a.press("left")  # off → the longest wait, 60 s
        await a.until_shown("so that speed alone decides; a race with the bot is never rated")
        await a.press("enter")
        await a.until(lambda: server.sent("seek"), "the seek")
        seek = server.sent("seek")[0]
        assert seek["bot"] == {"after_s": 60, "level": 3} and seek["rules"]["rated"] is True


async def test_a_room_has_no_bot():
    async with ScriptedServer(script()).running() as server, lobby_app(server) as a:
        await a.press("c")
        await a.until(lambda: on_top(a) == "RulesScreen", "the form")
        assert not a.app.screen.query("#bot-after")
        await a.press("enter")
        await a.until(lambda: server.sent("create_room"), "the room")
        assert "bot" not in server.sent("create_room")[0]


# -- the countdown ---------------------------------------------------------------------


async def test_the_waiting_line_counts_down_to_the_bot_on_the_apps_clock():
    clock = Clock(100.0)
    bot = BotRequest(after_s=30, level=3)
    async with (
        ScriptedServer(script()).running() as server,
        lobby_app(server, clock, action="seek", bot=bot) as a,
    ):
        await a.until(lambda: a.state.waiting is not None, "seeking")
        assert server.sent("seek")[0]["bot"] == {"after_s": 30, "level": 3}
        waiting = a.state.waiting
        assert waiting is not None and waiting.bot == bot and waiting.bot_at == 130.0
        seeking = "Seeking a match (mirror · winnable)…"
        await a.until_shown(f"{seeking} a bot (BOT-Hare) takes the seat in 30 s Esc cancels")
        clock.now = 107.0
        await a.until_shown(f"{seeking} a bot (BOT-Hare) takes the seat in 23 s")
        clock.now = 129.6
        await a.until_shown("a bot (BOT-Hare) takes the seat in 1 s")
        clock.now = 130.0
        await a.until_shown("a bot (BOT-Hare) takes the seat now…")
        await a.press("escape")
        await a.until(lambda: a.state.waiting is None, "cancelled")
        assert not shown(a, "takes the seat")


def test_the_countdown_words():
    waiting = Waiting("seeking", RACE_RULES, bot=BotRequest(after_s=90, level=5), bot_at=190.0)
    assert bot_wait_words(waiting, 100.0) == "a bot (BOT-Swift) takes the seat in 1:30"
    assert bot_wait_words(waiting, 189.2) == "a bot (BOT-Swift) takes the seat in 1 s"
    assert bot_wait_words(Waiting("seeking", RACE_RULES), 100.0) == ""


def test_a_seek_without_a_bot_forgets_the_last_ones():
    state = ClientState("ws://x/ws", "ann")
    state.sending(Seek(bot=BotRequest(after_s=10, level=2)))
    state.apply(Seeking(rules=RACE_RULES), 5.0)
    assert state.waiting is not None and state.waiting.bot_at == 15.0
    state.apply(Cancelled(), 6.0)
    state.sending(Seek())  # Enter on a row of the seeks: a person only
    state.apply(Seeking(rules=RACE_RULES), 7.0)
    assert state.waiting is not None and state.waiting.bot is None


async def test_a_seek_lost_with_the_connection_asks_for_the_bot_with_the_wait_left():
    clock = Clock(100.0)
    bot = BotRequest(after_s=60, level=2)
    async with (
        ScriptedServer(script()).running() as server,
        lobby_app(server, clock, action="seek", bot=bot) as a,
    ):
        await a.until(lambda: a.state.waiting is not None, "seeking")
        clock.now = 120.0
        await server.connections[0].close()
        await a.until(lambda: len(server.sent("seek")) == 2, "the seek asked again")
        assert server.requests[-1][0] == 1  # on the new connection
        assert server.sent("seek")[1]["bot"] == {"after_s": 40, "level": 2}
        await a.until_shown("a bot (BOT-Tortoise) takes the seat in 40 s")


# -- the labels ------------------------------------------------------------------------


async def test_a_bot_is_labelled_on_the_race_and_the_result():
    clock = Clock(100.0)
    async with ScriptedServer(script()).running() as server, lobby_app(server, clock) as a:
        await server.push(game_start(players=BOTS, bots=[False, True]))
        await a.until(lambda: a.state.race is not None, "the race")
        await a.until_shown("ann vs BOT-Hare (bot)")  # the top bar
        assert shown(a, "BOT-Hare (bot) 0/52")  # the opponent's board
        assert shown(a, "ann (you) 0/52")
        theirs = dealt()
        moves = [play(theirs, 1, seq, t_ms=800 * seq) for seq in range(1, 53)]
        over = game_over(1, "cleared", [0, 52], seq=53, times_ms=[None, 41_600])
        await server.push(*moves, over)
        await a.until_shown("You lost BOT-Hare (bot) cleared every card")
        assert shown(a, "ann 0/52 · BOT-Hare (bot) cleared in 41.6 s")


async def test_a_spectator_sees_the_bot_labelled_too():
    async with ScriptedServer(script()).running() as server, lobby_app(server) as a:
        board = dealt()
        watched = game_state([board, board], seq=0, seat=None, players=BOTS, bots=[False, True])
        await server.push(watched)
        await a.until(lambda: a.state.race is not None, "the race")
        await a.until_shown("ann vs BOT-Hare (bot) (watching)")
        await server.push(game_over(1, "resigned", [0, 3], seq=1))
        await a.until_shown("BOT-Hare (bot) won ann resigned")


# -- the command line ------------------------------------------------------------------


def test_the_bot_flags():
    now = parse_args(["--bot", "4"], encoding="utf-8")
    assert now.action == "seek" and now.bot == BotRequest(after_s=0, level=4)
    later = parse_args(["--seek", "--bot-after", "30"], encoding="utf-8")
    assert later.action == "seek" and later.bot == BotRequest(after_s=30, level=3)
    swift = parse_args(["--seek", "--bot-after", "10", "--bot", "5", "--rated"], encoding="utf-8")
    assert swift.bot == BotRequest(after_s=10, level=5) and swift.rules.rated
    assert parse_args(["--seek"], encoding="utf-8").bot is None
    assert parse_args([], encoding="utf-8").bot is None


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["--bot-after", "30"], "--bot-after is for --seek"),
        (["--seek", "--bot-after", "301"], "--bot-after must be 0 to 300 seconds"),
        (["--bot", "6"], "invalid choice"),
        (["--bot", "2", "--room", "ABC234"], "a bot races in quick match only"),
        (["--bot", "2", "--create-room"], "a bot races in quick match only"),
        (["--bot", "2", "--rated"], "a race with a bot is never rated"),
    ],
)
def test_bot_flags_that_cannot_be(argv, error, capsys):
    with pytest.raises(SystemExit) as exit:
        parse_args(argv, encoding="utf-8")
    assert exit.value.code == 2
    assert error in capsys.readouterr().err


def test_the_help_says_what_the_bot_flags_do(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--help"], encoding="utf-8")
    words = " ".join(capsys.readouterr().out.split())
    assert "--bot LEVEL race the server's bot of this level (1-5) at once" in words
    assert "--bot-after SECONDS with --seek: if nobody is paired within SECONDS" in words
    assert "3 BOT-Hare (0.8 s)" in words


# -- against the real server -----------------------------------------------------------


async def test_b_races_a_bot_on_the_real_server(start_server, make_app):
    server = await start_server()
    app = make_app(server, fresh_name("ann"))
    async with driving(app) as a:
        await a.until(lambda: a.state.lobby is not None and a.state.link == "online", "the lobby")
        await a.press("b", "enter")  # alone on a fresh server: one key, and Enter for level 3
        await a.until(lambda: a.state.race is not None, "the race with the bot")
        race = a.race
        assert race.bots == [False, True] and race.players[1] == "BOT-Hare"
        assert race.seat == 0 and race.rules == RACE_RULES
        await a.until_shown(f"{race.players[0]} vs BOT-Hare (bot)")
        await play_by_key(a)  # a race like any other
        bot_board = race.boards[1]
        await a.until(lambda: bot_board.count > 0, "the bot's first card")


async def test_bot_after_brings_the_bot_when_nobody_comes(start_server, make_app):
    server = await start_server()
    app = make_app(server, fresh_name("ann"), action="seek", bot=BotRequest(after_s=1, level=5))
    async with driving(app) as a:
        await a.until(lambda: a.state.waiting is not None, "seeking")
        await a.until(lambda: a.state.race is not None, "the bot, a second later")
        assert a.race.bots == [False, True] and a.race.players[1] == "BOT-Swift"
