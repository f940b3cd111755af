"""``split_frame`` against websockets' own protocol, in front of which it cuts frames.

Whatever bytes come, the pieces it cuts must be, to the protocol, exactly the
frames of the stream, and a piece it reads as plain text must be a whole text
frame with that text; the property is the fuzz target's
(``fuzz/frames_fuzz.py``), run here on random frame streams.
"""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.frames import Opcode

from fuzz.frames_fuzz import MAX_SIZES, check, client_frame
from server.transport.frames import NEED_MORE, TOO_BIG, split_frame, text_header, unmask

MAX_SIZE = min(MAX_SIZES)
TEXT, BINARY, CONT, PING = (
    op.value for op in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT, Opcode.PING)
)


def test_a_play_frame() -> None:
    frame = client_frame(b'{"type":"play","card":"QH"}')
    assert split_frame(frame, 0, 4096) == (33, '{"type":"play","card":"QH"}')


def test_frames_one_after_another_and_one_cut_short() -> None:
    first, second = client_frame(b"a"), client_frame(b"b" * 200)
    data = first + second + client_frame(b"c")[:5]
    assert split_frame(data, 0, 4096) == (len(first), "a")
    assert split_frame(data, len(first), 4096) == (len(first) + len(second), "b" * 200)
    assert split_frame(data, len(first) + len(second), 4096) == (NEED_MORE, None)


def test_other_frames_are_measured_but_not_read() -> None:
    for frame in (
        client_frame(b"hi", PING),
        client_frame(b"a", BINARY),
        client_frame(b"a", fin=False),
        client_frame(b"a", CONT),
        client_frame(b"a", mask=False),
        client_frame(b"a", rsv=4),
        client_frame(b"\xff"),  # not UTF-8
    ):
        assert split_frame(frame, 0, 4096) == (len(frame), None)


def test_a_length_in_eight_bytes_is_measured_too() -> None:
    frame = client_frame(b"b", long_length=True)
    assert split_frame(frame, 0, 4096) == (len(frame), "b")
    assert split_frame(frame[:9], 0, 4096) == (NEED_MORE, None)


def test_a_header_over_the_limit_is_reported_before_its_payload() -> None:
    assert split_frame(client_frame(b"x" * 11)[:4], 0, 10) == (TOO_BIG, None)
    assert split_frame(client_frame(b"x" * 10), 0, 10) == (16, "x" * 10)
    exabyte = bytes([0x81, 0xFF]) + (1 << 60).to_bytes(8, "big")
    assert split_frame(exabyte, 0, 4096) == (TOO_BIG, None)


def test_unmask_is_its_own_inverse_at_every_length() -> None:
    mask = os.urandom(4)
    for length in range(20):
        payload = os.urandom(length)
        masked = unmask(mask, payload)
        assert len(masked) == length
        assert unmask(mask, masked) == payload
        assert masked == bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def test_text_headers_in_each_length_form() -> None:
    assert text_header(5) == b"\x81\x05"
    assert text_header(300) == b"\x81\x7e\x01\x2c"
    assert text_header(70000) == b"\x81\x7f" + (70000).to_bytes(8, "big")


@st.composite
def frames(draw: st.DrawFn) -> bytes:
    """One client frame: usually a plain text message, sometimes anything else."""
    opcode = draw(st.sampled_from([TEXT] * 6 + [BINARY, CONT, PING, 0x3]))
    payload = draw(
        st.one_of(
            st.text(max_size=40).map(str.encode),
            st.binary(max_size=40),
            st.integers(120, 130).map(lambda n: b"x" * n),  # either side of a 2-byte length
            st.integers(MAX_SIZE - 2, MAX_SIZE + 2).map(lambda n: b"x" * n),  # at the limit
        )
    )
    if opcode == PING:
        payload = payload[:125]
    return client_frame(
        payload,
        opcode,
        fin=opcode == PING or draw(st.integers(0, 5)) > 0,
        mask=draw(st.integers(0, 19)) > 0,
        rsv=4 if draw(st.integers(0, 19)) == 0 else 0,
        long_length=draw(st.integers(0, 9)) == 0,
    )


@settings(max_examples=400)
@given(st.lists(frames(), max_size=6), st.data())
def test_the_pieces_it_cuts_are_the_frames_the_protocol_reads(
    parts: list[bytes], data: st.DataObject
) -> None:
    stream = b"".join(parts)
    cut = data.draw(st.one_of(st.just(len(stream)), st.integers(0, len(stream))))
    check(stream[:cut])
