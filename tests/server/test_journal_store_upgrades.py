"""SQLite files from older schema versions upgraded with what they hold: live races and
their journal, every time exact, and races recorded before times."""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING

from core.glicko2 import NEW
from core.race_log import Entry
from server.store import SqliteStore
from server.store.sqlite_schema import MIGRATIONS, SCHEMA_VERSION

from .test_journal_store import entries, journal_entries, start_of
from .test_store import ANN, BOB, make_race, raw
from .test_store_files import assert_intact

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterator
    from pathlib import Path


@contextmanager
def old_file(path: Path, version: int) -> Iterator[sqlite3.Connection]:
    """A file as schema ``version`` left it, knowing Ann and Bob, open from outside the store."""
    with raw(path) as conn:
        for migration in MIGRATIONS[:version]:
            for statement in migration:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version={version}")
        conn.executemany(
            "INSERT INTO players (id, name, name_key, token_hash, created, last_seen)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [(p.player_id, p.name, p.name.lower(), p.token_hash, p.created, p.created)
             for p in (ANN, BOB)],
        )  # fmt: skip
        yield conn


async def test_a_version_3_database_is_upgraded_with_its_journal(tmp_path: Path) -> None:
    path = tmp_path / "fg.sqlite3"
    with old_file(path, 3) as conn:  # with a live race in it
        conn.execute(
            "INSERT INTO live_races (id, rules, seeds, player0, player1, started)"
            " VALUES ('g1', ?, '[1, 2]', ?, ?, 1000.0)",
            (start_of("g1").rules_json, ANN.player_id, BOB.player_id),
        )
        conn.executemany(
            "INSERT INTO journal VALUES ('g1', ?, ?, ?, ?)", [tuple(e) for e in entries(1, 3)]
        )
    store = SqliteStore(path)
    await store.open()
    (live,) = await store.live_races()
    assert live[1] == entries(1, 3)
    await store.journal("g1", Entry(4, 0, "4S", 2.0))
    await store.record_race(make_race("g1"), 1000.0, 1030.0)
    await store.close()
    with raw(path) as conn:
        assert journal_entries(conn) == []
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


def _v6_race(conn: sqlite3.Connection, game_id: str, first_entry: int) -> None:
    conn.execute(
        "INSERT INTO live_races (id, rules, dealing, seeds, player0, player1, started,"
        " first_entry) VALUES (?, ?, 'mt19937', '[1, 2]', ?, ?, 1000.0, ?)",
        (game_id, start_of(game_id).rules_json, ANN.player_id, BOB.player_id, first_entry),
    )


async def test_a_version_6_journal_becomes_rows_of_lines_with_every_time_exact(
    tmp_path: Path,
) -> None:
    path = tmp_path / "fg.sqlite3"
    kept = [Entry(1, 0, "AS", 0.1), Entry(2, 1, "redeal", 1 / 3), Entry(3, 0, "2S", 12.5)]
    with old_file(path, 6) as conn:
        _v6_race(conn, "g1", 1)
        conn.executemany(
            "INSERT INTO journal (race_id, seq, seat, what, at) VALUES ('g1', ?, ?, ?, ?)",
            [tuple(e) for e in kept],
        )
    store = SqliteStore(path)
    await store.open()
    (live,) = await store.live_races()
    assert live[1] == kept  # 1/3 and 0.1 to the last bit
    await store.journal("g1", Entry(4, 1, "3S", 13.0))
    assert (await store.live_races())[0][1] == [*kept, Entry(4, 1, "3S", 13.0)]
    await store.close()
    with raw(path) as conn:
        assert journal_entries(conn) == [
            "g1 1 0 AS 0.10000000000000001",
            "g1 2 1 redeal 0.33333333333333331",
            "g1 3 0 2S 12.5",
            "g1 4 1 3S 13.0",
        ]


async def test_a_version_6_log_emptied_keeps_its_ids_growing(tmp_path: Path) -> None:
    # The old log had given ids up to 50 and been emptied, and g1 begun since
    # (first_entry 51): were the new table's ids to start at 1 again, g1's
    # entries would be cut as a finished race's when g2 is recorded.
    path = tmp_path / "fg.sqlite3"
    with old_file(path, 6) as conn:
        conn.executemany(
            "INSERT INTO journal (race_id, seq, seat, what, at) VALUES ('old', ?, 0, 'AS', 0.5)",
            [(seq,) for seq in range(1, 51)],
        )
        conn.execute("DELETE FROM journal")
        _v6_race(conn, "g1", 51)
        _v6_race(conn, "g2", 51)
    store = SqliteStore(path)
    await store.open()
    await store.journal("g1", Entry(1, 0, "AS", 0.5))
    await store.record_race(make_race("g2"), 1000.0, 1030.0)
    (live,) = await store.live_races()
    assert live[0].game_id == "g1" and live[1] == [Entry(1, 0, "AS", 0.5)]
    await store.close()


async def test_a_version_2_database_is_upgraded_with_its_races(tmp_path: Path) -> None:
    path = tmp_path / "fg.sqlite3"
    with raw(path) as conn:
        for migration in MIGRATIONS[:2]:
            for statement in migration:
                conn.execute(statement)
        conn.execute("PRAGMA user_version=2")
        for who in (ANN, BOB):
            conn.execute(
                "INSERT INTO players (id, name, name_key, token_hash, created, last_seen, games)"
                " VALUES (?, ?, ?, ?, ?, ?, 1)",
                (who.player_id, who.name, who.name.lower(), who.token_hash, who.created, 1.0),
            )
        conn.execute(
            "INSERT INTO races VALUES ('g0', '{}', '[8]', 'p-ann', 'p-bob', 1.0, 2.0,"
            " 'draw', NULL, 'stalled', 0, 0, '[[1,0,\"AS\",250]]')"
        )
    store = SqliteStore(path)
    assert await store.open() == [ANN, BOB]
    race = await store.race("g0")
    assert race is not None and [move.at for move in race.moves] == [0.25]
    assert await store.live_races() == []
    await store.begin_race(start_of("g1"), 1000.0)
    await store.journal("g1", Entry(1, 0, "AS", 0.5))
    assert len(await store.live_races()) == 1
    await store.close()
    with raw(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert_intact(path)


async def test_races_recorded_before_times_get_theirs_from_their_moves(tmp_path: Path) -> None:
    path = tmp_path / "fg.sqlite3"
    with old_file(path, 5) as conn:  # with one race won by clearing
        moves = '[[1,0,"AS",500],[2,1,"AH",700],[3,1,"redeal",900],[4,0,"2S",1250]]'
        conn.execute(
            "INSERT INTO races (id, rules, seeds, player0, player1, started, ended, result,"
            " winner, reason, count0, count1, moves) VALUES ('g1', '{}', '[1,2,3,4]', ?, ?,"
            " 1000.0, 1010.0, 'win', 0, 'cleared', 52, 1, ?)",
            (ANN.player_id, BOB.player_id, moves),
        )
    store = SqliteStore(path)
    await store.open()
    (summary,) = await store.history(ANN.player_id, 10, None)
    assert summary.times_ms == (1250, 700)  # a redeal is not a card
    profile = await store.profile("ann")
    assert profile is not None and profile.best_clear_ms == 1250
    assert (await store.rating(BOB.player_id)) == NEW
    await store.close()
