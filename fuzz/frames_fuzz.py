"""An atheris (libFuzzer) target for :func:`server.transport.frames.split_frame`, which
cuts a client's byte stream into frames in front of websockets' protocol.

Run it (not part of ``make test``; ``atheris`` is not a project dependency)::

    .venv/bin/pip install atheris
    .venv/bin/python -m fuzz.frames_fuzz -max_total_time=300 -max_len=1024 fuzz/frames_corpus

The property, checked on every input for two size limits, holds the splitter
to websockets' own sans-I/O protocol (its public ``receive_data`` and
``events_received``), as :class:`~server.transport.connection.Connection` uses it:

* fed the pieces the splitter cuts, one at a time, the protocol sees exactly
  the frames it sees when fed the whole input at once, and ends in the same
  state: each whole piece is one frame, or the protocol refuses it;
* a piece read as plain text is a whole text frame to the protocol too, with
  the same text, and changes nothing in it (so it may skip the protocol);
  a text frame the splitter does not read as plain is one the protocol
  refuses, or whose payload is not UTF-8;
* a header that announces too much is one the protocol refuses from the
  header alone, and the start of a frame is never taken for a whole one.

``tests/server/test_frames.py`` runs :func:`check` on random frame streams
with hypothesis, so that this target does not rot.
"""

from __future__ import annotations

import os
import sys

from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.server import ServerProtocol

from server.transport.frames import NEED_MORE, TOO_BIG, split_frame

__all__ = ["MAX_SIZES", "check", "client_frame"]

MAX_SIZES = (1 << 20, 300)


def client_frame(
    payload: bytes,
    opcode: int = Opcode.TEXT.value,
    *,
    fin: bool = True,
    mask: bool = True,
    rsv: int = 0,
    long_length: bool = False,
) -> bytes:
    """One frame as a client writes it (RFC 6455, 5.2), or as a hostile one
    might: unmasked, with reserved bits (``rsv``: 0 to 7), or its length in 8
    bytes whatever it is."""
    first = (0x80 if fin else 0) | rsv << 4 | opcode
    length = len(payload)
    flag = 0x80 if mask else 0
    if long_length or length > 0xFFFF:
        head = bytes([first, flag | 127]) + length.to_bytes(8, "big")
    elif length > 125:
        head = bytes([first, flag | 126]) + length.to_bytes(2, "big")
    else:
        head = bytes([first, flag | length])
    if not mask:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def check(data: bytes) -> None:
    """The fuzz property for one input; raises ``AssertionError`` when it breaks."""
    for max_size in MAX_SIZES:
        whole = ServerProtocol(state=State.OPEN, max_size=max_size)
        whole.receive_data(data)
        expected = whole.events_received()
        split = ServerProtocol(state=State.OPEN, max_size=max_size)
        seen = _feed_split(split, data, max_size)
        assert seen == expected, (data, max_size)
        assert split.state is whole.state, (data, max_size)


def _feed_split(protocol: ServerProtocol, data: bytes, max_size: int) -> list[object]:
    """Feed ``data`` to ``protocol`` as the connection does; the events, checked on the way."""
    seen: list[object] = []
    start, fragmented = 0, False
    while start < len(data) and protocol.state is State.OPEN:
        stop, text = split_frame(data, start, max_size)
        if stop == TOO_BIG:
            protocol.receive_data(data[start:])
            assert protocol.state is not State.OPEN, "a frame too big, taken by the protocol"
            assert not protocol.events_received()
            return seen
        if stop == NEED_MORE:
            protocol.receive_data(data[start:])
            assert not protocol.events_received(), "a frame cut short, yet whole"
            return seen
        protocol.data_to_send()  # what earlier frames made it write (a pong)
        protocol.receive_data(data[start:stop])
        events = protocol.events_received()
        if protocol.state is State.OPEN:
            assert len(events) == 1, "one piece, one frame"
            frame = events[0]
            assert isinstance(frame, Frame)
            if text is not None and not fragmented:
                assert (frame.opcode, frame.fin) == (Opcode.TEXT, True)
                assert bytes(frame.data).decode() == text
                assert not protocol.data_to_send(), "a plain text frame makes the protocol write"
            elif frame.opcode is Opcode.TEXT and frame.fin and not fragmented:
                assert not _is_utf8(bytes(frame.data)), "a plain text frame not read as plain"
            if frame.opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
                fragmented = not frame.fin
        seen.extend(events)
        start = stop
    if start < len(data):
        protocol.receive_data(data[start:])
        seen.extend(protocol.events_received())
    return seen


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def main(argv: list[str] | None = None) -> None:
    import atheris

    atheris.instrument_all()
    atheris.Setup(sys.argv if argv is None else argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
