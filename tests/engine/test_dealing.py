"""Verifiable dealing: PROTOCOL.md's known answers, the stream's pieces, and the dealers.

The known answers are the repository's one copy of the protocol's conformance
vectors, ``protocol/conformance/deal_vectors.jsonl`` (the package ships it to
client authors): one JSON object a line with ``seed``, ``commit``, ``classic``,
``winnable``, ``redeal_of_classic``, ``redeal_of_winnable`` and ``redeal_after``.
The engine's tests read the file itself, not through :mod:`protocol`, which the
engine does not know.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from engine import (
    ALGORITHM,
    BED_SIZE,
    BEDS,
    BOUQUET_SIZE,
    CARDS,
    LEGACY_ALGORITHM,
    SEED_SIZE,
    Board,
    Card,
    IllegalRedeal,
    Layout,
    LegacyDealer,
    SeedDealer,
    Status,
    can_clear,
    commit,
    deal,
    deal_cards,
    greedy_plays,
    seed_from_hex,
    winnable_deal,
)
from engine.deal import shuffle as mt_shuffle
from engine.dealing import below, classic, redeal, shuffle, winnable, words

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from engine import Dealer

VECTORS_PATH = Path(__file__).parents[2] / "protocol" / "conformance" / "deal_vectors.jsonl"
VECTORS = [json.loads(line) for line in VECTORS_PATH.read_text().splitlines() if line.strip()]


def as_json(layout: Layout) -> dict[str, object]:
    return {
        "beds": [[str(card) for card in bed] for bed in layout.beds],
        "bouquet": [str(card) for card in layout.bouquet],
    }


def gathered(layout: Layout) -> list[Card]:
    """PROTOCOL.md's redeal order: beds 0 to 5 each bottom to front, then the bouquet."""
    return [card for bed in layout.beds for card in bed] + list(layout.bouquet)


def seed_of(i: int) -> bytes:
    return hashlib.sha256(b"test seed %d" % i).digest()


# -- known answers -------------------------------------------------------------


FIELDS = {
    "seed", "commit", "classic", "winnable",
    "redeal_of_classic", "redeal_of_winnable", "redeal_after",
}  # fmt: skip


def test_the_vectors_are_there() -> None:
    assert len(VECTORS) >= 4
    for vector in VECTORS:
        assert set(vector) == FIELDS
        assert set(vector["redeal_after"]) == {"plays", "board"}
    # Some vector plays several cards before its redeal, of more than one suit.
    assert max(len(vector["redeal_after"]["plays"]) for vector in VECTORS) > 3


@pytest.mark.parametrize("vector", VECTORS, ids=lambda vector: vector["seed"][:8])
def test_known_answers(vector: dict[str, Any]) -> None:
    seed = seed_from_hex(str(vector["seed"]))
    assert commit(seed) == vector["commit"]
    dealt = classic(seed)
    assert as_json(dealt) == vector["classic"]
    assert as_json(winnable(seed)) == vector["winnable"]
    assert as_json(redeal(seed, gathered(dealt))) == vector["redeal_of_classic"]
    assert as_json(redeal(seed, gathered(winnable(seed)))) == vector["redeal_of_winnable"]


@pytest.mark.parametrize("vector", VECTORS, ids=lambda vector: vector["seed"][:8])
def test_known_answers_of_a_redeal_after_plays(vector: dict[str, Any]) -> None:
    """The classic layout, the vector's cards played in order on a board (each legal when
    it comes, and then the board is stuck), then the board's own redeal, as a race makes it."""
    seed = seed_from_hex(vector["seed"])
    dealer = SeedDealer(seed)
    board = Board(dealer.layout(winnable=False), redeals=1)
    for code in vector["redeal_after"]["plays"]:
        board.play(Card.parse(code))
    assert board.status is Status.STUCK
    board.redeal(dealer.redeal)
    redealt = Layout(tuple(map(tuple, board.beds)), tuple(board.bouquet))
    assert as_json(redealt) == vector["redeal_after"]["board"]


def test_a_board_gathers_its_cards_in_protocol_order() -> None:
    """Board.redeal hands its dealer the beds 0 to 5 bottom to front, then the bouquet."""
    board = Board(classic(seed_of(0)), redeals=1)
    for card in greedy_plays(board):
        board.play(card)
    expected = [card for bed in board.beds for card in bed] + board.bouquet
    given: list[list[Card]] = []

    def dealer(cards: Sequence[Card]) -> Layout:
        given.append(list(cards))
        return deal_cards(cards)

    board.redeal(dealer)
    assert given == [expected]
    assert [card for bed in board.beds for card in bed] + board.bouquet == gathered(
        deal_cards(expected)
    )


# -- the pieces ----------------------------------------------------------------


def test_the_stream_is_sha256_blocks_cut_into_words() -> None:
    seed = bytes(range(32))
    stream = words(seed, b"deal")
    first = [next(stream) for _ in range(16)]
    blocks = hashlib.sha256(seed + b"deal" + bytes(4)).digest()
    blocks += hashlib.sha256(seed + b"deal" + (1).to_bytes(4, "big")).digest()
    assert first == [int.from_bytes(blocks[i : i + 4], "big") for i in range(0, 64, 4)]
    assert next(words(seed, b"redeal")) != first[0]


def test_below_rejects_words_at_or_over_the_bound() -> None:
    # 2**32 % 3 == 1: the bound is 2**32 - 1, so the top word is rejected.
    stream = iter([2**32 - 1, 2**32 - 2, 7])
    assert below(stream, 3) == (2**32 - 2) % 3
    assert next(stream) == 7  # one word rejected, one taken, nothing more read
    # 2**32 % 5 == 1 as well; 2**32 % 6 == 4: the bound is 2**32 - 4.
    assert below(iter([2**32 - 4, 2**32 - 3, 2**32 - 5]), 6) == (2**32 - 5) % 6
    # A power of two rejects nothing; n == 1 takes one word and gives 0.
    assert below(iter([2**32 - 1]), 4) == 3
    stream = iter([12345, 6])
    assert below(stream, 1) == 0
    assert next(stream) == 6


def test_shuffle_is_fisher_yates_from_the_end() -> None:
    # Swaps i=3 with 2, i=2 with 0, i=1 with 1: [a b c d] -> [a b d c] -> [d b a c].
    items = ["a", "b", "c", "d"]
    shuffle(items, iter([2, 0, 1]))
    assert items == ["d", "b", "a", "c"]


def test_the_dealing_rule_is_engines() -> None:
    """deal_out is engine.deal_cards: card k onto bed k mod 6 while k < 36, then the bouquet."""
    layout = deal_cards(list(CARDS))
    for k, card in enumerate(CARDS[:36]):
        assert layout.beds[k % 6][k // 6] == card
    assert layout.bouquet == CARDS[36:]
    short = deal_cards(list(CARDS[:8]))
    assert [len(bed) for bed in short.beds] == [2, 2, 1, 1, 1, 1]
    assert short.bouquet == ()


def test_the_deck_order_is_the_protocols() -> None:
    assert " ".join(map(str, CARDS[:14])) == "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AH"
    assert [str(CARDS[13 * suit]) for suit in range(4)] == ["AS", "AH", "AD", "AC"]


# -- layouts -------------------------------------------------------------------


@pytest.mark.parametrize("deal_of", [classic, winnable])
def test_a_layout_is_six_beds_of_six_and_sixteen_bouquet(
    deal_of: Callable[[bytes], Layout],
) -> None:
    for i in range(20):
        layout = deal_of(seed_of(i))
        assert [len(bed) for bed in layout.beds] == [BED_SIZE] * BEDS
        assert len(layout.bouquet) == BOUQUET_SIZE
        assert sorted(gathered(layout)) == list(CARDS)


def test_a_winnable_layout_can_be_cleared() -> None:
    for i in range(200):
        assert can_clear(winnable(seed_of(i))), i


def test_seeds_deal_differently() -> None:
    assert len({classic(seed_of(i)) for i in range(50)}) == 50
    assert len({winnable(seed_of(i)) for i in range(50)}) == 50


def test_a_redeal_keeps_the_cards() -> None:
    cards = list(CARDS[5:13]) + list(CARDS[20:45])
    layout = redeal(seed_of(1), cards)
    assert sorted(gathered(layout)) == cards
    assert [len(bed) for bed in layout.beds] == [6, 6, 6, 5, 5, 5]
    assert layout.bouquet == ()


# -- seeds ---------------------------------------------------------------------


def test_seed_from_hex() -> None:
    text = "84d671b0b7a86be802f8e103b74b657587957a8d3a670fd2e64d7b81fa9026e9"
    assert seed_from_hex(text).hex() == text
    assert seed_from_hex(text.upper()) == seed_from_hex(text)
    assert len(seed_from_hex(text)) == SEED_SIZE


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "not 0"),
        ("ab" * 31, "not 62"),
        ("ab" * 33, "not 66"),
        ("0x" + "ab" * 31, "not 'x'"),
        ("g" + "0" * 63, "not 'g'"),
        (" " + "0" * 63, "not ' '"),
        ("0" * 63 + "\n", "not '\\n'"),
    ],
)
def test_seed_from_hex_says_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(ValueError, match="a seed is") as raised:
        seed_from_hex(text)
    assert says in str(raised.value)


def test_commit_is_lowercase_hex_sha256() -> None:
    seed = bytes(32)
    assert commit(seed) == hashlib.sha256(seed).hexdigest()
    assert commit(seed) == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"


# -- dealers -------------------------------------------------------------------


def test_a_seed_dealer_deals_its_seed() -> None:
    seed = seed_of(7)
    dealer: Dealer = SeedDealer(seed)
    assert dealer.algorithm == ALGORITHM == "sha256"
    assert SeedDealer(seed).commit == commit(seed)
    assert dealer.layout(winnable=False) == classic(seed)
    assert dealer.layout(winnable=True) == winnable(seed)
    cards = list(CARDS[:30])
    assert dealer.redeal(cards) == redeal(seed, cards)


def test_a_seed_dealer_wants_32_bytes() -> None:
    with pytest.raises(ValueError, match="32 bytes, not 31"):
        SeedDealer(bytes(31))


def test_the_legacy_dealer_deals_as_races_always_did() -> None:
    dealer: Dealer = LegacyDealer(1234, 99)
    assert dealer.algorithm == LEGACY_ALGORITHM == "mt19937"
    assert dealer.layout(winnable=False) == deal(1234)
    assert dealer.layout(winnable=True) == winnable_deal(1234)
    # The redeal before dealers: the cards in play sorted, shuffled by Random(seed).
    cards = list(CARDS[3:13]) + list(CARDS[15:52])
    expected = sorted(cards)
    mt_shuffle(expected, random.Random(99))
    scrambled = cards[::-1]
    assert dealer.redeal(scrambled) == deal_cards(expected)


def test_the_legacy_redeal_ignores_the_gathering_order() -> None:
    dealer = LegacyDealer(0, 5)
    cards = list(CARDS[10:40])
    assert dealer.redeal(cards) == dealer.redeal(random.Random(3).sample(cards, len(cards)))


def test_dealers_drive_a_stuck_board() -> None:
    for dealer in (SeedDealer(seed_of(3)), LegacyDealer(3, 3)):
        board = Board(dealer.layout(winnable=False), redeals=1)
        for card in greedy_plays(board):
            board.play(card)
        in_play = [card for bed in board.beds for card in bed] + board.bouquet
        board.redeal(dealer.redeal)
        assert [card for bed in board.beds for card in bed] + board.bouquet == list(
            gathered(dealer.redeal(in_play))
        )
        with pytest.raises(IllegalRedeal):
            board.redeal(dealer.redeal)
