"""A client whose terminal disappears exits, rather than spin reading end-of-file for ever.

The terminal here is a real pty from Python's :mod:`pty`; closing its master side is
what a killed terminal emulator does, and the client, in a session of its own, gets
no SIGHUP for it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time

from client.terminal import TerminalWatch

EXIT_WITHIN = 10.0
"""Seconds the client may take to notice and exit (it asks twice a second)."""


def test_the_watch_sees_the_far_side_close():
    master, slave = pty.openpty()
    try:
        watch = TerminalWatch(slave)
        assert watch.fd == slave and not watch.gone()
        os.close(master)
        assert watch.gone()
    finally:
        os.close(slave)
    pipe_read, pipe_write = os.pipe()
    with contextlib.closing(os.fdopen(pipe_read)), contextlib.closing(os.fdopen(pipe_write)):
        assert not TerminalWatch(pipe_read).gone()  # no terminal to lose: never gone


def read_until(master: int, words: bytes, timeout: float) -> bytes:
    seen = b""
    deadline = time.monotonic() + timeout
    while words not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"never drew {words!r}: {seen[-400:]!r}"
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            seen += os.read(master, 65536)
    return seen


def test_a_client_whose_terminal_closes_exits(tmp_path):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = os.environ | {"TERM": "xterm-256color", "XDG_CONFIG_HOME": str(tmp_path)}
    client = subprocess.Popen(
        [sys.executable, "-m", "client", "practice"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,  # no controlling terminal: closing the pty sends no SIGHUP
    )
    os.close(slave)
    try:
        try:
            read_until(master, b"Practice", timeout=30.0)
        finally:
            os.close(master)  # the terminal goes away
        closed = time.monotonic()
        code = client.wait(timeout=EXIT_WITHIN)
        assert code == 1
        assert time.monotonic() - closed < EXIT_WITHIN
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
