"""The rules the protocol states once for everyone: the name rule and the status sets."""

from __future__ import annotations

import re
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import FINAL, NAME_PATTERN, NAME_RULE, RACING, BoardStatus, is_name

GOOD_NAMES = ["a", "a" * 20, "Ann_Lee-2", "007", "-_-", "Z"]
BAD_NAMES = ["", "a" * 21, "Ann Lee", " Ann", "Ann\n", "\nAnn", "Zoë", "名前", "a.b", "Ann!"]


@pytest.mark.parametrize("name", GOOD_NAMES, ids=repr)
def test_a_good_name(name: str) -> None:
    assert is_name(name)


@pytest.mark.parametrize("name", BAD_NAMES, ids=repr)
def test_a_bad_name(name: str) -> None:
    assert not is_name(name)


@given(st.text(max_size=25))
def test_the_name_rule_is_what_protocol_md_says(name: str) -> None:
    """1 to 20 ASCII letters, digits, ``_`` or ``-``: restated without a regular expression."""
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
    assert is_name(name) == (1 <= len(name) <= 20 and set(name) <= allowed)


def test_the_name_pattern_is_anchored_for_a_searching_matcher() -> None:
    # JSON Schema's "pattern" searches, as re.search does: the anchors make it whole.
    assert re.search(NAME_PATTERN, "Ann") and not re.search(NAME_PATTERN, "Ann!")
    assert "20" in NAME_RULE


def test_racing_and_final_statuses() -> None:
    statuses = set(get_args(BoardStatus))
    assert {"playing", "stuck"} == RACING
    assert {"stalled", "timed_out"} == FINAL
    assert statuses >= RACING | FINAL
    assert not RACING & FINAL
    # Neither racing nor final: the statuses that end the race at once.
    assert statuses - RACING - FINAL == {"cleared", "resigned", "abandoned"}
