"""Who a ``hello`` says it is: a player known by their token, or a new one, made and stored.

The only part of greeting a player that waits, for the store: the glue
(:mod:`server.app`) awaits :meth:`Identities.identify` and sends ``welcome``
or the refusal. New players are limited per address (``--new-players-per-ip``
an hour, counted across workers when they share a lobby), and a name the
protocol's rule or the bots refuse costs no new player. A returning player's
rating is read afresh: races on other workers may have moved it.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import time
from typing import TYPE_CHECKING

from core.events import Refused
from core.identity import Identity, Registry, hash_token
from core.limits import AddressLimit
from protocol import PROTOCOL_VERSION
from server.store import StoreError, StoreUnavailable

if TYPE_CHECKING:
    from collections.abc import Callable

    from protocol import Hello
    from server.cluster.cluster import Cluster
    from server.http.metrics import Metrics
    from server.store import Store

__all__ = ["Identities"]

log = logging.getLogger("flowergarden.server")


class Identities:
    """The players this server knows (:attr:`registry`), and making new ones."""

    def __init__(
        self,
        store: Store,
        new_players_per_ip: int,
        clock: Callable[[], float],
        metrics: Metrics,
        cluster: Cluster | None,
    ) -> None:
        self.registry = Registry()
        """Every player, from the store once it is open (:meth:`know`)."""
        self._store, self._clock, self._metrics, self._cluster = store, clock, metrics, cluster
        self._new_players = AddressLimit(new_players_per_ip, new_players_per_ip)

    def know(self, identities: list[Identity]) -> None:
        """Start from the players the store holds."""
        self.registry = Registry(identities)

    async def identify(self, hello: Hello, address: str) -> tuple[Identity, str]:
        """The player of ``hello`` from ``address`` and their token; raises :class:`Refused`."""
        identity, token = await self._player(hello, address)
        if hello.token is not None:
            identity = await self._rated(identity)
        return identity, token

    async def _player(self, hello: Hello, address: str) -> tuple[Identity, str]:
        if hello.protocol is not None and hello.protocol != PROTOCOL_VERSION:
            raise Refused("unsupported_protocol", f"this server speaks protocol {PROTOCOL_VERSION}")
        registry, cluster = self.registry, self._cluster
        if hello.token is not None:
            known = registry.find(hello.token)
            if known is None and cluster is not None:  # made by another worker?
                known = await self._store.find_player(hash_token(hello.token))
                if known is not None:
                    registry.learn(known)
            return known or registry.by_token(hello.token), hello.token
        registry.check_name(hello.name)  # a name refused costs no new player
        if self._store.failing:  # not queued behind writes that are being retried
            raise Refused("unavailable", "new players cannot be stored now; try again")
        if not self._new_players.charge(address, self._clock()) or (
            cluster is not None and not await cluster.allows_new_player(address)
        ):
            raise Refused("rate_limited", "too many new players from your address; try later")
        token = secrets.token_urlsafe(32)
        identity = registry.create("p" + secrets.token_hex(8), hello.name, token, time.time())
        try:
            await self._metrics.store_timed(self._store.add_player(identity), "add_player")
        except StoreUnavailable as exc:
            registry.discard(identity.player_id)
            log.error("could not store new player %s: %s", identity.name, exc)
            raise Refused("unavailable", "new players cannot be stored now; try again") from None
        except StoreError as exc:
            registry.discard(identity.player_id)
            log.error("new player %s was refused by the store: %s", identity.name, exc)
            raise Refused("name_taken", "that name could not be registered") from None
        return identity, token

    async def _rated(self, identity: Identity) -> Identity:
        """``identity`` with the rating the store has now (races elsewhere may have moved it)."""
        try:
            rating = await self._store.rating(identity.player_id)
        except StoreError as exc:
            log.error("could not read %s's rating: %s", identity.name, exc)
            raise Refused("unavailable", "your rating cannot be read now; try again") from None
        return identity if rating is None else dataclasses.replace(identity, rating=rating)
