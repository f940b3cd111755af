"""The server's entry point: signals reach it even when its event loop is flooded, and
``--workers`` decides whether this process serves or supervises."""

from __future__ import annotations

import asyncio
import os
import signal
import socket

import pytest

import server.__main__ as entry_point
from server.__main__ import on_signals
from server.config import Settings


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


@pytest.mark.usefixtures("restore_signal_handlers")
def test_a_signal_after_the_loop_has_closed_is_ignored() -> None:
    # systemd and the supervisor may both send SIGTERM: the second one can
    # come once the server has stopped and its loop is closed.
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    on_signals(loop, stop)
    loop.close()
    os.kill(os.getpid(), signal.SIGTERM)  # the handler runs here, and must not raise
    assert not stop.is_set()


@pytest.fixture
def entry(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """``main`` with the server, the supervisor, logging and tuning replaced by recorders."""
    seen: dict[str, object] = {}

    async def run(settings: Settings) -> None:
        seen["served"] = settings

    def supervise(settings: Settings) -> int:
        seen["supervised"] = settings
        return 7

    monkeypatch.setattr(entry_point, "run", run)
    monkeypatch.setattr(entry_point, "supervise", supervise)
    monkeypatch.setattr(entry_point, "configure_logging", lambda *a: seen.update(logging=a))
    monkeypatch.setattr(entry_point, "tune_gc", lambda: None)
    monkeypatch.setattr(entry_point, "tune_malloc", lambda: None)
    return seen


def test_one_worker_is_the_server_itself_named_after_host_and_pid(entry) -> None:
    assert entry_point.main(["--port", "0"]) == 0
    served = entry["served"]
    assert isinstance(served, Settings)
    assert served.worker_id == f"{socket.gethostname()}-{os.getpid()}"
    assert entry["logging"] == ("INFO", "")  # an id made up is not worth a tag on each line
    assert "supervised" not in entry


def test_a_named_worker_tags_its_log_lines(entry) -> None:
    entry_point.main(["--worker-id", "box-2", "--log-level", "DEBUG"])
    served = entry["served"]
    assert isinstance(served, Settings)
    assert served.worker_id == "box-2"
    assert entry["logging"] == ("DEBUG", "box-2")


def test_several_workers_make_this_process_their_supervisor(entry) -> None:
    argv = ["--workers", "3", "--redis", "redis://r", "--db", "postgresql://p/fg"]
    assert entry_point.main(argv) == 7  # the supervisor's exit code is the process's
    supervised = entry["supervised"]
    assert isinstance(supervised, Settings)
    assert supervised.workers == 3
    assert "served" not in entry
