"""The server's entry point: signals reach it even when its event loop is flooded."""

from __future__ import annotations

import asyncio
import os
import signal
import socket

import pytest

from server.__main__ import on_signals


@pytest.fixture
def restore_signal_handlers():
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


def _fill(sock: socket.socket) -> None:
    sock.setblocking(False)
    while True:
        try:
            sock.send(b"\0" * 4096)
        except BlockingIOError:
            return


@pytest.mark.usefixtures("restore_signal_handlers")
async def test_sigterm_is_not_lost_when_the_loops_wakeup_socket_is_full() -> None:
    loop = asyncio.get_running_loop()
    wakeup = getattr(loop, "_csock", None)  # the selector loop's self-pipe
    if not isinstance(wakeup, socket.socket):
        pytest.skip("this event loop has no self-pipe to fill")
    stop = asyncio.Event()
    on_signals(loop, stop)
    _fill(wakeup)  # as a thousand store writes finishing at once do
    os.kill(os.getpid(), signal.SIGTERM)
    await asyncio.wait_for(stop.wait(), timeout=5)
    assert stop.is_set()
