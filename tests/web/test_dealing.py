"""The page's dealing (web/static/js/dealing.js) is PROTOCOL.md's: the known answers
(protocol/conformance/deal_vectors.jsonl, redeals after plays included), and the engine's
own deals of random seeds; its SHA-256 without Web Crypto agrees too; and its board says
why a card must wait in the engine's words.

Each check imports the page's modules inside the page, as the page itself does.
"""

from __future__ import annotations

import random

from client.card_faces import card_name
from engine import Board, dealing
from engine.cards import CARDS
from protocol.conformance import deal_vectors

VECTORS = deal_vectors()

DEAL = """async ([seeds, withRedeal]) => {
  const d = await import("/js/dealing.js");
  const s = await import("/js/sha256.js");
  const out = [];
  for (const hex of seeds) {
    const seed = s.seedFromHex(hex);
    const classic = await d.classic(seed);
    const cards = [...classic.beds.flat(), ...classic.bouquet];
    const redealt = withRedeal ? await d.redeal(seed, cards) : null;
    const winnable = await d.winnable(seed);
    const again = [...winnable.beds.flat(), ...winnable.bouquet];
    out.push({
      commit: await d.commit(seed), classic, winnable, redeal_of_classic: redealt,
      redeal_of_winnable: withRedeal ? await d.redeal(seed, again) : null,
    });
  }
  return out;
}"""

REDEAL_AFTER = """async (vectors) => {
  const d = await import("/js/dealing.js");
  const s = await import("/js/sha256.js");
  const { Board } = await import("/js/board.js");
  const out = [];
  for (const { seed: hex, plays } of vectors) {
    const seed = s.seedFromHex(hex);
    const board = new Board({ ...(await d.classic(seed)), redeals_left: 1 });
    for (const code of plays) board.play(code);
    const status = board.status();
    board.redealAs(await d.redeal(seed, board.gathered()));
    out.push({ status, board: { beds: board.beds, bouquet: board.bouquet } });
  }
  return out;
}"""


def layout_json(layout: object) -> dict[str, object]:
    beds = [[str(card) for card in bed] for bed in layout.beds]  # type: ignore[attr-defined]
    return {"beds": beds, "bouquet": [str(card) for card in layout.bouquet]}  # type: ignore[attr-defined]


def test_known_answers(web, new_page) -> None:
    page = new_page(web.base)
    dealt = page.evaluate(DEAL, [[vector["seed"] for vector in VECTORS], True])
    assert len(dealt) == len(VECTORS) >= 4
    for vector, got in zip(VECTORS, dealt, strict=True):
        keys = ("commit", "classic", "winnable", "redeal_of_classic", "redeal_of_winnable")
        for key in keys:
            assert got[key] == vector[key], (vector["seed"], key)


def test_known_answers_of_a_redeal_after_plays(web, new_page) -> None:
    """The page's board plays the vector's cards, is stuck, and redeals what it gathers."""
    page = new_page(web.base)
    asked = [{"seed": v["seed"], "plays": v["redeal_after"]["plays"]} for v in VECTORS]
    redealt = page.evaluate(REDEAL_AFTER, asked)
    for vector, got in zip(VECTORS, redealt, strict=True):
        assert got["status"] == "stuck", vector["seed"]
        assert got["board"] == vector["redeal_after"]["board"], vector["seed"]


def test_random_seeds_deal_as_the_engine_deals(web, new_page) -> None:
    rng = random.Random(16)
    seeds = [rng.randbytes(32) for _ in range(40)]
    page = new_page(web.base)
    dealt = page.evaluate(DEAL, [[seed.hex() for seed in seeds], True])
    for seed, got in zip(seeds, dealt, strict=True):
        classic = dealing.classic(seed)
        assert got["commit"] == dealing.commit(seed)
        assert got["classic"] == layout_json(classic)
        assert got["winnable"] == layout_json(dealing.winnable(seed))
        gathered = [card for bed in classic.beds for card in bed] + list(classic.bouquet)
        assert got["redeal_of_classic"] == layout_json(dealing.redeal(seed, gathered))


def test_sha256_without_web_crypto(web, new_page) -> None:
    """A page over plain http on a LAN address has no crypto.subtle: the fallback is exact."""
    page = new_page(web.base)
    mismatches = page.evaluate("""async () => {
      const s = await import("/js/sha256.js");
      const bad = [];
      for (let n = 0; n < 300; n++) {
        const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 255);
        const subtle = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
        if (s.toHex(s.sha256js(bytes)) !== s.toHex(subtle)) bad.push(n);
      }
      return bad;
    }""")
    assert mismatches == []


def test_refusals_in_the_engines_words(web, new_page) -> None:
    """Why a card cannot go up, said by the page as the terminal client says it."""
    rng = random.Random(7)
    page = new_page(web.base)
    for _ in range(5):
        seed = rng.randbytes(32)
        layout = dealing.winnable(seed) if rng.random() < 0.5 else dealing.classic(seed)
        board = Board(layout)
        for _ in range(rng.randrange(0, 20)):  # some way into the game
            legal = board.legal_plays()
            if not legal:
                break
            board.play(rng.choice(legal))
        wire = {
            "beds": [[str(card) for card in bed] for bed in board.beds],
            "bouquet": [str(card) for card in board.bouquet],
            "foundations": dict(zip("SHDC", board.foundations, strict=True)),
        }
        words = page.evaluate(
            """async (wire) => {
              const { Board } = await import("/js/board.js");
              const { DECK } = await import("/js/cards.js");
              const board = Board.fromWire(wire);
              return DECK.map((code) => board.whyIllegal(code));
            }""",
            wire,
        )
        expected = [board.why_illegal(card, card_name) for card in CARDS]
        assert words == expected
