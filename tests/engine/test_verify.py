"""Verifying race records: real races played with the engine, then tampered one thing at a time."""

from __future__ import annotations

import copy
import hashlib
import io
import json
from typing import TYPE_CHECKING, Any

import pytest

from engine import (
    Board,
    Card,
    LegacyDealer,
    SeedDealer,
    Status,
    Verdict,
    check_deal,
    final_count,
    verify_record,
)
from engine.__main__ import main

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from engine import Dealer, Layout

Record = dict[str, Any]
"""A race record as JSON gives it."""


def seed_of(i: int) -> bytes:
    return hashlib.sha256(b"verify seed %d" % i).digest()


def board_json(layout: Layout) -> dict[str, object]:
    """A board as the wire has it (its other fields, which the verifier ignores, too)."""
    return {
        "beds": [[str(card) for card in bed] for bed in layout.beds],
        "bouquet": [str(card) for card in layout.bouquet],
        "foundations": {"S": 0, "H": 0, "D": 0, "C": 0},
        "count": 0,
        "status": "playing",
        "redeals_left": 0,
    }


def play(
    dealers: Sequence[Dealer],
    *,
    winnable: bool = True,
    redeals: int = 0,
    tiebreak: str = "draw",
    mirror: bool = False,
) -> Record:
    """A race as the server would record it: both seats play greedily, turn about, seat 0 first.

    A stuck seat redeals; the race ends when a seat clears or neither can move,
    and is decided as PROTOCOL.md says.
    """
    layouts = [dealer.layout(winnable) for dealer in dealers]
    boards = [Board(layout, redeals) for layout in layouts]
    moves: list[dict[str, object]] = []
    last: list[Record | None] = [None, None]
    while all(board.status is not Status.CLEARED for board in boards):
        moved = False
        for seat, board in enumerate(boards):
            if any(board.status is Status.CLEARED for board in boards):
                break  # clearing ends the race at once
            card: Card | str | None = None
            if board.status is Status.STUCK:
                board.redeal(dealers[seat].redeal)
                card = "redeal"
            elif board.status is Status.PLAYING:
                card = board.legal_plays()[0]
                board.play(card)
            if card is not None:
                seq = len(moves) + 1
                moves.append({"seq": seq, "seat": seat, "card": str(card), "t_ms": 250 * seq})
                if card != "redeal":
                    last[seat] = moves[-1]
                moved = True
        if not moved:
            break
    counts = [board.count for board in boards]
    winner, reason = decide(counts, last, tiebreak)
    return {
        "game_id": "0123456789abcdef",
        "players": ["ann", "bob"],
        "rules": {
            "deal": "mirror" if mirror else "independent",
            "winnable_only": winnable,
            "redeals": redeals,
            "tiebreak": tiebreak,
            "time_limit_s": None,
            "rated": True,
        },
        "result": "draw" if winner is None else "win",
        "winner": winner,
        "reason": reason,
        "counts": counts,
        "times_ms": [None if move is None else move["t_ms"] for move in last],
        "seeds": [dealer.seed.hex() for dealer in dealers if isinstance(dealer, SeedDealer)],
        "commits": [dealer.commit for dealer in dealers if isinstance(dealer, SeedDealer)],
        "boards": [board_json(layout) for layout in layouts],
        "moves": moves,
        "dealing": dealers[0].algorithm,
    }


def decide(counts: list[int], last: list[Record | None], tiebreak: str) -> tuple[int | None, str]:
    if 52 in counts:
        return counts.index(52), "cleared"
    if counts[0] != counts[1]:
        return (0 if counts[0] > counts[1] else 1), "most_cards"
    if tiebreak == "first" and counts[0] > 0:
        seqs = [0 if move is None else move["seq"] for move in last]
        return (0 if seqs[0] < seqs[1] else 1), "first_to_count"
    return None, "equal_cards"


def outcome(verdict: Verdict, name: str) -> str:
    [check] = [check for check in verdict.checks if check.name == name]
    return check.outcome


def failed(verdict: Verdict) -> list[str]:
    return [check.name for check in verdict.checks if check.outcome == "failed"]


def a_seed_with_count(wanted: Callable[[int], bool], start: int = 0) -> bytes:
    """The first test seed from ``start`` whose classic layout's final count is wanted."""
    i = start
    while not wanted(final_count(SeedDealer(seed_of(i)).layout(winnable=False))):
        i += 1
    return seed_of(i)


@pytest.fixture(scope="module")
def cleared() -> Record:
    """Winnable deals: seat 0 clears first (it plays first), seat 1 has 51 cards."""
    return play([SeedDealer(seed_of(1)), SeedDealer(seed_of(2))])


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


# -- the command line ----------------------------------------------------------


def write(tmp_path: Path, record: object) -> str:
    path = tmp_path / "race.json"
    path.write_text(json.dumps(record))
    return str(path)


def test_cli_verifies(cleared: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", write(tmp_path, cleared)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "race 0123456789abcdef: verified"
    assert "commits" in out and "moves" in out


def test_cli_fails_a_tampered_record(
    cleared: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = copy.deepcopy(cleared)
    record["counts"] = [52, 52]
    assert main(["verify", write(tmp_path, record)]) == 1
    out = capsys.readouterr().out
    assert "FAIL counts" in out
    assert "NOT verified (1 of 7 failed)" in out


def test_cli_reads_stdin(
    cleared: Record, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(cleared)))
    assert main(["verify", "-"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("verified")


@pytest.mark.parametrize(
    ("content", "says"),
    [(None, "cannot read"), ("{not json", "is not JSON"), (b"\xff\xfe\x00", "is not JSON")],
)
def test_cli_unreadable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes | None, says: str
) -> None:
    path = tmp_path / "race.json"
    if isinstance(content, str):
        path.write_text(content)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    assert main(["verify", str(path)]) == 2
    captured = capsys.readouterr()
    assert says in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert "Traceback" not in captured.err and captured.out == ""


def test_cli_a_json_that_is_no_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", write(tmp_path, [1, 2])]) == 1
    assert "record" in capsys.readouterr().out


def test_cli_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["verify", "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "FILE" in out and "stdin" in out and "GET /api/races/GAME_ID" in out
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "verify" in capsys.readouterr().out
