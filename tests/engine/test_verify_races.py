"""Real races played with the engine verify, whatever their rules and dealing; and
``check_deal``, what a player checks at ``game_over``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import LegacyDealer, SeedDealer, check_deal, final_count, verify_record

from .verify_helpers import Record, failed, outcome, play, seed_of

if TYPE_CHECKING:
    from collections.abc import Callable


def a_seed_with_count(wanted: Callable[[int], bool], start: int = 0) -> bytes:
    """The first test seed from ``start`` whose classic layout's final count is wanted."""
    i = start
    while not wanted(final_count(SeedDealer(seed_of(i)).layout(winnable=False))):
        i += 1
    return seed_of(i)


# -- real races verify ---------------------------------------------------------


def test_a_cleared_race_verifies(cleared: Record) -> None:
    assert (cleared["winner"], cleared["reason"], cleared["counts"]) == (0, "cleared", [52, 51])
    verdict = verify_record(cleared)
    assert verdict.ok, verdict.report()
    names = [check.name for check in verdict.checks]
    assert names == ["commits", "board 0", "board 1", "moves", "counts", "times", "result"]
    assert all(check.outcome == "passed" for check in verdict.checks)
    assert verdict.report().splitlines()[-1] == "race 0123456789abcdef: verified"


def test_a_race_with_redeals_verifies() -> None:
    record = play([SeedDealer(seed_of(3)), SeedDealer(seed_of(4))], winnable=False, redeals=1)
    assert [move["card"] for move in record["moves"]].count("redeal") == 2
    assert record["reason"] in ("most_cards", "equal_cards")
    verdict = verify_record(record)
    assert verdict.ok, verdict.report()


def test_a_mirror_race_with_the_first_tiebreak_verifies() -> None:
    dealer = SeedDealer(a_seed_with_count(lambda count: count > 0))
    record = play([dealer, dealer], winnable=False, tiebreak="first", mirror=True)
    assert (record["winner"], record["reason"]) == (0, "first_to_count")
    verdict = verify_record(record)
    assert verdict.ok, verdict.report()
    assert outcome(verdict, "mirror") == "passed"
    record["winner"] = 1
    assert failed(verify_record(record)) == ["result"]


def test_equal_cards_is_a_draw() -> None:
    dealer = SeedDealer(a_seed_with_count(lambda count: count > 0))
    record = play([dealer, dealer], winnable=False, mirror=True)
    assert (record["result"], record["reason"]) == ("draw", "equal_cards")
    assert verify_record(record).ok
    record["rules"]["tiebreak"] = "first"
    assert failed(verify_record(record)) == ["result"]  # first_to_count, then


def test_no_card_at_all_has_no_time() -> None:
    dealer = SeedDealer(a_seed_with_count(lambda count: count == 0))
    record = play([dealer, dealer], winnable=False, tiebreak="first", mirror=True)
    assert (record["moves"], record["times_ms"], record["reason"]) == (
        [],
        [None, None],
        "equal_cards",
    )
    assert verify_record(record).ok


def test_a_legacy_race_verifies_without_commits() -> None:
    dealers = [LegacyDealer(11, 12), LegacyDealer(13, 14)]
    record = play(dealers, winnable=False, redeals=1)
    record.update(seeds=[11, 13, 12, 14], commits=None, dealing="mt19937")
    verdict = verify_record(record)
    assert verdict.ok, verdict.report()
    assert outcome(verdict, "commits") == "not checkable"
    record["seeds"] = [11, 13, 14, 12]  # the redeal seeds swapped
    assert "moves" in failed(verify_record(record))


def test_dealing_defaults_to_sha256(cleared: Record) -> None:
    record = dict(cleared)
    del record["dealing"]
    assert verify_record(record).ok


# -- check_deal: what a player checks at game_over ------------------------------


def test_check_deal(cleared: Record) -> None:
    deal = {"winnable": True, "seeds": cleared["seeds"], "commits": cleared["commits"]}
    verdict = check_deal(**deal, boards=cleared["boards"])
    assert verdict.ok, verdict.report()
    assert [check.name for check in verdict.checks] == ["commits", "board 0", "board 1"]
    layouts = [SeedDealer(seed_of(i)).layout(winnable=True) for i in (1, 2)]
    assert check_deal(**deal, boards=layouts).ok
    assert failed(check_deal(**deal, boards=layouts[::-1])) == ["board 0", "board 1"]
    wrong = check_deal(**{**deal, "winnable": False}, boards=layouts)
    assert failed(wrong) == ["board 0", "board 1"]
    bad = check_deal(**{**deal, "seeds": ["nope", "nope"]}, boards=layouts)
    assert failed(bad) == ["deal"]
    assert "seeds[0]: a seed is 64 hex digits, not 4" in bad.report()
