"""Checking a race's deal once ``game_over`` reveals the seeds: the one call into the engine.

At ``game_start`` the server commits to each seat's seed (``commits``) and at
``game_over`` reveals it (``seeds``); PROTOCOL.md's dealing algorithm then
gives the layouts anyone can deal again. :func:`check_deal` is the client's
only caller of :func:`engine.check_deal`, so a change there is adapted here
alone.

What can be checked depends on what this client saw:

- the boards as dealt (it saw ``game_start``, came back to a race it saw
  start, or was given the race by ``game_state`` at ``seq`` 0, before any play):
  every seed hashes to its commit, and each board is what its seed deals. That
  is "deal verified";
- only a later ``game_state`` (a spectator who came in mid-race, or a player
  back in a new app): those are the boards as they stand, not as dealt, so the layouts cannot be
  compared; the seeds are still checked against the commits ("deal partly
  verified"). The race's record on the server (``GET /api/races/GAME_ID``)
  has the boards as dealt, for a full check elsewhere.

A mirror race must also show the same seed for both seats.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import engine
from lang import t

if TYPE_CHECKING:
    from collections.abc import Sequence

    from protocol import Rules, WireBoard

__all__ = ["DealCheck", "check_deal"]

_HEX = re.compile(r"\b([0-9a-f]{12})[0-9a-f]{52}\b")
"""A seed or a commit: shown by its first 12 digits, so that the verdict fits a line or two."""


@dataclass(frozen=True, slots=True)
class DealCheck:
    """The verdict on one race's deal, in words; ``ok`` False is shown loudly."""

    ok: bool
    words: str


def check_deal(
    rules: Rules,
    commits: Sequence[str],
    seeds: Sequence[str],
    dealt: Sequence[WireBoard] | None,
) -> DealCheck:
    """Check the deal of a finished race (see the module docstring)."""
    if rules.deal == "mirror" and len(set(seeds)) != 1:
        return DealCheck(False, t("tui.deal.mirror_seeds"))
    if dealt is None:
        return _commits_only(commits, seeds)
    verdict = engine.check_deal(
        winnable=rules.winnable_only, seeds=seeds, commits=commits, boards=dealt
    )
    if verdict.ok:
        return DealCheck(True, t("tui.deal.verified"))
    failed = next(check for check in verdict.checks if check.outcome == "failed")
    why = f"{failed.name}: {failed.detail}"  # the engine's own words for the check
    return DealCheck(False, _short(t("tui.deal.failed", why=why)))


def _commits_only(commits: Sequence[str], seeds: Sequence[str]) -> DealCheck:
    if len(commits) != len(seeds):
        return DealCheck(False, t("tui.deal.no_seed"))
    for seat, (promised, seed) in enumerate(zip(commits, seeds, strict=True)):
        try:
            hashed = engine.commit(engine.seed_from_hex(seed))
        except ValueError as exc:
            return DealCheck(False, t("tui.deal.seed_bad", seat=seat, why=str(exc)))
        if hashed != promised.lower():
            words = t("tui.deal.seed_hash", seat=seat, hashed=hashed, promised=promised)
            return DealCheck(False, _short(words))
    return DealCheck(True, t("tui.deal.partly"))


def _short(words: str) -> str:
    return _HEX.sub(r"\1…", words)
