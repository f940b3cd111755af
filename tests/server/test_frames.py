"""``plain_texts`` against websockets' own frame parser, which it stands in for.

Whatever bytes come, it must return exactly the leading frames that websockets
would parse as whole, valid text messages, and stop at the first frame that
websockets must see (which it then parses as it always does). The property is
the fuzz target's (``fuzz/frames_fuzz.py``), run here on random frame streams.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.frames import Frame, Opcode

from fuzz.frames_fuzz import MAX_SIZES, check
from server.frames import plain_texts

MAX_SIZE = max(size for size in MAX_SIZES if size is not None)


def text(payload: str) -> bytes:
    return Frame(Opcode.TEXT, payload.encode()).serialize(mask=True)


def with_long_length(frame: bytes) -> bytes:
    """``frame`` with its length written in eight bytes, as RFC 6455 allows for any length."""
    head, length = frame[1] & 0x80, frame[1] & 0x7F
    start = 2
    if length == 126:
        length, start = int.from_bytes(frame[2:4], "big"), 4
    return bytes([frame[0], head | 127]) + length.to_bytes(8, "big") + frame[start:]


def with_rsv1(frame: bytes) -> bytes:
    """``frame`` with its first reserved bit set (websockets will not serialize that)."""
    return bytes([frame[0] | 0x40]) + frame[1:]


def test_a_play_frame() -> None:
    assert plain_texts(text('{"type":"play","card":"QH"}'), None) == (
        ['{"type":"play","card":"QH"}'],
        33,
    )


def test_frames_in_one_read_and_a_frame_cut_short() -> None:
    first, second = text("a"), text("b" * 200)
    data = first + second + text("c")[:5]
    assert plain_texts(data, None) == (["a", "b" * 200], len(first) + len(second))


def test_it_stops_at_a_ping_and_leaves_what_follows() -> None:
    ping = Frame(Opcode.PING, b"hi").serialize(mask=True)
    assert plain_texts(text("a") + ping + text("b"), None) == (["a"], len(text("a")))


def test_a_frame_over_the_limit_is_left_to_websockets() -> None:
    assert plain_texts(text("x" * 11), 10) == ([], 0)
    assert plain_texts(text("x" * 10), 10) == (["x" * 10], 16)


def test_a_length_in_eight_bytes_is_left_to_websockets() -> None:
    assert plain_texts(text("a") + with_long_length(text("b")), None) == (["a"], 7)


def test_unmasked_frames_and_reserved_bits_are_left_to_websockets() -> None:
    assert plain_texts(Frame(Opcode.TEXT, b"a").serialize(mask=False), None) == ([], 0)
    assert plain_texts(with_rsv1(text("a")), None) == ([], 0)


@st.composite
def frames(draw: st.DrawFn) -> bytes:
    """One client frame: usually a plain text message, sometimes anything else."""
    opcode = draw(st.sampled_from([Opcode.TEXT] * 6 + [Opcode.BINARY, Opcode.CONT, Opcode.PING]))
    payload = draw(
        st.one_of(
            st.text(max_size=40).map(str.encode),
            st.binary(max_size=40),
            st.integers(120, 130).map(lambda n: b"x" * n),  # either side of a 2-byte length
            st.integers(MAX_SIZE - 2, MAX_SIZE + 2).map(lambda n: b"x" * n),  # at the limit
        )
    )
    if opcode is Opcode.PING:
        payload = payload[:125]
    fin = opcode is not Opcode.TEXT or draw(st.integers(0, 9)) > 0
    frame = Frame(opcode, payload, fin=fin).serialize(mask=draw(st.integers(0, 19)) > 0)
    if draw(st.integers(0, 9)) == 0:
        frame = with_long_length(frame)
    return with_rsv1(frame) if draw(st.integers(0, 19)) == 0 else frame


@settings(max_examples=300)
@given(st.lists(frames(), max_size=6), st.data())
def test_it_reads_what_websockets_reads_up_to_the_first_frame_it_must_leave(
    parts: list[bytes], data: st.DataObject
) -> None:
    stream = b"".join(parts)
    cut = data.draw(st.one_of(st.just(len(stream)), st.integers(0, len(stream))))
    check(stream[:cut])
