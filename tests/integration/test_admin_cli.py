"""``flowergarden-admin`` (``python -m server.operator``) as a subprocess, against a real store
on SQLite and PostgreSQL, and reaching a running server."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import json
import sys
from typing import TYPE_CHECKING

import pytest

from core.glicko2 import NEW, Glicko
from server.operator.actions import PLAYER_ACTIONS, Order, perform, rename
from server.operator.commands import main, parser
from server.store.marks import report

from ..server.test_store import ANN, BOB, make_race, with_players
from ..store_backends import recorded
from .conftest import REPO, TIMEOUT

if TYPE_CHECKING:
    from ..store_backends import AnyBackend


async def admin_cli(db: str, *args: str) -> tuple[int, str, str]:
    """Run the command line on ``db``: exit code, stdout, stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.operator", "--db", db, "--by", "alice", *args,
        cwd=REPO, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def rated_store(backend: AnyBackend) -> str:
    """A store on ``backend`` with Ann and Bob and a rated race, g1, that Ann won; its ``--db``."""
    store = await with_players(backend)
    after = (Glicko(1662.0, 290.0, 0.09), Glicko(1338.0, 290.0, 0.09))
    race = dataclasses.replace(make_race("g1"), ratings=(NEW, NEW), ratings_after=after)
    await recorded(store, race, 100.0, 130.0)
    await store.close()
    return backend.db


async def test_the_actions_against_a_real_store(backend: AnyBackend) -> None:
    db = await rated_store(backend)
    code, out, _ = await admin_cli(db, "ban", "ann", "--reason", "a program")
    assert code == 0 and out.startswith("Ann: banned.") and "banned, not a bot" in out
    (code, _, err), (usage, _, words), (taken, _, why) = await asyncio.gather(
        admin_cli(db, "ban", "nobody", "--reason", "x"),
        admin_cli(db, "ban", "Ann"),
        admin_cli(db, "rename", "Ann", "BOB", "--reason", "taken"),
    )
    assert code == 1 and "no player is named nobody" in err
    assert usage == 2 and "--reason" in words
    assert taken == 1 and "taken" in why
    code, out, _ = await admin_cli(db, "rename", "Bob", "Bobby", "--reason", "asked")
    assert code == 0 and out.startswith("Bobby: is the new name.")
    code, out, _ = await admin_cli(db, "annul", "g1", "--reason", "a farm")
    assert code == 0 and out.strip() == "race g1 annulled: Ann 1662 -> 1500; Bobby 1338 -> 1500."
    results = await asyncio.gather(
        admin_cli(db, "annul", "g1", "--reason", "again"),
        *(admin_cli(db, command, "ann", "--reason", command) for command in ("bot", "clear")),
        admin_cli(db, "forget", "Bobby", "--reason", "asked to be"),
    )
    (code, _, err), *done = results
    assert code == 1 and "annulled already" in err
    assert [code for code, _, _ in done] == [0, 0, 0], done
    assert "forgotten" in done[-1][1]
    reopened = backend.store()
    players = await reopened.open()
    await reopened.close()
    assert [p.player_id for p in players] == [ANN.player_id]  # Bob(by) is forgotten
    assert BOB.player_id not in {p.player_id for p in players}


async def test_the_reads_against_a_real_store(backend: AnyBackend) -> None:
    db = await rated_store(backend)
    store = backend.store()
    await store.open()
    try:
        await store.run(report("g1", ANN.player_id, "too fast", 200.0))
        for action, name in (("ban", "Bob"), ("rename", "Ann")):
            made = Order("looked at it", "bea", 300.0)
            script = (
                rename(name, "Anna", made) if action == "rename"
                else PLAYER_ACTIONS[action].script(name, made)
            )  # fmt: skip
            await perform(store, script)
    finally:
        await store.close()
    (c1, review, _), (c2, race, _), (c3, one, _), (c4, log, _), (c5, words, _) = await (
        asyncio.gather(
            admin_cli(db, "review"), admin_cli(db, "review", "--race", "g1"),
            admin_cli(db, "review", "--player", "bob"), admin_cli(db, "--json", "log"),
            admin_cli(db, "log", "--limit", "1"),
        )
    )  # fmt: skip
    assert (c1, c2, c3, c4, c5) == (0, 0, 0, 0, 0)
    assert review.splitlines()[1].split() == ["Bob", "0", "1", "yes", "g1"]
    assert "race g1" in race and "reported by Anna (Bob)" in race
    assert one.startswith("Bob: banned, not a bot, 0 flags and 1 reports")
    assert [(a["action"], a["target"], a["by"]) for a in json.loads(log)["actions"]] == [
        ("rename", "Ann", "bea"), ("ban", "Bob", "bea"),
    ]  # fmt: skip
    assert words.strip().endswith("rename Ann (Anna) by bea: looked at it")


def test_every_command_has_its_help() -> None:
    commands = ("ban", "unban", "rename", "forget", "bot", "clear", "annul", "review", "log")
    root = parser()
    assert all(command in root.format_help() for command in commands)
    for command in commands:
        with pytest.raises(SystemExit) as done, contextlib.redirect_stdout(io.StringIO()) as out:
            main([command, "--help"])
        assert done.value.code == 0
        assert out.getvalue().startswith(f"usage: flowergarden-admin {command}"), command


async def test_a_missing_database_is_refused_not_made(tmp_path) -> None:
    code, _, err = await admin_cli(str(tmp_path / "none.sqlite3"), "log")
    assert code == 1 and "no database" in err
    assert not (tmp_path / "none.sqlite3").exists()


async def test_a_ban_from_the_command_line_reaches_a_running_server(server, player) -> None:
    ann = await player(server)
    code, _, err = await admin_cli(server.settings.db, "ban", ann.name, "--reason", "shell")
    assert code == 0, err
    async with asyncio.timeout(TIMEOUT):
        await ann.expect_close(4001)
