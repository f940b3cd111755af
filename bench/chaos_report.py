"""The report of ``make chaos`` (:mod:`bench.chaos`): a line per fault, the tables, the JSON."""

from __future__ import annotations

import dataclasses
import json
import re
import statistics
from collections import Counter
from typing import TYPE_CHECKING, Any

from server.cluster.shared import LEASE

from .chaos_faults import KINDS, recovery

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from .chaos_check import Verdict
    from .chaos_faults import Fault
    from .chaos_racers import Racer

__all__ = ["complaints", "markdown", "progress", "summary", "tables"]

COMMAND = "python -m bench.chaos"
RECOVERY_TARGET = LEASE + 1.0
"""Seconds from a worker's death to its races' players being told of them again, at most."""
_NAMES = {
    "stop": "worker SIGSTOPped past the lease, then SIGCONT",
    "kill": "worker killed (kill -9), started again 0.5 s later",
    "cut": "worker cut off from Redis, then let back",
    "redis": "Redis restarted, empty",
    "postgres": "PostgreSQL stopped 10 s (pg_ctl stop -m fast)",
}
_SHOWN = 8
"""Findings listed in full for each kind; the rest are counted."""


def progress(number: int, fault: Fault, racing: int) -> str:
    """One line on stderr as each fault ends."""
    verdict = fault.verdict
    found = {} if verdict is None else {k: len(v) for k, v in verdict.problems().items()}
    owned = len(fault.owned & fault.affected.keys())
    return (
        f"  {number:3} {fault.kind:8} {fault.victim or '-':3} {fault.lasted:5.1f} s"
        f"  touched {len(fault.affected):3} races ({owned} its own)"
        f"  racing now {racing:3}"
        f"  checker: {found or 'nothing found'}"
    )


def complaints(logs: Iterable[Path]) -> Counter[str]:
    """The workers' WARNING and ERROR lines, counted by what they say (ids and numbers as N)."""
    found: Counter[str] = Counter()
    for path in logs:
        for line in path.read_text(errors="replace").splitlines():
            words = line.split(" ", 4)
            if len(words) == 5 and words[2] in ("WARNING", "ERROR"):
                what = words[4].partition(": ")[2] or words[4]
                what = re.sub(r"\b[0-9a-f]{16}\b", "ID", what)
                what = re.sub(r"\bw\d\b", "wN", re.sub(r"\d+(\.\d+)?", "N", what))
                found[f"{words[2]} {what[:100]}"] += 1
    return found


def _seconds(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.2f} / {max(values):.2f}"


def _recovered(faults: list[Fault], kind: str) -> tuple[list[float], int]:
    """Every race's recovery after the faults of ``kind``; and how many never recovered."""
    times = [t for fault in faults if fault.kind == kind for t in recovery(fault).values()]
    return [t for t in times if t is not None], sum(t is None for t in times)


def _row(cells: Iterable[object]) -> str:
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def _table(head: list[str], rows: list[list[object]]) -> str:
    return "\n".join([_row(head), _row(["---"] * len(head)), *map(_row, rows)])


def _games(items: list[str]) -> int:
    return len({item.split(" ", 1)[0].split(":", 1)[0] for item in items})


def _outcome(found: dict[str, Any]) -> str:
    verdict: Verdict = found["verdict"]
    kills, lost = _recovered(found["faults"], "kill")
    worst = max(kills, default=0.0)
    finished = sum(verdict.reasons.values())
    reasons = ", ".join(f"{reason} {count}" for reason, count in verdict.reasons.most_common())
    rows: list[list[object]] = [
        ["races", verdict.races, "-"],
        ["races finished", f"{finished} ({reasons or 'none'})", f"all {verdict.races}"],
        ["races not finished at the end", len(verdict.unfinished), 0],
        ["races with diverging results", _games(verdict.diverging), 0],
        ["plays (events) announced but not recorded", len(verdict.unrecorded), 0],
        ["seq gaps not covered by a game_state on coming back", len(verdict.gaps), 0],
        ["races abandoned because of a fault", len(verdict.abandoned), 0],
        ["recovery after a kill, p50 / max s", _seconds(kills), f"max <= {RECOVERY_TARGET:.1f}"],
        ["races never told of again after a kill", lost, 0],
    ]
    met = (
        not verdict.problems() and worst <= RECOVERY_TARGET and not lost and finished > 0
    ) and not found["cut"]
    return _table(["", "measured", "target"], rows) + (
        "\n\nEvery target met." if met else "\n\nNot every target met: see the findings below."
    )


def _faults(faults: list[Fault]) -> str:
    rows: list[list[object]] = []
    for kind in KINDS:
        done = [fault for fault in faults if fault.kind == kind]
        lasted = statistics.mean(f.lasted for f in done) if done else 0.0
        checked = sum(1 for f in done if f.verdict is not None and f.verdict.problems())
        times, lost = _recovered(faults, kind)
        back = _seconds(times) if kind in ("stop", "kill", "cut") else "-"
        touched = sum(len(f.affected) for f in done)
        rows.append([_NAMES[kind], len(done), f"{lasted:.1f}", touched, back, lost, checked])
    head = ["fault", "done", "mean s", "races touched", "back p50 / max s", "never", "checks"]
    return _table(head, rows)


def _racers(racers: list[Racer], cut: list[str]) -> str:
    sessions = sum(len(racer.sessions) for racer in racers)
    notes = Counter(re.sub(r"^[0-9a-f]{16}: ", "", n) for r in racers for n in r.notes)
    lines = [
        f"- {len(racers)} racers opened {sessions:,} connections and saw "
        f"{sum(len(r.finished) for r in racers):,} races end;",
        f"- `unavailable` answers (a race held, or not reachable for a moment): "
        f"{sum(r.unavailable for r in racers):,}; seeks made again after "
        f"20 s without a match: {sum(r.reseeks for r in racers):,};",
        f"- racers still in a race when the run gave up waiting: {len(cut)}.",
    ]
    lines += [f"- noted by the racers, {count} times: {what}" for what, count in notes.items()]
    return "\n".join(lines)


def _findings(verdict: Verdict, faults: list[Fault]) -> str:
    parts = []
    for name, items in verdict.problems().items():
        listed = "\n".join(f"  - {item}" for item in items[:_SHOWN])
        more = f"\n  - and {len(items) - _SHOWN} more" if len(items) > _SHOWN else ""
        parts.append(f"- {name} ({len(items)}):\n{listed}{more}")
    during = [f for f in faults if f.verdict is not None and f.verdict.problems()]
    if during:
        parts.append(f"- checks after a fault that found something: {len(during)}")
    return (
        "\n".join(parts) if parts else "The checker found nothing, after any fault or at the end."
    )


def tables(found: dict[str, Any]) -> str:
    plan, verdict = found["plan"], found["verdict"]
    logged = "\n".join(
        f"- {count} times: `{what}`" for what, count in found["complaints"].most_common(15)
    )
    return "\n\n".join(
        [
            f"Three workers, {plan.races} races at once ({2 * plan.races} racers on quick match,"
            f" mirror + winnable, {plan.pace.low}-{plan.pace.high} s a card), {plan.each} faults"
            f" of each kind over {found['faulted_s'] / 60:.1f} minutes, one at a time"
            f" {plan.gap_s[0]:.0f}-{plan.gap_s[1]:.0f} s apart; seed {plan.seed}; the whole run"
            f" took {found['seconds'] / 60:.1f} minutes.",
            "### What the checker found\n\n" + _outcome(found),
            "### The faults\n\n" + _faults(found["faults"]),
            "Back: for each race a fault touched (owned by the victim, or with a racer on it),"
            " seconds from the fault's start until both racers were told of the race again;"
            " never: races not told of again.",
            "### The racers\n\n" + _racers(found["racers"], found["cut"]),
            "### Findings\n\n" + _findings(verdict, found["faults"]),
            "### Logged by the workers (WARNING and above)\n\n" + (logged or "Nothing."),
        ]
    )


def markdown(tables: str) -> str:
    return (
        "# Several workers under faults\n\n"
        f"Written by `{COMMAND}` (`make chaos`); bench/README.md, "
        '"Faults", says how to read it.\n\n' + tables + "\n"
    )


def dump(racers: list[Racer], faults: list[Fault], path: Path) -> None:
    """Every racer's connections, notes and frames, and every fault, as JSON lines: what
    a finding is traced back with (times are the run's monotonic clock)."""
    with path.open("w") as out:
        for fault in faults:
            line = {"fault": fault.kind, "victim": fault.victim, "began": fault.began}
            out.write(json.dumps(line | {"ended": fault.ended}) + "\n")
        for racer in racers:
            sessions = [dataclasses.asdict(session) for session in racer.sessions]
            heard = [(frame.at, frame.session, frame.message) for frame in racer.heard]
            line = {"racer": racer.name, "sessions": sessions, "notes": racer.notes}
            out.write(json.dumps(line | {"heard": heard}) + "\n")


def summary(found: dict[str, Any]) -> dict[str, Any]:
    """The figures, flat, for the last line of output."""
    verdict: Verdict = found["verdict"]
    kills, lost = _recovered(found["faults"], "kill")
    return {
        "races": verdict.races,
        "finished": sum(verdict.reasons.values()),
        "reasons": dict(verdict.reasons),
        "unfinished": len(verdict.unfinished),
        "diverging": _games(verdict.diverging),
        "unrecorded": len(verdict.unrecorded),
        "gaps": len(verdict.gaps),
        "abandoned": len(verdict.abandoned),
        "kill_recovery_p50_s": round(statistics.median(kills), 3) if kills else None,
        "kill_recovery_max_s": round(max(kills), 3) if kills else None,
        "kill_never": lost,
        "faults": dict(Counter(fault.kind for fault in found["faults"])),
        "seconds": round(found["seconds"], 1),
    }
