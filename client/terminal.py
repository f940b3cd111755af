"""Whether the terminal the app runs in is still there.

A terminal can go without a hangup: a pty whose other end is closed (a terminal
emulator killed, an ssh session's multiplexer gone) sends no SIGHUP to a process
that is not its session's leader. Reading it then returns end-of-file at once,
every time; Textual's input thread reads on, and the client would spin at a
fifth of a core, for ever, with nobody to see it. The other end's closing is
plain to see without reading anything: the file descriptor is no longer a
terminal (``isatty`` answers False once the pty's far side is gone, as
``tcgetattr`` fails with EIO), so the app asks that on its ticks and exits.
"""

from __future__ import annotations

import os
import sys

__all__ = ["TerminalWatch"]


class TerminalWatch:
    """The terminal on standard input at the start, asked after: :meth:`gone`."""

    def __init__(self, fd: int | None = None) -> None:
        if fd is None:
            stdin = sys.__stdin__
            fd = stdin.fileno() if stdin is not None and not stdin.closed else -1
        self.fd = fd if fd >= 0 and os.isatty(fd) else None
        """The terminal's descriptor; None when the app did not start on one (a pipe, a test)."""

    def gone(self) -> bool:
        """Whether the terminal the app started on has gone (never, without one)."""
        return self.fd is not None and not os.isatty(self.fd)
