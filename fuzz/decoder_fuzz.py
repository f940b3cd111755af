"""An atheris (libFuzzer) target for :func:`protocol.decode`, the server's first
contact with every frame a client sends.

Run it (not part of ``make test``; ``atheris`` is not a project dependency)::

    .venv/bin/pip install atheris
    .venv/bin/python -m fuzz.decoder_fuzz -max_total_time=300 -max_len=4096 fuzz/corpus

(any libFuzzer flag works; ``fuzz/corpus`` is created if missing and keeps the
inputs that found new code). The property checked on every input:

* ``decode`` returns a client message or raises :class:`protocol.DecodeError`
  whose code is ``bad_json``, ``bad_message`` or ``unknown_type``; nothing else
  escapes, for ``bytes`` or for ``str`` frames alike;
* the error the server would send for it encodes, and a client decodes it back;
* a decoded message encodes to a frame that decodes to the same message.

``tests/integration/test_hostile_frames.py`` runs :func:`check` on a few
inputs so that this target does not rot.
"""

from __future__ import annotations

import contextlib
import sys

from protocol import DecodeError, decode, decode_server, encode

CODES = frozenset({"bad_json", "bad_message", "unknown_type"})


def check(data: bytes) -> None:
    """The fuzz property for one input; raises ``AssertionError`` when it breaks."""
    for frame in _frames(data):
        try:
            message = decode(frame)
        except DecodeError as exc:
            assert exc.code in CODES, exc.code
            error = decode_server(encode(exc.to_error()))
            assert error.type == "error"
            assert error.code == exc.code  # type: ignore[union-attr]
            continue
        assert decode(encode(message)) == message, (frame, message)


def _frames(data: bytes) -> list[str | bytes]:
    """The input as bytes, and as text when it is UTF-8 (as a text frame would be)."""
    frames: list[str | bytes] = [data]
    with contextlib.suppress(UnicodeDecodeError):
        frames.append(data.decode())
    return frames


def main(argv: list[str] | None = None) -> None:
    import atheris

    atheris.instrument_all()  # protocol is imported already: instrument what is loaded
    atheris.Setup(sys.argv if argv is None else argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
