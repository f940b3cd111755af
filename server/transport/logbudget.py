"""What clients make the server log, held to a budget per address.

A line in the log about what one client sent (a malformed request, a body
too large) costs the server a write and the operator a line to read, and
the client nothing: a client that repeats it could write a megabyte of log
a second. :class:`LogBudget` lets each address :data:`PER_ADDRESS` lines at
once and one a minute from then on, and all addresses together
:data:`IN_ALL` at once and one a second; what it leaves out it counts, and
says how much in one line at most once per :data:`SUMMARY_INTERVAL` (at the
next line it is asked for, or the next :meth:`LogBudget.tick`, whichever
comes first).

A bug that a client's bytes reach (an exception where none was expected) is
logged with its traceback the first time it is met where it was raised, and
only counted among the lines left out after (:meth:`LogBudget.bug`): a client
that finds one cannot make it fill the log.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from core.limits import AddressLimit

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["IN_ALL", "PER_ADDRESS", "SUMMARY_INTERVAL", "LogBudget"]

log = logging.getLogger("flowergarden.server")

PER_ADDRESS = 5
"""Lines one address may cause at once; then one a minute."""
IN_ALL = 50
"""Lines all addresses together may cause at once; then one a second."""
SUMMARY_INTERVAL = 60.0
"""Seconds between two lines that count what was left out."""
_ALL = ""
"""The key under which every line counts, whichever address caused it."""
_ADDRESSES_COUNTED = 1000
"""Distinct addresses counted in a summary: past it, it says "over"."""
_BUG_SITES = 256
"""Distinct places a bug was seen at that are remembered (each logged once)."""


class LogBudget:
    """Lines about clients, at most so many per address and in all (module docstring)."""

    __slots__ = (
        "_addresses", "_all", "_clock", "_left_out", "_left_out_from", "_seen", "_summary_at",
    )  # fmt: skip

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._addresses = AddressLimit(PER_ADDRESS, 60.0)
        self._all = AddressLimit(IN_ALL, 3600.0)
        self._left_out = 0
        self._left_out_from: set[str] = set()
        self._summary_at = clock() + SUMMARY_INTERVAL
        self._seen: set[tuple[str, str, int]] = set()
        """The places bugs were seen at: exception type, file and line."""

    def note(self, address: str, message: str, *args: object) -> None:
        """Log ``message % args`` about what ``address`` sent, if the budget allows."""
        if self.allows(address):
            log.info(message, *args)

    def bug(self, address: str, exc: BaseException) -> None:
        """A bug that ``address``'s bytes reached: its traceback the first time it is
        seen where it was raised; later, only counted among the lines left out."""
        frame = exc.__traceback__
        while frame is not None and frame.tb_next is not None:
            frame = frame.tb_next
        code = frame.tb_frame.f_code if frame is not None else None
        site = (
            type(exc).__name__,
            code.co_filename if code else "?",
            frame.tb_lineno if frame else 0,
        )
        if site not in self._seen:
            if len(self._seen) < _BUG_SITES:
                self._seen.add(site)
            log.error("a request from %s met a bug", address, exc_info=exc)
        else:
            self._leave_out(address)

    def allows(self, address: str) -> bool:
        """Whether a line about ``address`` fits in the budget now (and spend it)."""
        now = self.tick()
        if self._addresses.charge(address, now) and self._all.charge(_ALL, now):
            return True
        self._leave_out(address)
        return False

    def _leave_out(self, address: str) -> None:
        self._left_out += 1
        if len(self._left_out_from) < _ADDRESSES_COUNTED:
            self._left_out_from.add(address)

    def tick(self) -> float:
        """Say what was left out, if an interval has passed since it was last said; the time."""
        now = self._clock()
        if now >= self._summary_at:
            self._summarize(now)
        return now

    def _summarize(self, now: float) -> None:
        if self._left_out:
            log.warning(
                "left %d line(s) about %s%d address(es) out of the log in the last %.0f s",
                self._left_out,
                "over " if len(self._left_out_from) >= _ADDRESSES_COUNTED else "",
                len(self._left_out_from),
                now - self._summary_at + SUMMARY_INTERVAL,
            )
        self._left_out, self._left_out_from = 0, set()
        self._summary_at = now + SUMMARY_INTERVAL
