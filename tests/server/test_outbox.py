"""The outbox's end of the stream: nothing is written after it.

websockets may still have words once the server has ended its stream (the
peer's close frame answered, a pong): asyncio refuses a write after
``write_eof`` with a RuntimeError, which was logged as a fatal error once a
connection in every few the chaos run closed with 1012.
"""

from __future__ import annotations

from server.transport.outbox import Outbox, Wire, Writer


class _Socket(Outbox):
    """An outbox whose socket records what reaches it, and refuses as asyncio does."""

    __slots__ = ("ended", "written")

    def __init__(self) -> None:
        super().__init__(limit=10, writer=Writer())
        self.written: list[bytes] = []
        self.ended = False

    def write_bytes(self, data: bytes) -> None:
        if self.ended:
            raise RuntimeError("Cannot call write() after write_eof()")
        self.written.append(data)

    def write_end(self) -> None:
        self.ended = True


async def test_nothing_is_written_after_the_end_of_the_stream() -> None:
    outbox = _Socket()
    outbox.enqueue(Wire(b"close 1012"))
    outbox.enqueue(Wire(b""))
    outbox.enqueue(Wire(b"queued behind the end"))
    outbox.write()
    assert outbox.written == [b"close 1012"]
    assert outbox.ended
    outbox.enqueue(Wire(b"the peer's close, answered late"))
    outbox.push(b'{"type":"lobby"}')
    outbox.write()  # raised RuntimeError before the outbox knew its stream had ended
    assert outbox.written == [b"close 1012"]
