"""Lobby listings: cut to the newest hundred, and merged across workers without losing order."""

from __future__ import annotations

from core.listing import Listed, Listing, merge
from protocol import LIST_CAP, GameInfo, RoomInfo, Rules

MIRROR = Rules(deal="mirror")


def room(code: str, at: float) -> Listed[RoomInfo]:
    return Listed(at, RoomInfo(code=code, host="h" + code, rules=Rules()))


def game(game_id: str, at: float) -> Listed[GameInfo]:
    info = GameInfo(game_id=game_id, players=["a", "b"], counts=[0, 0], bots=[False, False])
    return Listed(at, info)


def worker(name: str, times: list[float], seeks: dict[Rules, int]) -> Listing:
    """A worker's listing, newest first, with ``len(times) * 2`` of each in all."""
    newest = sorted(times, reverse=True)
    rooms = [room(f"{name}{at:g}", at) for at in newest]
    games = [game(f"{name}{at:g}", at) for at in newest]
    return Listing(len(times), seeks, rooms, 2 * len(times), games, 2 * len(times))


def test_merged_workers_list_the_newest_of_them_all_and_sum_the_rest() -> None:
    one = worker("a", [float(n) for n in range(0, 160, 2)], {MIRROR: 1})
    two = worker("b", [float(n) for n in range(1, 160, 2)], {MIRROR: 2, Rules(): 1})
    merged = merge([one, two])
    assert [r.at for r in merged.rooms] == [float(n) for n in range(159, 59, -1)]
    assert [g.at for g in merged.games] == [r.at for r in merged.rooms]
    assert len(merged.rooms) == len(merged.games) == LIST_CAP
    assert (merged.online, merged.rooms_total, merged.games_total) == (160, 320, 320)
    assert merged.seeks == {MIRROR: 3, Rules(): 1}
    snapshot = merged.snapshot()
    assert snapshot.seeking == 4
    assert [(seek.rules, seek.count) for seek in snapshot.seeks] == [(MIRROR, 3), (Rules(), 1)]
    assert snapshot.rooms[0].code == "b159"


def test_a_listing_survives_its_json_and_moves_onto_another_clock() -> None:
    listing = worker("w", [1.5, 0.25], {Rules(redeals=1, time_limit_s=60): 2})
    assert Listing.from_json(listing.to_json()) == listing
    moved = listing.shifted(1000.0)
    assert [r.at for r in moved.rooms] == [1001.5, 1000.25]
    assert [g.info for g in moved.games] == [g.info for g in listing.games]


def test_an_empty_lobby_lists_nothing() -> None:
    snapshot = merge([]).snapshot()
    assert (snapshot.online, snapshot.seeking, snapshot.seeks) == (0, 0, [])
    assert (snapshot.rooms, snapshot.rooms_total, snapshot.games_total) == ([], 0, 0)
