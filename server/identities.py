"""Who a ``hello`` says it is: a player known by their token, or a new one, made and stored.

The only part of greeting a player that waits, for the store: the glue
(:mod:`server.app`) awaits :meth:`Identities.identify` and sends ``welcome``
or the refusal. New players are limited per address (``--new-players-per-ip``
an hour, counted across workers when they share a lobby), and a name the
protocol's rule or the bots refuse costs no new player.

A returning player is read afresh from the store (:meth:`Store.standing
<server.store.interface.Store.standing>`): their rating (races on other workers
may have moved it), their name (the operator may have renamed them), their
flags, whether they are a bot, banned (``banned``) or forgotten (``bad_token``,
whatever this worker's registry still says: the store decides at once, the
registry follows within a second, server/operator/watch.py). ``hello.bot``
makes a new player a bot, and a returning one a bot from then on.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import time
from typing import TYPE_CHECKING

from core.bots import BOT_NAMES, bot_id
from core.events import Refused
from core.ghost import GHOST_ID, GHOST_NAME
from core.identity import Identity, Registry, hash_token
from core.limits import AddressLimit
from core.race_log import to_seconds
from protocol import PROTOCOL_VERSION, RATE_BURST, RATE_PER_S, Limits, Rating, Welcome
from server.store import StoreError, StoreUnavailable
from server.store.rows import declare_bot

if TYPE_CHECKING:
    from collections.abc import Callable

    from protocol import Hello, RequestId
    from server.config import Settings
    from server.http.metrics import Metrics
    from server.peers import Peers
    from server.store import Store

__all__ = ["Identities"]

log = logging.getLogger("flowergarden.server")


class Identities:
    """The players this server knows (:attr:`registry`), and making new ones."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        clock: Callable[[], float],
        metrics: Metrics,
        peers: Peers,
    ) -> None:
        self.registry = Registry()
        """Every player, from the store once it is open (:meth:`know`)."""
        self._store, self._clock, self._metrics, self._peers = store, clock, metrics, peers
        per_ip = settings.new_players_per_ip
        self._new_players = AddressLimit(per_ip, per_ip)
        self._limits = Limits(
            idle_s=to_seconds(settings.idle_timeout),
            grace_s=to_seconds(settings.grace),
            max_message=settings.max_message,
            burst=RATE_BURST,
            per_s=RATE_PER_S,
            hello_timeout_s=to_seconds(settings.hello_timeout),
        )
        """What ``welcome`` tells every player of this server's settings."""

    def welcome(self, identity: Identity, token: str, request_id: RequestId | None) -> Welcome:
        """What ``hello`` is answered with, for ``identity`` (whose ``token`` it is)."""
        rating = identity.rating
        return Welcome(
            player_id=identity.player_id,
            name=identity.name,
            token=token,
            protocol=PROTOCOL_VERSION,
            bot=identity.bot,
            rating=Rating(rating=rating.shown, provisional=rating.provisional),
            limits=self._limits,
            id=request_id,
        )

    async def add_bots(self) -> None:
        """Make the bots, and the ghost of the daily deal, players of the store the first
        time (core/bots.py, core/ghost.py)."""
        bots = [(bot_id(level), name) for level, name in BOT_NAMES.items()]
        refused: dict[str, tuple[str, StoreError]] = {}
        for player_id, name in [*bots, (GHOST_ID, GHOST_NAME)]:
            if self.registry.knows(player_id):
                continue
            # A bot never says hello: its token is thrown away.
            token_hash = hash_token(secrets.token_urlsafe(32))
            identity = Identity(player_id, name, token_hash, time.time())
            try:
                await self._store.add_player(identity)
            except StoreError as exc:  # another worker made it first, or the name is a human's
                refused[player_id] = (name, exc)
                continue
            self.registry.learn(identity)
        if refused:  # workers started together each try to make the bots: one does
            stored = {known.player_id: known for known in await self._store.players()}
            for player_id, (name, why) in refused.items():
                made = stored.get(player_id)
                if made is not None and made.name == name:
                    self.registry.learn(made)
                else:
                    log.warning("bot %s not added: %s", name, why)

    def know(self, identities: list[Identity]) -> None:
        """Start from the players the store holds."""
        self.registry = Registry(identities)

    async def identify(self, hello: Hello, address: str) -> tuple[Identity, str]:
        """The player of ``hello`` from ``address`` and their token; raises :class:`Refused`."""
        identity, token = await self._player(hello, address)
        if hello.token is not None:
            identity = await self._standing(identity, declared=hello.bot)
        return identity, token

    async def _player(self, hello: Hello, address: str) -> tuple[Identity, str]:
        if hello.protocol is not None and hello.protocol != PROTOCOL_VERSION:
            raise Refused("unsupported_protocol", f"this server speaks protocol {PROTOCOL_VERSION}")
        registry = self.registry
        if hello.token is not None:
            known = registry.find(hello.token) or await self._stored(hello.token)
            return known or registry.by_token(hello.token), hello.token
        registry.check_name(hello.name)  # a name refused costs no new player
        if self._store.failing:  # not queued behind writes that are being retried
            raise Refused("unavailable", "new players cannot be stored now; try again")
        if not self._new_players.charge(address, self._clock()) or (
            not await self._peers.allows_new_player(address)
        ):
            raise Refused("rate_limited", "too many new players from your address; try later")
        token = secrets.token_urlsafe(32)
        identity = registry.create("p" + secrets.token_hex(8), hello.name, token, time.time())
        identity = dataclasses.replace(identity, bot=hello.bot)
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

    async def _stored(self, token: str) -> Identity | None:
        """The player of ``token`` as the store has them: one another worker made.

        A store that fails now is not asked: the registry's answer stands.
        """
        try:
            known = await self._store.find_player(hash_token(token))
        except StoreError:
            return None
        if known is not None:
            self.registry.learn(known)
        return known

    async def _standing(self, identity: Identity, *, declared: bool) -> Identity:
        """``identity`` as the store has them now (see the module docstring); raises
        ``bad_token`` for a forgotten player, ``banned`` for a banned one.

        ``declared``: the hello said ``bot``, which the store keeps for ever.
        """
        try:
            now = await self._store.standing(identity.player_id)
            if now is not None and declared and not now.bot:
                await self._store.run(declare_bot(identity.player_id))
        except StoreError as exc:
            log.error("could not read %s's standing: %s", identity.name, exc)
            raise Refused("unavailable", "your rating cannot be read now; try again") from None
        if now is None or now.forgotten:
            self.registry.forget(identity.player_id)
            raise Refused("bad_token", "no player has this token")
        if now.banned:
            raise Refused("banned", "this player is banned from this server")
        return dataclasses.replace(
            identity,
            name=now.name,
            rating=now.rating,
            bot=now.bot or declared,
            flags=now.flags,
            last_daily=now.last_daily,
        )
