"""An atheris (libFuzzer) target for :func:`server.frames.plain_texts`, which
reads a player's frames in websockets' place.

Run it (not part of ``make test``; ``atheris`` is not a project dependency)::

    .venv/bin/pip install atheris
    .venv/bin/python -m fuzz.frames_fuzz -max_total_time=300 -max_len=1024 fuzz/frames_corpus

The property checked on every input, with no size limit and with a small one:
``plain_texts`` returns the leading frames that websockets' own
``Frame.parse`` reads as whole, valid text messages, and the bytes they take,
so that what it leaves to websockets starts at a frame's first byte. It stops
short of websockets only at a frame whose length is written in eight bytes
(websockets' writers use that form only past 64 KiB, well over any frame the
server takes), which it leaves to websockets.

``tests/server/test_frames.py`` runs :func:`check` on random frame streams
with hypothesis, so that this target does not rot.
"""

from __future__ import annotations

import sys

from websockets.exceptions import PayloadTooBig, ProtocolError
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from server.frames import plain_texts

MAX_SIZES = (None, 300)


def check(data: bytes) -> None:
    """The fuzz property for one input; raises ``AssertionError`` when it breaks."""
    for max_size in MAX_SIZES:
        texts, used = plain_texts(data, max_size)
        expected = websockets_texts(data, max_size)
        assert texts == [text for text, _ in expected[: len(texts)]], (data, max_size)
        assert used == (expected[len(texts) - 1][1] if texts else 0), (data, max_size)
        if len(texts) < len(expected):
            assert data[used + 1] & 0x7F == 127, (data, max_size)


def websockets_texts(data: bytes, max_size: int | None) -> list[tuple[str, int]]:
    """What websockets makes of ``data``: the leading whole text messages, each
    with the offset where its frame ends."""
    reader = StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    texts: list[tuple[str, int]] = []
    while True:
        parser = Frame.parse(reader.read_exact, mask=True, max_size=max_size, extensions=[])
        try:
            next(parser)
        except StopIteration as done:
            frame: Frame = done.value
        except (EOFError, ProtocolError, PayloadTooBig):
            return texts
        else:  # pragma: no cover - after feed_eof the parser never waits
            raise AssertionError("the parser waits for data after the end")
        if frame.opcode is not Opcode.TEXT or not frame.fin:
            return texts
        try:
            texts.append((frame.data.decode(), len(data) - len(reader.buffer)))
        except UnicodeDecodeError:
            return texts


def main(argv: list[str] | None = None) -> None:
    import atheris

    atheris.instrument_all()
    atheris.Setup(sys.argv if argv is None else argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
