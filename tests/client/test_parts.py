"""The small pure parts: the token file, the command line, backoff, card faces."""

from __future__ import annotations

import random
import stat

import pytest

import client.bot_client
import client.net
from client.card_faces import card_name, card_text, glyphs_supported
from client.cli import parse_args
from client.options import RACE_RULES
from client.tokens import KeptIdentity, TokenStore, config_dir
from core.backoff import CLIENT
from engine import Card
from protocol import Rules


def test_config_dir_follows_xdg(tmp_path):
    assert config_dir({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "flowergarden"
    assert config_dir({}).parts[-2:] == (".config", "flowergarden")


def test_tokens_per_url_and_name(config_home):
    store = TokenStore()
    assert store.path == config_home / "flowergarden" / "tokens.json"
    assert store.get("ws://a/ws") is None
    store.put("ws://a/ws", KeptIdentity("Ann", "t1"))
    store.put("ws://a/ws", KeptIdentity("bob", "t2"))
    store.put("ws://b/ws", KeptIdentity("Ann", "t3"))
    again = TokenStore()
    assert again.get("ws://a/ws") == KeptIdentity("bob", "t2")  # the last one used
    assert again.get("ws://a/ws", "ann") == KeptIdentity("Ann", "t1")  # any case
    assert again.get("ws://b/ws") == KeptIdentity("Ann", "t3")
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    again.forget("ws://a/ws", "ANN")
    assert again.get("ws://a/ws", "ann") is None
    assert [p.name for p in store.path.parent.iterdir()] == ["tokens.json"]  # no temp left


def test_a_damaged_token_file_is_not_fatal(config_home):
    store = TokenStore()
    store.path.parent.mkdir(parents=True)
    store.path.write_text("{not json")
    assert store.get("ws://a/ws") is None
    store.put("ws://a/ws", KeptIdentity("ann", "t"))
    assert store.get("ws://a/ws") == KeptIdentity("ann", "t")


def test_both_clients_reconnect_with_the_one_client_policy():
    assert vars(client.net)["CLIENT"] is vars(client.bot_client)["CLIENT"] is CLIENT
    assert "backoff" not in vars(client.net) and "backoff" not in vars(client.bot_client)


def test_the_reconnect_waits_are_the_ones_docs_client_md_gives():
    rng = random.Random(1)
    delays = [CLIENT.after(attempt, rng) for attempt in range(1, 12)]
    assert 0.25 <= delays[0] <= 0.5
    assert 0.5 <= delays[1] <= 1.0
    assert all(7.5 <= delay <= 15.0 for delay in delays[7:])
    assert len({round(d, 6) for d in delays[7:]}) > 1  # jitter: clients do not come back in step


def test_command_line_actions_and_rules():
    options = parse_args(
        [
            "--server",
            "ws://h:1/ws",
            "--name",
            "ann",
            "--seek",
            "--deal",
            "mirror",
            "--winnable-only",
            "--redeals",
            "1",
            "--tiebreak",
            "first",
            "--time-limit",
            "120",
        ],
        encoding="utf-8",
    )
    assert options.server == "ws://h:1/ws" and options.name == "ann"
    assert options.action == "seek" and not options.ascii
    rules = options.rules
    assert (rules.deal, rules.winnable_only, rules.redeals) == ("mirror", True, 1)
    assert (rules.tiebreak, rules.time_limit_s) == ("first", 120)
    assert parse_args(["--room", "abc234"], encoding="utf-8").action == "join_room"
    assert parse_args(["--create-room", "--public"], encoding="utf-8").public
    assert parse_args([], encoding="ascii").ascii  # the terminal cannot show glyphs
    practice = parse_args(["practice", "--seed", "4", "--winnable-only"], encoding="utf-8")
    assert practice.practice and practice.seed == 4 and practice.rules.winnable_only
    assert parse_args(["practice"], encoding="utf-8").rules.winnable_only  # a race to clear
    assert not parse_args(["practice", "--any-layout"], encoding="utf-8").rules.winnable_only


def test_races_default_to_mirror_and_winnable_and_flags_choose_others():
    default = parse_args([], encoding="utf-8").rules
    assert default == RACE_RULES == Rules(deal="mirror", winnable_only=True)
    assert parse_args(["--seek"], encoding="utf-8").rules == RACE_RULES
    classic = parse_args(["--deal", "independent", "--any-layout"], encoding="utf-8").rules
    assert (classic.deal, classic.winnable_only) == ("independent", False)
    assert parse_args(["--winnable-only"], encoding="utf-8").rules.winnable_only


@pytest.mark.parametrize(
    "argv",
    [
        ["--seek", "--room", "X"],
        ["--time-limit", "5"],
        ["--redeals", "2"],
        ["--winnable-only", "--any-layout"],
        ["--server", "http://127.0.0.1:8765/ws"],
    ],
)
def test_command_line_errors(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        parse_args(argv, encoding="utf-8")
    assert exc.value.code == 2
    if "--server" in argv:  # said before the app starts, in the words the app would use
        assert "not a websocket URL" in capsys.readouterr().err


def test_every_flag_has_help(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    out = capsys.readouterr().out
    for flag in (
        "--server",
        "--name",
        "--seek",
        "--create-room",
        "--room",
        "--deal",
        "--winnable-only",
        "--any-layout",
        "--redeals",
        "--tiebreak",
        "--time-limit",
        "--rated",
        "--ascii",
    ):
        assert flag in out


def test_card_faces():
    assert card_name(Card.parse("TH")) == "10♥"
    assert card_name(Card.parse("QS"), ascii=True) == "QS"
    assert card_text(Card.parse("AD")).plain == " A♦"
    red, black = card_text(Card.parse("AD")).style, card_text(Card.parse("AC")).style
    assert red != black
    assert glyphs_supported("utf-8") and not glyphs_supported("ascii")
    assert not glyphs_supported("latin-1") and not glyphs_supported(None)
