"""Where a client's frames begin and end, read from their headers: :func:`split_frame`.

RFC 6455 (5.2) puts everything needed to find a frame's end in its first 2 to
14 bytes: the payload length (in 7 bits, or 16, or 64) and whether a 4-byte
masking key follows. :class:`~server.transport.connection.Connection` uses this to cut
the bytes a client sends into whole frames itself, so that it can

* hand the commonest frame a player sends, one whole text message (FIN set,
  no reserved bits, text opcode), masked as a client's must be and a few
  dozen bytes long, to the game at once, unmasked and decoded here;
* and feed every other frame to websockets' sans-I/O protocol whole, so that
  the protocol always starts reading at a frame's first byte.

Nothing here validates a frame: a frame that is not a plain text message is
only measured, and websockets judges it. A header that announces more than
``max_size`` bytes is reported at once (``TOO_BIG``), so that its payload is
never waited for: websockets refuses it from its header alone (1009).

Unmasking is plain Python (one XOR of two integers): websockets' C helper is
not part of its public API, and on frames this size it saves about half a
microsecond per message, under 1% of a play's round trip (bench/README.md).
"""

from __future__ import annotations

__all__ = ["NEED_MORE", "TOO_BIG", "split_frame", "text_header", "unmask"]

NEED_MORE = -1
"""The bytes end before the frame does."""
TOO_BIG = -2
"""The frame's header announces a payload over the size limit."""

_FIN_TEXT = 0x81
"""First byte of a whole text message: FIN, no reserved bits, opcode 1."""
_MASKED = 0x80


def split_frame(data: bytes, start: int, max_size: int) -> tuple[int, str | None]:
    """Where the frame that begins at ``data[start]`` ends, and its text if it is plain.

    Returns ``(end, text)`` for a whole frame, where ``text`` is the decoded
    payload of a masked, unfragmented text frame whose bytes are UTF-8, and
    None for any other frame; ``(NEED_MORE, None)`` when ``data`` ends first;
    ``(TOO_BIG, None)`` when the payload is announced over ``max_size`` bytes.
    """
    available = len(data) - start
    if available < 2:
        return NEED_MORE, None
    second = data[start + 1]
    length = second & 0x7F
    payload = start + 2
    if length == 126:
        if available < 4:
            return NEED_MORE, None
        length = data[start + 2] << 8 | data[start + 3]
        payload += 2
    elif length == 127:
        if available < 10:
            return NEED_MORE, None
        length = int.from_bytes(data[start + 2 : start + 10], "big")
        payload += 8
    if length > max_size:
        return TOO_BIG, None
    masked = second & _MASKED
    if masked:
        payload += 4
    end = payload + length
    if end > len(data):
        return NEED_MORE, None
    if data[start] != _FIN_TEXT or not masked:
        return end, None
    try:
        return end, unmask(data[payload - 4 : payload], data[payload:end]).decode()
    except UnicodeDecodeError:
        return end, None


def unmask(mask: bytes, payload: bytes) -> bytes:
    """``payload`` XORed with the 4-byte ``mask`` repeated (RFC 6455, 5.3)."""
    words = (len(payload) >> 2) + 1
    key = int.from_bytes(mask * words, "little")
    unmasked = int.from_bytes(payload, "little") ^ key
    return unmasked.to_bytes(words * 4, "little")[: len(payload)]


def text_header(length: int) -> bytes:
    """The header of a server's (unmasked) whole text frame of ``length`` bytes."""
    if length < 126:
        return bytes((_FIN_TEXT, length))
    if length < 0x10000:
        return b"\x81\x7e" + length.to_bytes(2, "big")
    return b"\x81\x7f" + length.to_bytes(8, "big")
