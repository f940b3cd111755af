"""Who the players are: names, tokens and the registry of every player ever made.

The registry lives in memory (loaded from the store at start-up) so that
``hello`` needs no I/O to check a name or a token; the glue writes a new
player to the store before it answers ``welcome``. A token is the only
credential and is kept only as its SHA-256: tokens are 256 random bits, so a
fast hash is enough (there is nothing to brute-force).
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol import NAME_RULE, is_name

from .events import Refused
from .glicko2 import NEW, Glicko

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["BOT_NAME", "Identity", "Registry", "hash_token"]

BOT_NAME = "BOT-"
"""What the server's bots' names start with (core/bots.py), and no human's may."""


@dataclass(frozen=True, slots=True)
class Identity:
    """A player as the store keeps them."""

    player_id: str
    name: str
    token_hash: str
    created: float
    """Wall-clock seconds since the epoch."""
    rating: Glicko = NEW
    """As of the player's hello (the store's): the glue reads it afresh each time."""
    bot: bool = False
    """A declared bot (``hello.bot``), as of the player's hello: for ever once said."""
    flags: int = 0
    """Races in which their play was flagged, not cleared, as of the player's hello."""
    last_daily: str | None = None
    """The last day they raced the daily deal ranked, as of the player's hello."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Registry:
    """Every player the server has made, by id, by name (ignoring case) and by token."""

    def __init__(self, identities: Iterable[Identity] = ()) -> None:
        self._by_id: dict[str, Identity] = {}
        self._by_name: dict[str, Identity] = {}
        self._by_token: dict[str, Identity] = {}
        for identity in identities:
            self._add(identity)

    def __len__(self) -> int:
        return len(self._by_id)

    def check_name(self, name: str) -> None:
        """Raise ``bad_name`` or ``name_taken`` unless ``name`` can be given out."""
        if not is_name(name):  # the protocol's rule, the very one the client checks
            raise Refused("bad_name", NAME_RULE)
        if name.upper().startswith(BOT_NAME):
            raise Refused("bad_name", f"names starting with {BOT_NAME} are the server's bots")
        if name.lower() in self._by_name:
            raise Refused("name_taken", f"the name {name!r} is taken (names ignore case)")

    def create(self, player_id: str, name: str, token: str, created: float) -> Identity:
        """Register a new player; the caller makes ``player_id`` and ``token`` at random."""
        self.check_name(name)
        identity = Identity(player_id, name, hash_token(token), created)
        self._add(identity)
        return identity

    def discard(self, player_id: str) -> None:
        """Forget a player whose creation could not be stored.

        Their name and token are let go only if they are still theirs: a registry
        that learns a rename late may have given the name to another player since.
        """
        identity = self._by_id.pop(player_id)
        for index, key in ((self._by_name, identity.name.lower()),
                           (self._by_token, identity.token_hash)):  # fmt: skip
            if index.get(key) is identity:
                del index[key]

    def by_token(self, token: str) -> Identity:
        """The player ``token`` names; raises ``bad_token``."""
        identity = self._by_token.get(hash_token(token))
        if identity is None:
            raise Refused("bad_token", "no player has this token")
        return identity

    def knows(self, player_id: str) -> bool:
        return player_id in self._by_id

    def learn(self, identity: Identity) -> None:
        """Know a player another worker made (server/cluster/cluster.py)."""
        if identity.player_id not in self._by_id:
            self._add(identity)

    def rename(self, player_id: str, name: str) -> None:
        """The operator renamed a player: their old name is free, the new one theirs.

        Nothing for a player this registry does not know; the store has checked the name.
        """
        identity = self._by_id.get(player_id)
        if identity is None or identity.name == name:
            return
        self.forget(player_id)
        self._add(dataclasses.replace(identity, name=name))

    def forget(self, player_id: str) -> None:
        """A player is forgotten (the operator, or unused for long): their name is free and
        their token names nobody. Nothing for a player this registry does not know."""
        if player_id in self._by_id:
            self.discard(player_id)

    def find(self, token: str) -> Identity | None:
        """The player ``token`` names, if this registry knows them."""
        return self._by_token.get(hash_token(token))

    def _add(self, identity: Identity) -> None:
        self._by_id[identity.player_id] = identity
        self._by_name[identity.name.lower()] = identity
        self._by_token[identity.token_hash] = identity
