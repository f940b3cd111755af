"""Bus messages as bytes: the one place they are encoded and decoded.

Every message between workers travels in an :class:`Envelope`: who sent it
(worker and incarnation), and its number on the link from that sender to its
receiver, so that the receiver notices a message that never came
(server/cluster/bus.py). The envelope and its message are one MessagePack
array: a tag for the kind of message, the envelope's three fields, then the
message's fields in order. MessagePack carries a websocket frame as bytes,
where JSON needed base64 (a third larger, and an encoding each way): frames
are most of what the bus carries. ``python -m bench.bus`` measures both.

What one pass of a worker's loop has for one receiver goes as one Redis
message, a *batch* (:func:`encode_batch`): the envelopes, each encoded as
above, in order, behind the tag :data:`BATCH`. One ``PUBLISH`` and one read
on the receiver instead of one each a message: at a few hundred players a
pass carries tens of frames to a worker.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, TypeAlias

import msgpack

from .to_home import Attach, Gone, Inbound, Migrate, ToHome, Unmigrated
from .to_socket import Close, Outbound, ToSocket
from .to_worker import Born, Broken, Still, ToWorker

__all__ = [
    "BATCH",
    "BusMessage",
    "Envelope",
    "MalformedMessage",
    "decode",
    "decode_all",
    "encode",
    "encode_batch",
]

BusMessage: TypeAlias = ToHome | ToSocket | ToWorker

_KINDS: tuple[type[BusMessage], ...] = (
    Outbound, Inbound, Close, Gone, Attach, Migrate, Unmigrated, Born, Still, Broken,
)  # fmt: skip
"""Every kind of message, its tag its place here: append, never reorder (workers of two
releases may share a bus during a deploy)."""
_TAG = {kind: tag for tag, kind in enumerate(_KINDS)}
BATCH = 127
"""The tag of a batch: never a kind's. A release without batches finds no kind 127, drops
the batch as malformed, and the link's next number shows it the loss."""
_FIELDS = {
    kind: range(
        sum(f.default is dataclasses.MISSING for f in dataclasses.fields(kind)),
        len(dataclasses.fields(kind)) + 1,
    )
    for kind in _KINDS
}
"""How many fields each kind may come with: a field added later has a default, and a
worker of the release before sends the message without it (during a deploy)."""


class MalformedMessage(ValueError):
    """Bytes from the bus that are not a message this release knows."""


@dataclass(frozen=True, slots=True)
class Envelope:
    """A message as it travelled: from ``sender`` (as ``incarnation``), number ``seq``
    on the link to its receiver (0: not on a link, as a message to every worker)."""

    sender: str
    incarnation: str
    seq: int
    message: BusMessage


def encode(envelope: Envelope) -> bytes:
    message = envelope.message
    fields: tuple[Any, ...]
    if isinstance(message, Outbound):  # the commonest by far: no copy through astuple
        fields = (message.conn_id, message.data)
    else:
        fields = dataclasses.astuple(message)
    packed = [_TAG[type(message)], envelope.sender, envelope.incarnation, envelope.seq, *fields]
    data: bytes = msgpack.packb(packed, use_bin_type=True)
    return data


def encode_batch(encoded: list[bytes]) -> bytes:
    """Envelopes for one receiver, each from :func:`encode`, as one message, in order."""
    data: bytes = msgpack.packb([BATCH, encoded], use_bin_type=True)
    return data


def decode_all(data: bytes) -> list[Envelope]:
    """The envelopes in ``data``, a batch's in order; raises :class:`MalformedMessage`."""
    items = _unpack(data)
    if items and items[0] == BATCH and len(items) == 2 and isinstance(items[1], list):
        return [_envelope(_unpack(each)) for each in items[1]]
    return [_envelope(items)]


def decode(data: bytes) -> Envelope:
    """The envelope in ``data`` (not a batch); raises :class:`MalformedMessage`."""
    return _envelope(_unpack(data))


def _unpack(data: object) -> Any:
    if not isinstance(data, bytes):
        raise MalformedMessage(f"not a bus message: {type(data).__name__} in a batch")
    try:
        return msgpack.unpackb(data, raw=False, use_list=True)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise MalformedMessage(f"not a bus message: {exc}") from None


def _envelope(items: Any) -> Envelope:
    try:
        tag, sender, incarnation, seq, *fields = items
        kind = _KINDS[tag]
    except (ValueError, TypeError, IndexError) as exc:
        raise MalformedMessage(f"not a bus message: {exc}") from None
    if len(fields) not in _FIELDS[kind]:
        raise MalformedMessage(f"{kind.__name__} with {len(fields)} fields")
    if kind is Attach:
        fields[7] = tuple(fields[7])  # the rating: a list in MessagePack
    return Envelope(str(sender), str(incarnation), int(seq), kind(*fields))
