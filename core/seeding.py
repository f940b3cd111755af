"""A race's seeds: drawn fresh, shown on the wire, written down and read back.

Every race deals from one 32-byte seed per seat (:class:`engine.SeedDealer`,
PROTOCOL.md "Dealing, verifiably"); a mirror race gives both seats the same
one. ``game_start`` shows each seed's commit and ``game_over`` the seed.

Races recorded before verifiable deals were dealt from four integers by
CPython's ``random`` (:class:`engine.LegacyDealer`: each seat's deal, then each
seat's redeal). The store keeps which algorithm dealt a race beside its seeds,
so such a race, restored or replayed, deals what it always dealt. On the wire
its integer deal seeds stand as 32 big-endian bytes; they do not follow the
algorithm, so a client's check of that race's deal fails, as it should.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

import engine

if TYPE_CHECKING:
    import random
    from collections.abc import Sequence

    from protocol import Rules

__all__ = ["Dealers", "StoredSeeds", "dealers_from", "fresh_dealers", "stored", "wire"]

Dealers: TypeAlias = "tuple[engine.Dealer, engine.Dealer]"
StoredSeeds: TypeAlias = "tuple[str | int, ...]"
"""Seeds as the store keeps them: hex strings, or a legacy race's integers."""


def fresh_dealers(rules: Rules, rng: random.Random) -> Dealers:
    """New seats' dealers; ``rng`` must be ``secrets.SystemRandom()`` outside tests."""
    first = engine.SeedDealer(rng.randbytes(engine.SEED_SIZE))
    if rules.deal == "mirror":
        return first, first
    return first, engine.SeedDealer(rng.randbytes(engine.SEED_SIZE))


def stored(dealers: Dealers) -> tuple[str, StoredSeeds]:
    """The algorithm that deals, and the seeds to write down."""
    first, second = dealers
    if isinstance(first, engine.SeedDealer) and isinstance(second, engine.SeedDealer):
        return engine.ALGORITHM, (first.seed.hex(), second.seed.hex())
    if isinstance(first, engine.LegacyDealer) and isinstance(second, engine.LegacyDealer):
        seeds = (first.deal_seed, second.deal_seed, first.redeal_seed, second.redeal_seed)
        return engine.LEGACY_ALGORITHM, seeds
    raise TypeError(f"dealers of two kinds: {dealers!r}")


def dealers_from(algorithm: str, seeds: Sequence[object]) -> Dealers:
    """The dealers a stored race was dealt with; ``ValueError`` if they do not parse."""
    if algorithm == engine.ALGORITHM:
        if len(seeds) != 2 or not all(type(seed) is str for seed in seeds):
            raise ValueError(f"seeds {seeds!r} are not two hex strings")
        first, second = (engine.SeedDealer(engine.seed_from_hex(str(seed))) for seed in seeds)
        return first, second
    if algorithm == engine.LEGACY_ALGORITHM:
        whole = [seed for seed in seeds if type(seed) is int and seed >= 0]
        if len(whole) != 4 or len(seeds) != 4:
            raise ValueError(f"seeds {seeds!r} are not four whole numbers")
        return engine.LegacyDealer(whole[0], whole[2]), engine.LegacyDealer(whole[1], whole[3])
    raise ValueError(f"unknown dealing algorithm {algorithm!r}")


def wire(dealers: Dealers) -> tuple[list[str], list[str]]:
    """Each seat's seed and commit as 64 hex digits: ``game_over.seeds``, ``game_start.commits``."""
    seeds = [_seed_bytes(dealer) for dealer in dealers]
    return [seed.hex() for seed in seeds], [engine.commit(seed) for seed in seeds]


def _seed_bytes(dealer: engine.Dealer) -> bytes:
    if isinstance(dealer, engine.SeedDealer):
        return dealer.seed
    assert isinstance(dealer, engine.LegacyDealer)
    return dealer.deal_seed.to_bytes(engine.SEED_SIZE, "big")
