"""Who may race rated, and against whom: what the lobby checks before a rated race starts.

A rating is only worth what it takes to earn it, and a farm of throwaway
accounts that lose to one account on purpose earns it nothing but time. The
race itself rates nothing without racing (:func:`core.fair_play.why_unrated`);
the lobby keeps the rest out before a rated race starts (docs/fair-play.md,
"Farms of accounts"):

* a declared bot (``hello.bot``) never races rated, and a player with
  :attr:`RatedLimits.barred_at` flagged races or more is refused rated races
  until the operator clears their flags: both ``not_allowed``;
* two players from one address never race each other rated: quick match does
  not pair them, and a rated room, a rated rematch are ``not_allowed``;
* the same two players race each other rated at most ``per_pair`` times a day,
  and a player races a provisional opponent (a new account, as a farm's are)
  at most :attr:`RatedLimits.against_provisional` times a day: quick match
  does not pair them past it, and a rated room, a rated rematch are
  ``rate_limited``. Each is a token bucket (:class:`~core.limits.AddressLimit`,
  keyed by pair or by player) that refills over the day.

Only a public address tells players apart (:func:`origin`): an IPv4 address,
or an IPv6 address's /64 (one subscriber's network, whose addresses a farm
could take in turn). A loopback or private address (a proxy in front of the
server, a LAN) and one the lobby was not told (``""``) match no other: the
rule is off where the server cannot see who connects, rather than barring
everyone behind one proxy from rated races. Everything takes ``now``; nothing
here sends anything.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .events import Refused
from .limits import AddressLimit

if TYPE_CHECKING:
    from .lobby_player import LobbyPlayer

__all__ = [
    "AGAINST_PROVISIONAL",
    "BARRED_AT",
    "RATED_LIMITS",
    "RatedGate",
    "RatedLimits",
    "origin",
]

AGAINST_PROVISIONAL = 10
"""Rated races a day a player may race against provisional opponents."""
BARRED_AT = 3
"""Flagged races from which a player is refused rated races."""


@dataclass(frozen=True, slots=True)
class RatedLimits:
    """The limits on rated races besides the one per pair (see the module docstring)."""

    against_provisional: int = AGAINST_PROVISIONAL
    barred_at: int = BARRED_AT
    one_address: bool = True
    """Whether two players from one address are kept from racing each other rated."""


RATED_LIMITS = RatedLimits()
"""The limits a lobby keeps unless it is given others."""


class RatedGate:
    """Which rated races may start, and what each one uses up (see the module docstring)."""

    def __init__(self, per_pair: int, limits: RatedLimits) -> None:
        """``per_pair``: rated races the same two players may start a day."""
        self.limits = limits
        self._pairs = AddressLimit(per_pair, per_pair / 24)
        daily = limits.against_provisional
        self._provisional = AddressLimit(daily, daily / 24)
        """Rated races against a provisional opponent, by player."""

    def check_player(self, player: LobbyPlayer) -> None:
        """Raise ``not_allowed`` if ``player`` may race no rated race at all."""
        refused = self._barred(player)
        if refused is not None:
            raise refused

    def check(self, first: LobbyPlayer, second: LobbyPlayer, now: float) -> None:
        """Raise ``not_allowed`` or ``rate_limited`` if these two may not start a rated race."""
        refused = self._refusal(first, second, now)
        if refused is not None:
            raise refused

    def allows(self, first: LobbyPlayer, second: LobbyPlayer, now: float) -> bool:
        """Whether quick match may pair these two for a rated race at ``now``."""
        return self._refusal(first, second, now) is None

    def charge(self, first: LobbyPlayer, second: LobbyPlayer, now: float) -> None:
        """These two start a rated race: it counts against each limit it falls under."""
        self._pairs.charge(_pair(first.id, second.id), now)
        for player, opponent in ((first, second), (second, first)):
            if opponent.rating.provisional:
                self._provisional.charge(player.id, now)

    def _refusal(self, first: LobbyPlayer, second: LobbyPlayer, now: float) -> Refused | None:
        """Why these two may not start a rated race at ``now``; None if they may."""
        for player in (first, second):
            refused = self._barred(player)
            if refused is not None:
                return refused
        if self._one_address(first, second):
            return Refused("not_allowed", "players from one address do not race each other rated")
        if not self._pairs.allows(_pair(first.id, second.id), now):
            return Refused("rate_limited", "you two have had today's rated races; race unrated")
        if not self._provisional_allows(first, second, now):
            return Refused(
                "rate_limited", "today's rated races against new players are used up; race unrated"
            )
        return None

    def _barred(self, player: LobbyPlayer) -> Refused | None:
        """Why ``player`` may race no rated race at all (named: it may be the opponent)."""
        if player.bot:
            return Refused("not_allowed", f"{player.name} is a bot: its races are never rated")
        if player.flags >= self.limits.barred_at:
            why = f"{player.name}'s play was flagged too often for rated races; race unrated"
            return Refused("not_allowed", why)
        return None

    def _one_address(self, first: LobbyPlayer, second: LobbyPlayer) -> bool:
        if not self.limits.one_address:
            return False
        where = origin(first.address)
        return where is not None and where == origin(second.address)

    def _provisional_allows(self, first: LobbyPlayer, second: LobbyPlayer, now: float) -> bool:
        return all(
            self._provisional.allows(player.id, now)
            for player, opponent in ((first, second), (second, first))
            if opponent.rating.provisional
        )


def origin(address: str) -> str | None:
    """Who is behind ``address``, as far as it tells: the public IPv4 address, or the /64
    of a public IPv6 one; None for a loopback, private or unreadable address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if not ip.is_global:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def _pair(a: str, b: str) -> str:
    """Two players' key in the limit of rated races between them, whichever comes first."""
    return f"{a}|{b}" if a < b else f"{b}|{a}"
