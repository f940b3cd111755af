"""The recurring arenas of ``--arenas``: the plans parse or say what is wrong, and each
slot's arena has one id, the same on every worker."""

from __future__ import annotations

import calendar

import pytest

from protocol import Rules
from server.arena_schedule import ArenaPlan, arena_plans
from server.config import parse_args

TEN = calendar.timegm((2026, 12, 2, 10, 0, 0))
"""10:00 UTC, 2 December 2026."""


def test_plans_parse_with_their_rules_and_defaults() -> None:
    hourly, daily = arena_plans(
        'every=60 minutes=30 name="Hourly blitz" deal=mirror winnable_only=true rated=true;'
        " every=1440"
    )
    rated = Rules(deal="mirror", winnable_only=True, rated=True)
    assert hourly == ArenaPlan("Hourly blitz", 60, 30, rated)
    assert daily == ArenaPlan("Arena", 1440, 1440, Rules())
    assert arena_plans("") == [] and arena_plans(" ; ") == []


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("every=0", "every must be"),
        ("minutes=30", "every must be"),
        ("every=60 minutes=1441", "minutes must be"),
        ("every=60 minutes=٣٠", "minutes must be"),
        ("every=60 rated=true", "rated race needs"),
        ("every=60 colour=red", "unknown key 'colour'"),
        ("every=60 lonely", "not key=value"),
        ("every=60 name=", "name must be"),
    ],
)
def test_a_plan_that_does_not_parse_says_why(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        arena_plans(text)


def test_the_flag_refuses_a_bad_plan_at_start(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_args(["--arenas", "every=60 name=Hourly"]).arenas == "every=60 name=Hourly"
    with pytest.raises(SystemExit):
        parse_args(["--arenas", "every=sixty"])
    assert "--arenas: every must be" in capsys.readouterr().err


def test_the_slot_under_way_and_the_next_have_their_ids() -> None:
    plan = ArenaPlan("Hourly blitz!", 60, 30, Rules())
    assert plan.slots(TEN + 20 * 60) == [
        ("hourly-blitz-20261202T1000Z", TEN),
        ("hourly-blitz-20261202T1100Z", TEN + 3600),
    ]
    # Its 30 minutes over: only the next is wanted.
    assert plan.slots(TEN + 40 * 60) == [("hourly-blitz-20261202T1100Z", TEN + 3600)]
    assert ArenaPlan("***", 1440, 60, Rules()).arena_id(TEN) == "arena-20261202T1000Z"
