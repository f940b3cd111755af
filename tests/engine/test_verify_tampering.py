"""Race records tampered with one thing at a time, or malformed, fail verification: the
check that fails says what and where."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import pytest

from engine import SeedDealer, Verdict, verify_record

from .verify_helpers import Record, failed, outcome, play, seed_of

if TYPE_CHECKING:
    from collections.abc import Callable


# -- tampering, one thing at a time --------------------------------------------


def tampered(record: Record, change: Callable[[Record], object]) -> Verdict:
    copied = copy.deepcopy(record)
    change(copied)
    return verify_record(copied)


def test_a_changed_seed_fails_its_commit(cleared: Record) -> None:
    def change(record: Record) -> None:
        seed = record["seeds"][0]
        record["seeds"][0] = ("1" if seed[0] != "1" else "2") + seed[1:]

    verdict = tampered(cleared, change)
    assert "commits" in failed(verdict)
    assert "board 0" in failed(verdict)  # and it deals something else


def test_a_changed_commit_fails_alone(cleared: Record) -> None:
    verdict = tampered(cleared, lambda r: r["commits"].__setitem__(1, "0" * 64))
    assert failed(verdict) == ["commits"]
    assert "seat 1's seed hashes to" in verdict.report()


def test_no_commits_fail_a_sha256_race(cleared: Record) -> None:
    assert failed(tampered(cleared, lambda r: r.update(commits=None))) == ["commits"]


def test_a_changed_board_card_fails_that_board(cleared: Record) -> None:
    def change(record: Record) -> None:
        bed = record["boards"][1]["beds"][2]
        bed[0], bed[1] = bed[1], bed[0]

    verdict = tampered(cleared, change)
    assert failed(verdict) == ["board 1"]
    assert "beds[2] is [" in verdict.report()


def test_a_changed_bouquet_fails_that_board(cleared: Record) -> None:
    verdict = tampered(cleared, lambda r: r["boards"][0]["bouquet"].reverse())
    assert failed(verdict) == ["board 0"]


def test_a_mirror_race_needs_one_seed(cleared: Record) -> None:
    verdict = tampered(cleared, lambda r: r["rules"].update(deal="mirror"))
    assert failed(verdict) == ["mirror"]


def test_moves_out_of_order_fail(cleared: Record) -> None:
    def change(record: Record) -> None:
        moves = record["moves"]
        moves[4], moves[5] = moves[5], moves[4]

    verdict = tampered(cleared, change)
    assert "moves" in failed(verdict)
    assert "out of order" in verdict.report()
    assert outcome(verdict, "counts") == "not checkable"


def test_a_seat_cannot_go_back_in_time(cleared: Record) -> None:
    verdict = tampered(cleared, lambda r: r["moves"][2].update(t_ms=0))
    assert failed(verdict) == ["moves"]
    assert "before this seat's previous move's" in verdict.report()


def test_an_illegal_card_fails_the_moves(cleared: Record) -> None:
    def change(record: Record) -> None:
        moves = record["moves"]
        moves[2]["card"] = moves[0]["card"]  # seat 0's first card again

    verdict = tampered(cleared, change)
    assert failed(verdict) == ["moves"]
    first = cleared["moves"][0]["card"]
    assert f"seq 3 (seat 0, {first}): {first} is already on its foundation" in verdict.report()


def test_a_buried_card_fails_the_moves(cleared: Record) -> None:
    bottom = cleared["boards"][0]["beds"][0][0]
    verdict = tampered(cleared, lambda r: r["moves"][0].update(card=bottom))
    assert failed(verdict) == ["moves"]
    assert f"seq 1 (seat 0, {bottom}): {bottom} is under 5 cards in bed 1" in verdict.report()


def test_a_redeal_needs_a_stuck_board(cleared: Record) -> None:
    cleared = copy.deepcopy(cleared)
    cleared["rules"]["redeals"] = 1
    verdict = tampered(cleared, lambda r: r["moves"][0].update(card="redeal"))
    assert "moves" in failed(verdict)
    assert "a redeal is only for a board with no play" in verdict.report()


def test_a_redeal_needs_one_left() -> None:
    record = play([SeedDealer(seed_of(3)), SeedDealer(seed_of(4))], winnable=False, redeals=1)
    record["rules"]["redeals"] = 0
    verdict = verify_record(record)
    assert "moves" in failed(verdict)
    assert "no redeal left" in verdict.report()


def test_changed_counts_fail(cleared: Record) -> None:
    verdict = tampered(cleared, lambda r: r.update(counts=[52, 50]))
    assert failed(verdict) == ["counts"]
    assert "recorded 52 and 50, the moves make 52 and 51" in verdict.report()


def test_changed_times_fail(cleared: Record) -> None:
    verdict = tampered(cleared, lambda r: r["times_ms"].__setitem__(1, 1))
    assert failed(verdict) == ["times"]


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"reason": "most_cards"}, "seat 0 cleared"),
        ({"reason": "equal_cards"}, "seat 0 cleared"),
        ({"winner": 1}, "no 52 cards"),
        ({"result": "draw"}, "the result is 'draw'"),
        ({"result": "draw", "winner": None, "reason": "aborted"}, "seat 0 cleared"),
        ({"reason": "time"}, "seat 0 cleared"),
    ],
)
def test_a_changed_result_fails(cleared: Record, changes: Record, says: str) -> None:
    verdict = tampered(cleared, lambda r: r.update(changes))
    assert failed(verdict) == ["result"]
    assert says in verdict.report()


def uncleared() -> Record:
    return play([SeedDealer(seed_of(3)), SeedDealer(seed_of(4))], winnable=False, redeals=1)


@pytest.mark.parametrize("reason", ["resigned", "abandoned"])
def test_leaving_is_the_servers_word(reason: str) -> None:
    record = uncleared()
    record.update(reason=reason, winner=1, result="win")
    verdict = verify_record(record)
    assert verdict.ok, verdict.report()
    assert outcome(verdict, "result") == "not checkable"
    assert outcome(verdict, "counts") == "passed"
    record.update(winner=None, result="draw")
    assert failed(verify_record(record)) == ["result"]


def test_an_aborted_race_is_a_draw() -> None:
    record = uncleared()
    record.update(reason="aborted", winner=None, result="draw")
    verdict = verify_record(record)
    assert verdict.ok and outcome(verdict, "result") == "not checkable"
    record.update(winner=0, result="win")
    assert failed(verify_record(record)) == ["result"]


def test_time_is_decided_by_the_counts() -> None:
    record = uncleared()
    assert record["reason"] == "most_cards"
    record["reason"] = "time"
    assert failed(verify_record(record)) == ["result"]  # no time limit: no time to run out
    record["rules"]["time_limit_s"] = 300
    verdict = verify_record(record)
    assert verdict.ok and outcome(verdict, "result") == "not checkable"
    record["winner"] = 1 - record["winner"]
    assert failed(verify_record(record)) == ["result"]


# -- malformed records ---------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda r: r.pop("moves"), "moves: missing"),
        (lambda r: r["rules"].pop("tiebreak"), "rules.tiebreak: missing"),
        (lambda r: r["moves"][3].update(card="ZZ"), "moves[3].card: not a card code"),
        (lambda r: r["moves"][3].update(seat=2), "moves[3].seat: 2 is not one of 0, 1"),
        (lambda r: r["moves"][3].update(seq="4"), "moves[3].seq: a whole number wanted"),
        (lambda r: r["moves"][3].update(t_ms=True), "moves[3].t_ms: a whole number wanted"),
        (lambda r: r.update(seeds=["00"]), "seeds: 2 items wanted, not 1"),
        (lambda r: r["seeds"].__setitem__(0, "xyz"), "seeds[0]: a seed is 64 hex digits"),
        (lambda r: r.update(counts="52,51"), "counts: a list wanted"),
        (lambda r: r["boards"][0].update(beds=[[]] * 5), "boards[0].beds: 6 items wanted"),
        (lambda r: r["boards"][1]["bouquet"].append(7), "boards[1].bouquet[16]: a string"),
        (lambda r: r.update(reason="bored"), "reason: 'bored' is not one of"),
        (lambda r: r.update(dealing="md5"), "dealing: 'md5' is neither"),
        (lambda r: r["rules"].update(redeals=True), "rules.redeals: a whole number wanted"),
        (lambda r: r.update(rules=[]), "rules: an object wanted, not list []"),
    ],
)
def test_a_malformed_record_fails_saying_where(
    cleared: Record, change: Callable[[Record], object], says: str
) -> None:
    verdict = tampered(cleared, change)
    assert not verdict.ok
    assert [(check.name, check.outcome) for check in verdict.checks] == [("record", "failed")]
    assert says in verdict.checks[0].detail


@pytest.mark.parametrize("record", [[], "race", None, 3, {}])
def test_not_a_record_at_all(record: object) -> None:
    verdict = verify_record(record)  # type: ignore[arg-type]  # what a JSON file may hold
    assert not verdict.ok
    assert verdict.checks[0].name == "record"


def test_an_empty_verdict_is_not_verified() -> None:
    assert not Verdict(()).ok
