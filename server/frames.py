"""Reading a client's plain text frames without websockets' parser: :func:`plain_texts`.

websockets parses every frame with generator-based coroutines, a
:class:`~websockets.frames.Frame` object and an event queue: profiled under
load, about a fifth of the race server's CPU time per message. Nearly every
frame a player sends is the simplest kind RFC 6455 allows: one whole text
message (FIN set, no reserved bits, text opcode), masked as a client's must
be, a few dozen bytes long. This reads those, and only those; anything else
(a control frame, a fragment, a frame cut short by TCP, a frame over the size
limit, text that is not UTF-8) stops the reading, and the caller hands the
rest of the bytes, from that frame on, to websockets, which deals with it as
it always does. :class:`~server.connection.GameConnection` says when it is
safe to call.
"""

from __future__ import annotations

from websockets.speedups import apply_mask

__all__ = ["plain_texts"]

_FIN_TEXT = 0x81
"""First byte of a whole text message: FIN, no reserved bits, opcode 1."""
_MASKED = 0x80


def plain_texts(data: bytes, max_size: int | None) -> tuple[list[str], int]:
    """The plain text messages at the start of ``data``, and how many bytes they take.

    ``data`` must begin at a frame's first byte. ``max_size`` is the largest
    payload allowed (None: no limit); a larger frame is left to websockets,
    which closes the connection with 1009.
    """
    texts: list[str] = []
    start, end = 0, len(data)
    while end - start >= 6 and data[start] == _FIN_TEXT:
        length = data[start + 1] ^ _MASKED  # 128 or more: the mask bit was not set
        if length < 126:
            mask = start + 2
        elif length == 126:
            length = int.from_bytes(data[start + 2 : start + 4], "big")
            mask = start + 4
        else:  # an unmasked frame, or a length in 8 bytes
            break
        payload = mask + 4
        stop = payload + length
        if stop > end or (max_size is not None and length > max_size):
            break
        try:
            texts.append(apply_mask(data[payload:stop], data[mask:payload]).decode())
        except UnicodeDecodeError:
            break
        start = stop
    return texts, start
