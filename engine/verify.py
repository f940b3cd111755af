"""Checking a finished race from its record: the seeds, the deal, every move, the result.

A record is the JSON of ``GET /api/races/GAME_ID`` as a plain dict. It is read
into plain values first, and a record that does not read (a field missing, a
card code that is no card, a seat that is not 0 or 1) fails as a whole, saying
where. Then each check gives one line of the :class:`Verdict`: passed, failed
with the reason, or not checkable and why.

* ``commits``: each seed's SHA-256 is the commit ``game_start`` announced.
* ``mirror`` (mirror races only): both seats have the same seed.
* ``board 0``, ``board 1``: the board as dealt is what its seed deals.
* ``moves``: replayed in seq order on the seeds' layouts, each is legal when it
  comes, and each redeal deals from that seat's seed.
* ``counts``, ``times``: the replay's final counts, and each seat's last card's
  ``t_ms``, are the recorded ones.
* ``result``: the winner and reason follow from the counts (``cleared``,
  ``most_cards``, ``equal_cards``, ``first_to_count``); ``resigned``,
  ``abandoned``, ``time`` and ``aborted`` are the server's word, which the moves
  cannot prove, though the result must still fit them.

The checks replay on the layouts the seeds deal, not on the recorded boards,
so a tampered board fails its own check and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple, Protocol

from .board import Board
from .dealing import ALGORITHM, LEGACY_ALGORITHM, SeedDealer
from .errors import IllegalRedeal
from .record import MalformedRecord, read_board, read_pair, read_record, read_seed, read_str

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .cards import Card
    from .deal import Layout
    from .dealing import Dealer
    from .record import RaceRecord, RecordedMove

__all__ = ["Check", "LayoutLike", "Outcome", "Verdict", "check_deal", "verify_record"]

Outcome = Literal["passed", "failed", "not checkable"]
PASSED: Outcome = "passed"
FAILED: Outcome = "failed"
UNCHECKABLE: Outcome = "not checkable"
_MARKS = {PASSED: "ok  ", FAILED: "FAIL", UNCHECKABLE: "--  "}


class Check(NamedTuple):
    """One line of a verdict."""

    name: str
    outcome: Outcome
    detail: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """The checks made of one race; verified when none failed."""

    checks: tuple[Check, ...]
    subject: str = "the race"

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(check.outcome != FAILED for check in self.checks)

    def report(self) -> str:
        """One line a check, then the conclusion."""
        width = max((len(check.name) for check in self.checks), default=0)
        lines = [f"{_MARKS[c.outcome]} {c.name:<{width}}  {c.detail}" for c in self.checks]
        failed = sum(check.outcome == FAILED for check in self.checks)
        if self.ok:
            lines.append(f"{self.subject}: verified")
        else:
            lines.append(f"{self.subject}: NOT verified ({failed} of {len(self.checks)} failed)")
        return "\n".join(lines)


class LayoutLike(Protocol):
    """Anything with a layout's beds and bouquet: a :class:`Layout`, a wire board."""

    @property
    def beds(self) -> Sequence[Sequence[object]]: ...

    @property
    def bouquet(self) -> Sequence[object]: ...


# -- the entry points ----------------------------------------------------------


def verify_record(record: Mapping[str, object]) -> Verdict:
    """Every check of a race record (``GET /api/races/GAME_ID``'s JSON, as a dict)."""
    game_id = record.get("game_id") if isinstance(record, Mapping) else None
    subject = f"race {game_id}" if isinstance(game_id, str) else "the race"
    try:
        rec = read_record(record)
    except MalformedRecord as exc:
        return Verdict((Check("record", FAILED, str(exc)),), subject)
    layouts = [dealer.layout(rec.rules.winnable) for dealer in rec.dealers]
    checks = [_check_commits(rec.dealers, rec.commits)]
    if rec.rules.mirror:
        checks.append(_check_mirror(rec.dealers))
    checks += [_check_board(seat, rec.boards[seat], layouts[seat]) for seat in (0, 1)]
    moves, boards = _check_moves(rec, layouts)
    checks += [moves, _check_counts(rec, boards), _check_times(rec), _check_result(rec)]
    return Verdict(tuple(checks), subject)


def check_deal(
    *,
    winnable: bool,
    seeds: Sequence[str],
    commits: Sequence[str],
    boards: Sequence[LayoutLike | Mapping[str, object]],
) -> Verdict:
    """The deal's checks alone: what a player can check when ``game_over`` reveals the seeds.

    ``commits`` and ``boards`` are ``game_start``'s, ``seeds`` ``game_over``'s.
    """
    try:
        dealers = read_pair(seeds, "seeds", read_seed)
        commitments = read_pair(commits, "commits", read_str)
        recorded = read_pair(boards, "boards", read_board)
    except MalformedRecord as exc:
        return Verdict((Check("deal", FAILED, str(exc)),), "the deal")
    checks = [_check_commits(dealers, commitments)]
    for seat in (0, 1):
        checks.append(_check_board(seat, recorded[seat], dealers[seat].layout(winnable)))
    return Verdict(tuple(checks), "the deal")


# -- the checks ----------------------------------------------------------------


def _check_commits(dealers: Sequence[Dealer], commits: Sequence[str] | None) -> Check:
    seeded = [dealer for dealer in dealers if isinstance(dealer, SeedDealer)]
    if len(seeded) != len(dealers):
        return Check("commits", UNCHECKABLE, f"{LEGACY_ALGORITHM} races committed to nothing")
    if commits is None:
        return Check("commits", FAILED, f"a {ALGORITHM} race must record its commits")
    for seat, (dealer, promised) in enumerate(zip(seeded, commits, strict=True)):
        if dealer.commit != promised.lower():
            detail = f"seat {seat}'s seed hashes to {dealer.commit}, not {promised}"
            return Check("commits", FAILED, detail)
    return Check("commits", PASSED, "each seed's SHA-256 is its commit")


def _check_mirror(dealers: Sequence[Dealer]) -> Check:
    if dealers[0] != dealers[1]:
        return Check("mirror", FAILED, "a mirror race, but the seats' seeds differ")
    return Check("mirror", PASSED, "both seats have the same seed")


def _check_board(seat: int, recorded: Layout, dealt: Layout) -> Check:
    parts = [(f"beds[{bed}]", got, dealt.beds[bed]) for bed, got in enumerate(recorded.beds)]
    parts.append(("the bouquet", recorded.bouquet, dealt.bouquet))
    for where, got, want in parts:
        if got != want:
            detail = f"{where} is {_codes(got)}; the seed deals {_codes(want)}"
            return Check(f"board {seat}", FAILED, detail)
    return Check(f"board {seat}", PASSED, "as dealt, it is what its seed deals")


def _check_moves(rec: RaceRecord, layouts: Sequence[Layout]) -> tuple[Check, list[Board] | None]:
    """Replay the moves; the boards at the end, or None if a move was out of order or illegal."""
    boards = [Board(layout, rec.rules.redeals) for layout in layouts]
    last_seq: int | None = None
    last_t: list[int | None] = [None, None]
    for move in rec.moves:
        before = last_t[move.seat]
        if last_seq is not None and move.seq <= last_seq:
            fault: str | None = f"out of order: it comes after seq {last_seq}"
        elif before is not None and move.t_ms < before:
            fault = f"t_ms {move.t_ms} is before this seat's previous move's, {before}"
        else:
            fault = _apply(boards[move.seat], move, rec.dealers[move.seat])
        if fault is not None:
            what = "redeal" if move.card is None else str(move.card)
            detail = f"seq {move.seq} (seat {move.seat}, {what}): {fault}"
            return Check("moves", FAILED, detail), None
        last_seq, last_t[move.seat] = move.seq, move.t_ms
    plural = "move" if len(rec.moves) == 1 else "moves"
    return Check("moves", PASSED, f"{len(rec.moves)} {plural}, each legal in seq order"), boards


def _apply(board: Board, move: RecordedMove, dealer: Dealer) -> str | None:
    """Make the move on ``board``; None if it was legal, else why not."""
    if move.card is None:
        try:
            board.redeal(dealer.redeal)
        except IllegalRedeal as exc:
            return str(exc)
        return None
    reason = board.why_illegal(move.card)
    if reason is None:
        board.play(move.card)
    return reason


def _check_counts(rec: RaceRecord, boards: Sequence[Board] | None) -> Check:
    if boards is None:
        return Check("counts", UNCHECKABLE, "the moves do not replay")
    replayed = tuple(board.count for board in boards)
    if replayed != rec.counts:
        detail = f"recorded {_pair(rec.counts)}, the moves make {_pair(replayed)}"
        return Check("counts", FAILED, detail)
    return Check("counts", PASSED, f"{_pair(replayed)}, as the moves make them")


def _check_times(rec: RaceRecord) -> Check:
    last = _last_cards(rec.moves)
    expected = tuple(None if move is None else move.t_ms for move in last)
    if expected != rec.times:
        detail = f"recorded {_pair(rec.times)}, the last cards' t_ms are {_pair(expected)}"
        return Check("times", FAILED, detail)
    return Check("times", PASSED, "each seat's time is its last card's t_ms")


def _check_result(rec: RaceRecord) -> Check:
    said = _outcome(rec.winner, rec.reason)
    fault = _result_fault(rec)
    if fault is not None:
        return Check("result", FAILED, f"{said}, but {fault}")
    if rec.reason in ("resigned", "abandoned", "time", "aborted"):
        why = "the server's word, which the moves cannot prove (the result fits it)"
        return Check("result", UNCHECKABLE, f"{said}: {why}")
    return Check("result", PASSED, f"{said}, as the counts give")


def _result_fault(rec: RaceRecord) -> str | None:
    """Why the result cannot follow from the record, or None if it can."""
    reason, winner = rec.reason, rec.winner
    if (rec.result == "win") != (winner is not None):
        return f"the result is {rec.result!r}"
    if reason == "cleared":
        return None if winner is not None and rec.counts[winner] == 52 else "no 52 cards"
    if 52 in rec.counts:  # clearing ends the race at once, whatever else was to come
        return f"seat {rec.counts.index(52)} cleared"
    if reason in ("resigned", "abandoned"):
        return None if winner is not None else "that is a win for the other seat"
    if reason == "aborted":
        return None if winner is None else "an aborted race is a draw"
    if reason == "time" and rec.rules.time_limit is None:
        return "the race had no time limit"
    seqs = tuple(0 if move is None else move.seq for move in _last_cards(rec.moves))
    expected = _by_counts(rec.counts, seqs, rec.rules.tiebreak)
    if reason == "time":
        expected = (expected[0], "time")
    if (winner, reason) != expected:
        return f"counts {_pair(rec.counts)} give {_outcome(*expected)}"
    return None


def _by_counts(counts: Sequence[int], seqs: Sequence[int], tiebreak: str) -> tuple[int | None, str]:
    """PROTOCOL.md's comparison: more cards wins, equal counts draw or go to the first."""
    if counts[0] != counts[1]:
        return (0 if counts[0] > counts[1] else 1), "most_cards"
    if tiebreak == "first" and counts[0] > 0:
        return (0 if seqs[0] < seqs[1] else 1), "first_to_count"
    return None, "equal_cards"


def _last_cards(moves: Sequence[RecordedMove]) -> tuple[RecordedMove | None, ...]:
    last: list[RecordedMove | None] = [None, None]
    for move in moves:
        if move.card is not None:
            last[move.seat] = move
    return tuple(last)


def _outcome(winner: int | None, reason: str) -> str:
    return f"{'a draw' if winner is None else f'seat {winner} wins'} by {reason}"


def _codes(cards: Sequence[Card]) -> str:
    return "[" + " ".join(map(str, cards)) + "]"


def _pair(values: Sequence[object]) -> str:
    return " and ".join("null" if value is None else str(value) for value in values)
