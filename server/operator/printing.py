"""What ``flowergarden-admin`` prints: the admin API's answers in words, for a person.

Each answer is the model the API gives (server/http/models.py); ``--json``
prints that model's JSON instead, for a script.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.http.models import (
    AnnulAnswer,
    LogAnswer,
    PlayerReview,
    PlayerStanding,
    RaceReview,
    ReviewAnswer,
    TimingEvidence,
)

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["printed"]

_DONE = {
    "ban": "banned",
    "unban": "no longer banned",
    "forget": "forgotten: the name is free, the token no longer works",
    "bot": "marked a bot",
    "clear": "cleared of flags and reports",
    "rename": "is the new name",
}


def printed(command: str, answer: BaseModel) -> str:
    """``answer`` to ``command`` in words."""
    if isinstance(answer, PlayerStanding):
        return f"{answer.name}: {_DONE[command]}. Now: {_standing(answer)}."
    if isinstance(answer, AnnulAnswer):
        moves = "; ".join(f"{r.name} {r.before} -> {r.after}" for r in answer.ratings)
        return f"race {answer.game_id} annulled: {moves}."
    if isinstance(answer, ReviewAnswer):
        return _review(answer)
    if isinstance(answer, PlayerReview):
        return _player(answer)
    if isinstance(answer, RaceReview):
        return _race(answer)
    if isinstance(answer, LogAnswer):
        return _log(answer)
    return answer.model_dump_json(indent=2)  # pragma: no cover - every answer is above


def _standing(player: PlayerStanding) -> str:
    words = [
        "banned" if player.banned else "not banned",
        "a bot" if player.bot else "not a bot",
        f"{player.flags} flag{'' if player.flags == 1 else 's'}",
    ]
    if player.forgotten:
        words.append("forgotten")
    return ", ".join(words)


def _review(answer: ReviewAnswer) -> str:
    if not answer.players:
        return "Nobody is flagged or reported."
    lines = [f"{'NAME':<20} {'FLAGS':>5} {'REPORTS':>7} {'BANNED':<6} RACES"]
    for line in answer.players:
        races = " ".join(line.races)
        banned = "yes" if line.banned else "no"
        lines.append(f"{line.name:<20} {line.flags:>5} {line.reports:>7} {banned:<6} {races}")
    return "\n".join(lines)


def _player(answer: PlayerReview) -> str:
    head = (
        f"{answer.name}: {'banned' if answer.banned else 'not banned'},"
        f" {'a bot' if answer.bot else 'not a bot'}, {answer.flags} flags and"
        f" {answer.reports} reports not cleared"
    )
    lines = [head]
    for mark in answer.marks:
        who = "flagged" if mark.kind == "flag" else f"reported by {mark.by}"
        cleared = " (cleared)" if mark.cleared else ""
        why = f": {mark.reason}" if mark.reason else ""
        lines.append(f"  {mark.at} race {mark.game_id} {who}{cleared}{why}")
        if mark.timing is not None:
            lines.append(f"    {_timing(mark.timing)}")
    if not answer.marks:
        lines.append("  no race points at them")
    return "\n".join(lines)


def _race(answer: RaceReview) -> str:
    race = answer.race
    lines = [
        f"race {race.game_id}, ended {race.ended}: {' v '.join(race.players)},"
        f" {race.result} ({race.reason}), counts {race.counts[0]}-{race.counts[1]}"
    ]
    if answer.unrated is not None:
        lines.append(f"  unrated: {answer.unrated}")
    if answer.annulled:
        lines.append("  annulled: its rating change was reversed")
    for name, seat in zip(race.players, answer.timing, strict=True):
        lines.append(f"  {name}: {'not judged' if seat is None else _timing(seat)}")
    for report in answer.reports:
        why = f": {report.reason}" if report.reason else ""
        lines.append(f"  reported by {report.by} ({report.about}) at {report.at}{why}")
    return "\n".join(lines)


def _timing(seat: TimingEvidence) -> str:
    spread = "-" if seat.reaction_spread is None else f"{seat.reaction_spread:.3f}"
    gaps = "-" if seat.gap_spread is None else f"{seat.gap_spread:.3f}"
    flagged = f"FLAGGED ({', '.join(seat.reasons)})" if seat.reasons else "not flagged"
    return (
        f"{flagged}; {seat.plays} plays, {seat.fast} under 50 ms, fastest"
        f" {seat.fastest_ms} ms, median {seat.median_ms} ms, spreads {spread} / {gaps}"
    )


def _log(answer: LogAnswer) -> str:
    if not answer.actions:
        return "The audit log is empty."
    lines = []
    for entry in answer.actions:
        detail = f" ({entry.detail})" if entry.detail else ""
        lines.append(
            f"{entry.at} {entry.action} {entry.target}{detail} by {entry.by}: {entry.reason}"
        )
    return "\n".join(lines)
