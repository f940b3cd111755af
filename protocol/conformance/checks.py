"""``python -m protocol.conformance URL``: a server held to PROTOCOL.md, one line a check.

Theory of operation: :func:`run` opens its own clients on the server and goes
through the suites in order, each a script of requests and the replies the
contract promises: the session (:mod:`.session`: ``hello`` and ``welcome``,
every decoding error in its order, the limits ``welcome`` promises), races
(:mod:`.races`: two of its own clients seek and race to ``game_over``, the
deal verified from the revealed seeds; a room, a spectator, a player who drops
and comes back with the token, a rematch; revision 3's ``report``), and the
HTTP side (:mod:`.http_checks`). Each check is a :class:`Finding` in the
:class:`Tally`, printed as it is made: ``PASS`` or ``FAIL``, and ``[rev 3]``
before a check of what revision 3 added. A suite that stops short (a reply that
never comes, a closed connection) fails there and the next suite goes on; the
last check is that every frame read was a valid message. The last line is
``N passed, M failed``; the exit code is 0 only when nothing failed.

A run makes a few players with random names, finishes three short races and
leaves nothing behind but their records: it may be pointed at a public server.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from .wire import Closed, Log, Unexpected

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

__all__ = ["Context", "Finding", "Tally", "run"]


@dataclass(frozen=True)
class Finding:
    """One line of a report."""

    name: str
    passed: bool
    detail: str = ""
    revision: int = 2
    """The revision of PROTOCOL.md that added what this checks (2: everything before 3)."""

    def line(self) -> str:
        mark = "PASS" if self.passed else "FAIL"
        tag = f"[rev {self.revision}] " if self.revision > 2 else ""
        why = f" -- {self.detail}" if self.detail and not self.passed else ""
        return f"{mark} {tag}{self.name}{why}"


@dataclass
class Tally:
    """The checks of one run, printed to ``out`` (None: kept quiet) as they are made."""

    out: TextIO | None = None
    checks: list[Finding] = field(default_factory=list)
    log: Log = field(default_factory=Log)

    def check(self, name: str, passed: bool, detail: object = "", *, revision: int = 2) -> bool:
        made = Finding(name, passed, str(detail)[:300], revision)
        self.checks.append(made)
        if self.out is not None:
            print(made.line(), file=self.out, flush=True)
        return passed

    def failed(self, revision: int | None = None) -> list[Finding]:
        """The checks that failed (of one revision only, if given)."""
        return [c for c in self.checks if not c.passed and revision in (None, c.revision)]

    @property
    def ok(self) -> bool:
        return bool(self.checks) and not self.failed()

    def summary(self) -> str:
        failed = len(self.failed())
        return f"{len(self.checks) - failed} passed, {failed} failed"


@dataclass
class Context:
    """What the suites share: the URL, the report, and what earlier suites left."""

    url: str
    report: Tally
    racer: str | None = None
    """The name of a player who finished a race in this run."""
    finished: list[str] = field(default_factory=list)
    """Races this run finished, oldest first (the first is ``racer``'s)."""
    limits: dict[str, float] = field(default_factory=dict)
    """``welcome.limits`` as the session suite read it."""


async def run(url: str, out: TextIO | None = sys.stdout) -> Tally:
    """Check the server at ``url`` (``ws://HOST:PORT/ws``); the report."""
    from .http_checks import http_suite
    from .races import race_suite, room_suite
    from .session import errors_suite, limits_suite, session_suite

    report = Tally(out)
    context = Context(url, report)
    suites: list[tuple[str, Callable[[Context], Awaitable[None]]]] = [
        ("hello", session_suite),
        ("decoding errors", errors_suite),
        ("race", race_suite),
        ("room, watch, resume, rematch", room_suite),
        ("limits", limits_suite),
        ("HTTP", http_suite),
    ]
    for title, suite in suites:
        try:
            await suite(context)
        except (Unexpected, Closed, OSError, TimeoutError, ValueError, KeyError) as exc:
            report.check(
                f"{title}: the suite ran to its end", False, f"{type(exc).__name__}: {exc}"
            )
    log = report.log
    report.check(
        f"every frame read ({len(log.frames)}) is a valid message",
        not log.invalid,
        "; ".join(log.invalid[:3]),
    )
    if out is not None:
        print(report.summary(), file=out, flush=True)
    return report
