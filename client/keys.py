"""One-key labels for the playable cards, and what a key or a typed card means.

Beds take the digits ``1``-``6`` (the bed's front card). Bouquet cards take
letters, and a card keeps its letter until it is played: labels that moved
each time a neighbour left would turn a racer's muscle memory into misplays.
The keys after ``p`` are the command keys (see :data:`COMMAND_KEYS`).

Everything here is pure: it reads an :class:`engine.Board` and never sends.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from engine import Card, MalformedCard, parse_lenient
from lang import t

from .card_faces import card_name

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from engine import Board

__all__ = [
    "BED_KEYS",
    "BOUQUET_KEYS",
    "COMMAND_KEYS",
    "Refusal",
    "assign_labels",
    "resolve_key",
    "resolve_prompt",
]

BED_KEYS = ("1", "2", "3", "4", "5", "6")
BOUQUET_KEYS = tuple("abcdefghijklmnop")
"""Sixteen letters in a row, one per bouquet card at most; q, r and x are commands."""
COMMAND_KEYS = {
    "r": "redeal while racing, rematch after the race",
    "x": "resign",
    "t": "the day's board, after a daily race",
    "z": "pause an arena",
    "q": "quit",
    "escape": "back to the lobby, after the race",
    "/": "card prompt",
    "?": "help",
}
assert not set(COMMAND_KEYS) & set(BOUQUET_KEYS)
assert len(BOUQUET_KEYS) == 16


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a key or a typed card plays nothing, in words for the player."""

    reason: str


def assign_labels(previous: Mapping[Card, str], bouquet: Sequence[Card]) -> dict[Card, str]:
    """Labels for ``bouquet``: each card keeps its old letter; new cards get the first free ones."""
    labels = {card: previous[card] for card in bouquet if card in previous}
    free = iter(key for key in BOUQUET_KEYS if key not in labels.values())
    for card in bouquet:
        if card not in labels:
            labels[card] = next(free)
    return labels


def resolve_key(
    key: str, board: Board, labels: Mapping[Card, str], *, ascii: bool = False
) -> Card | Refusal | None:
    """The card ``key`` plays, a :class:`Refusal`, or None if ``key`` is no card key."""
    if key in BED_KEYS:
        bed = board.beds[BED_KEYS.index(key)]
        if not bed:
            return Refusal(t("refusal.bed_empty", bed=key))
        card: Card = bed[-1]
    elif key in BOUQUET_KEYS:
        found = [card for card, label in labels.items() if label == key]
        if not found or found[0] not in board.bouquet:
            return Refusal(t("refusal.no_label", key=key))
        card = found[0]
    else:
        return None
    return _if_legal(board, card, ascii=ascii)


def resolve_prompt(text: str, board: Board, *, ascii: bool = False) -> Card | Refusal:
    """The card typed at the prompt (``qh``, ``10h``, ``th``), if it may be played now."""
    try:
        card = parse_lenient(text)
    except MalformedCard:
        return Refusal(t("refusal.not_a_card", text=repr(text.strip())))
    return _if_legal(board, card, ascii=ascii)


def _if_legal(board: Board, card: Card, *, ascii: bool) -> Card | Refusal:
    """``card``, or why not, in the language spoken: the engine decides (``why_illegal``),
    and the words name the same three reasons it gives: the card is up already, covered
    in its bed, or waiting for the card below it."""
    if board.why_illegal(card) is None:
        return card
    name = partial(card_name, ascii=ascii)
    top = board.foundations[card.suit]
    if top >= card.rank:
        return Refusal(t("refusal.on_foundation", card=name(card)))
    for index, bed in enumerate(board.beds):
        if card in bed and bed[-1] != card:
            above = len(bed) - 1 - bed.index(card)
            return Refusal(t("refusal.covered", card=name(card), count=above, bed=index + 1))
    needed = name(Card.of(top + 1, card.suit))
    return Refusal(t("refusal.must_wait", card=name(card), needed=needed))
