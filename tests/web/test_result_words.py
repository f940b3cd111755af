"""The page says a race's times and margin as the terminal client does, word for word.

The cases are the terminal client's (tests/client/result_cases.py); here the page's own
``timesWords`` (web/static/js/words.js) is held to the same words.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.client.result_cases import TIMES_CASES, as_json


@pytest.fixture
def page(web: Any, new_page: Any) -> Any:
    return new_page(web.base)


def test_times_and_margins_read_as_in_the_terminal(page):
    said = page.evaluate(
        """async (cases) => {
          const { timesWords } = await import("/js/words.js");
          return cases.map((race) => timesWords(race.players, race));
        }""",
        [as_json(case) for case in TIMES_CASES],
    )
    assert said == [case[-1] for case in TIMES_CASES]


@pytest.mark.parametrize(("can_redeal", "words"), [(True, "play or redeal"), (False, "play")])
def test_the_idle_warning_names_a_redeal_only_when_there_is_one(page, can_redeal, words):
    said = page.evaluate(
        """async (canRedeal) => (await import("/js/words.js")).idleLeftWords("0:14", canRedeal)""",
        can_redeal,
    )
    assert said == f"0:14 left to {words}"
