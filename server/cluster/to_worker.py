"""Bus messages a worker says of itself: that it was born, and how its links stand.

* :class:`Born` goes to every worker when a worker starts. A worker restarted
  under the same name is a new *incarnation*: the others learn it at once,
  and treat every link they had with the old one as dead, without waiting
  for a lease to lapse.
* :class:`Still` goes, once a beat, on every link a worker has: it takes the
  link's next number like any message, so a message lost at the end of a
  link's traffic is noticed within a beat (server/cluster/bus.py).
* :class:`Broken` answers a link that lost a message: the receiver has
  dropped every socket and home it shared with the sender, and asks the
  sender to do the same, so that the players come back and resynchronise.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Born", "Broken", "Still", "ToWorker"]


@dataclass(frozen=True, slots=True)
class Born:
    """``worker`` started, as ``incarnation``."""

    worker: str
    incarnation: str


@dataclass(frozen=True, slots=True)
class Still:
    """The sender is here, and this link's numbers go on from this message."""


@dataclass(frozen=True, slots=True)
class Broken:
    """The link from the receiver of this to its sender lost messages: drop what it carried."""


ToWorker = Born | Still | Broken
