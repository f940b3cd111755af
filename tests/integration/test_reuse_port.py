"""``Listener.start(reuse_port=True)``: several listeners share one port, as workers do."""

from __future__ import annotations

import asyncio
import errno
from typing import Any

import pytest

from server.transport.connection import Connection
from server.transport.handler import ConnectionOptions
from server.transport.listener import Listener

OPTIONS = ConnectionOptions(max_size=4096, queue=16, open_timeout=5.0)


def listener() -> Listener[Any]:
    # Nothing connects: the handler is never called.
    return Listener(object(), Connection, OPTIONS, max_connections=10)  # type: ignore[arg-type]


async def test_listeners_with_reuse_port_share_a_port() -> None:
    first, second = listener(), listener()
    await first.start("127.0.0.1", 0, reuse_port=True)
    try:
        await second.start("127.0.0.1", first.port, reuse_port=True)
        assert second.port == first.port
        await second.close()
    finally:
        await first.close()


async def test_without_reuse_port_a_taken_port_is_refused() -> None:
    first, second = listener(), listener()
    await first.start("127.0.0.1", 0)
    loop = asyncio.get_running_loop()
    handler = loop.get_exception_handler()
    try:
        with pytest.raises(OSError) as refused:
            await second.start("127.0.0.1", first.port)
        assert refused.value.errno == errno.EADDRINUSE
        assert loop.get_exception_handler() is handler  # the failed start left it as it was
    finally:
        await first.close()
