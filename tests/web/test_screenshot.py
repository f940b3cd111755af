"""The README's picture: a race in the browser, half-way, as the real page draws it.

Every run takes the picture and checks that it is one of a race; only `make screenshot`
(``FLOWERGARDEN_SCREENSHOT=docs/race.png``) writes it into the checkout, so that an
ordinary run of the tests never changes the repository.
"""

from __future__ import annotations

import io
import os
import struct
from pathlib import Path

from .helpers import OPPONENT, OWN, PLAYABLE, expect, quick_match, sign_in

ROOT = Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 960, 640
"""Wide enough for both boards side by side, small enough to stay a light file; the
picture is the whole page, a little taller than the window."""
PLAYS = {"ann": 17, "bob": 11}
"""A race under way: ann ahead, both boards part-cleared."""


def test_a_race_half_way(web, new_page) -> None:
    ann = new_page(web.base, width=WIDTH, height=HEIGHT)
    bob = new_page(web.base)
    sign_in(ann, "ann")
    sign_in(bob, "bob")
    quick_match(ann, bob)
    for page, name in ((ann, "ann"), (bob, "bob")):
        for n in range(PLAYS[name]):
            page.locator(PLAYABLE).first.click()
            expect(page.locator(f"{OWN} .board-title")).to_contain_text(f"{n + 1}/52")
    expect(ann.locator(f"{OPPONENT} .board-title")).to_contain_text(f"bob · {PLAYS['bob']}/52")
    ann.mouse.move(0, 0)  # no hover ring on a card

    png = ann.screenshot(full_page=True)  # down to the keys' line, however deep the beds
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk's size
    assert width == WIDTH
    assert HEIGHT <= height < 2 * HEIGHT
    if target := os.environ.get("FLOWERGARDEN_SCREENSHOT"):
        (ROOT / target).write_bytes(_small(png))


def _small(png: bytes) -> bytes:
    """The picture in 64 colours: a third of the bytes (31 KB against 100), and alike to
    the eye, since the page is flat colours and text. Pillow comes with the benchmarks'
    matplotlib, which `make screenshot` installs; without it the picture is kept whole."""
    try:
        from PIL import Image
    except ImportError:
        return png
    picture = Image.open(io.BytesIO(png)).convert("RGB")
    fewer = picture.quantize(colors=64, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    fewer.save(out, "PNG", optimize=True)
    return out.getvalue()
