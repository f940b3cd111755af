"""The operator's actions and the fair-play records in the store, on SQLite and PostgreSQL.

Each action is one script (server/store/scripts.py), run in one transaction with its line
in the audit log (server/operator/actions.py); reports and flags are marks
(server/store/marks.py); a hello reads a player's standing.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import pytest

from core.events import Refused
from core.fair_play import Evidence
from core.glicko2 import NEW, Glicko
from core.identity import Identity
from core.race_log import RaceStart
from server.operator.actions import (
    PLAYER_ACTIONS,
    ActionRefused,
    Order,
    UnknownPlayer,
    UnknownRace,
    annul,
    log_line,
    perform,
    rename,
)
from server.operator.review import last_line, since
from server.store.marks import REPORTS_PER_DAY, report

from ..store_backends import recorded
from .test_store import ANN, BOB, make_race, with_players

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from server.store import Store

    from ..store_backends import AnyBackend

FLAGGED = Evidence(52, 40, 0.01, 0.02, 0.3, 0.2, ("fast",))
CLEAN = Evidence(10, 0, 0.3, 0.6, None, None, ())


def order(reason: str = "a test", at: float = 5000.0) -> Order:
    return Order(reason, "tester", at)


@pytest.fixture
async def store(backend: AnyBackend) -> AsyncIterator[Store]:
    store = await with_players(backend)
    yield store
    await store.close()


async def act(store: Store, action: str, name: str) -> Any:
    return await perform(store, PLAYER_ACTIONS[action].script(name, order(action)))


async def test_a_ban_is_kept_and_logged_in_one_transaction(store: Store) -> None:
    line, player = await act(store, "ban", "ANN")
    assert (player.name, player.banned) == ("Ann", True)
    assert (line.action, line.target, line.reason, line.by, line.player_id) == (
        "ban", "Ann", "ban", "tester", ANN.player_id,
    )  # fmt: skip
    standing = await store.standing(ANN.player_id)
    assert standing is not None and standing.banned
    assert [(one.id, one.action) for one in await since(store, 0)] == [(line.id, "ban")]
    assert await last_line(store) == line.id
    await act(store, "unban", "ann")
    standing = await store.standing(ANN.player_id)
    assert standing is not None and not standing.banned
    assert [one.action for one in await since(store, line.id)] == ["unban"]


async def test_a_refused_script_changes_nothing(store: Store) -> None:
    with pytest.raises(UnknownPlayer):
        await act(store, "ban", "nobody")

    def half_done() -> Any:  # a write, then a refusal: the write is undone
        yield ("UPDATE players SET banned = 1 WHERE id = ?", (ANN.player_id,))
        yield from log_line(order(), "ban", "Ann", ANN.player_id)
        raise ActionRefused("changed my mind")

    with pytest.raises(ActionRefused, match="changed my mind"):
        await perform(store, half_done())
    standing = await store.standing(ANN.player_id)
    assert standing is not None and not standing.banned
    assert await last_line(store) == 0


async def test_a_rename_frees_the_old_name(store: Store) -> None:
    line, player = await perform(store, rename("ann", "Anna", order()))
    assert player.name == "Anna" and line.target == "Ann" and '"Anna"' in (line.detail or "")
    await store.add_player(Identity("p-new", "ann", "hash-new", 3000.0))  # free now
    with pytest.raises(ActionRefused, match="taken"):
        await perform(store, rename("Bob", "ANNA", order()))
    with pytest.raises(ActionRefused, match="BOT-"):
        await perform(store, rename("Bob", "BOT-Bob", order()))
    with pytest.raises(ActionRefused):
        await perform(store, rename("Bob", "no spaces", order()))
    profile = await store.profile("anna")
    assert profile is not None and profile.player_id == ANN.player_id


async def test_a_forgotten_player_is_nobody_and_their_name_free(store: Store) -> None:
    _, player = await act(store, "forget", "Ann")
    assert player.forgotten
    assert await store.find_player(ANN.token_hash) is None
    assert [identity.player_id for identity in await store.players()] == [BOB.player_id]
    standing = await store.standing(ANN.player_id)
    assert standing is not None and standing.forgotten
    with pytest.raises(UnknownPlayer):
        await act(store, "ban", "Ann")  # gone for the operator too
    await store.add_player(Identity("p-new", "Ann", "hash-new", 3000.0))


async def test_a_servers_bot_is_not_acted_on(store: Store) -> None:
    await store.add_player(Identity("bot3", "BOT-Hare", "hash-bot", 1.0))
    with pytest.raises(ActionRefused, match="server's own bots"):
        await act(store, "forget", "BOT-Hare")


async def test_flags_are_counted_kept_with_the_race_and_cleared(store: Store) -> None:
    record = dataclasses.replace(
        make_race("g-flag"), unrated="fair_play", fair_play=(CLEAN, FLAGGED)
    )
    await recorded(store, record, 100.0, 130.0)
    assert await flags(store) == (0, 1)
    back = await store.race("g-flag")
    assert back is not None and back.fair_play == (CLEAN, FLAGGED) and back.unrated == "fair_play"
    await recorded(store, dataclasses.replace(record, game_id="g-flag2"), 140.0, 150.0)
    assert await flags(store) == (0, 2)
    _, player = await act(store, "clear", "bob")
    assert player.flags == 0 and await flags(store) == (0, 0)
    await recorded(store, make_race("g-plain"), 160.0, 170.0)  # no evidence: no flag, no row
    plain = await store.race("g-plain")
    assert plain is not None and plain.fair_play == (None, None) and plain.unrated is None


async def flags(store: Store) -> tuple[int, int]:
    ann, bob = [await store.standing(p.player_id) for p in (ANN, BOB)]
    assert ann is not None and bob is not None
    return ann.flags, bob.flags


async def test_a_live_race_keeps_its_declared_bots(store: Store) -> None:
    start = RaceStart("g-live", "{}", "sha256", ("ab" * 32,), (ANN.player_id, BOB.player_id),
                      ("Ann", "Bob"), bots=(False, True))  # fmt: skip
    await store.begin_race(start, 10.0)
    ((live, _, _),) = await store.live_races()
    assert live.bots == (False, True)


async def test_a_report_is_once_a_race_by_its_players_within_a_limit(store: Store) -> None:
    await recorded(store, make_race("g1"), 100.0, 130.0)
    assert await store.run(report("g1", ANN.player_id, "too fast", 200.0)) == BOB.player_id
    for game_id, who, code in (
        ("g1", ANN.player_id, "not_allowed"),  # a second report of the race
        ("g1", "p-stranger", "not_allowed"),  # not a player of it
        ("g-none", ANN.player_id, "game_not_found"),
    ):
        with pytest.raises(Refused) as refused:
            await store.run(report(game_id, who, None, 200.0))
        assert refused.value.code == code
    for i in range(REPORTS_PER_DAY - 1):
        await recorded(store, make_race(f"g-more{i}"), 100.0, 130.0)
        await store.run(report(f"g-more{i}", BOB.player_id, None, 300.0 + i))
    await recorded(store, make_race("g-last"), 100.0, 130.0)
    await store.run(report("g-last", BOB.player_id, None, 400.0))  # Bob's tenth
    await recorded(store, make_race("g-over"), 100.0, 130.0)
    with pytest.raises(Refused) as refused:
        await store.run(report("g-over", BOB.player_id, None, 500.0))
    assert refused.value.code == "rate_limited"
    day_later = 300.0 + 86_400.0 + 1
    assert await store.run(report("g-over", BOB.player_id, None, day_later)) == ANN.player_id


def rated(game_id: str, before: tuple[Glicko, Glicko], after: tuple[Glicko, Glicko]) -> Any:
    return dataclasses.replace(make_race(game_id), ratings=before, ratings_after=after)


async def test_an_annul_of_the_latest_rated_race_puts_both_players_back(store: Store) -> None:
    after = (Glicko(1662.3, 290.1, 0.09), Glicko(1337.7, 290.1, 0.09))
    await recorded(store, rated("g1", (NEW, NEW), after), 100.0, 130.0)
    assert await store.rating(ANN.player_id) == after[0]
    done = await perform(store, annul("g1", order()))
    assert [(r.name, r.before, r.after) for r in done.ratings] == [
        ("Ann", 1662, 1500), ("Bob", 1338, 1500),
    ]  # fmt: skip
    assert await store.rating(ANN.player_id) == NEW and await store.rating(BOB.player_id) == NEW
    summary = await store.summary("g1")
    assert summary is not None and summary.ratings is None  # it changed no rating now
    assert done.line.action == "annul" and done.line.target == "g1"
    for refused in ("g1", "g-none"):  # twice; unknown
        with pytest.raises(ActionRefused):
            await perform(store, annul(refused, order()))
    await recorded(store, make_race("g-unrated"), 140.0, 150.0)
    with pytest.raises(ActionRefused, match="no rating"):
        await perform(store, annul("g-unrated", order()))
    with pytest.raises(UnknownRace):
        await perform(store, annul("g-none", order()))


async def test_an_annul_of_an_older_race_reverses_only_its_change(store: Store) -> None:
    first = (Glicko(1662.0, 290.0, 0.09), Glicko(1338.0, 290.0, 0.09))
    second = (Glicko(1700.0, 250.0, 0.09), Glicko(1300.0, 250.0, 0.09))
    await recorded(store, rated("g1", (NEW, NEW), first), 100.0, 130.0)
    await recorded(store, rated("g2", first, second), 140.0, 150.0)
    await perform(store, annul("g1", order()))
    # Back by what g1 moved each (+162, -162); the deviation g2 left stands.
    assert await store.rating(ANN.player_id) == Glicko(1538.0, 250.0, 0.09)
    assert await store.rating(BOB.player_id) == Glicko(1462.0, 250.0, 0.09)


async def test_an_annul_waits_for_a_rated_race_under_way(store: Store) -> None:
    after = (Glicko(1662.0, 290.0, 0.09), Glicko(1338.0, 290.0, 0.09))
    await recorded(store, rated("g1", (NEW, NEW), after), 100.0, 130.0)
    live = RaceStart("g-live", "{}", "sha256", ("ab" * 32,), (BOB.player_id, ANN.player_id),
                     ("Bob", "Ann"), ratings=after)  # fmt: skip
    await store.begin_race(live, 140.0)
    with pytest.raises(ActionRefused, match="racing a rated race"):
        await perform(store, annul("g1", order()))
