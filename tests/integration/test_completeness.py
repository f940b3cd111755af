"""The integration tests expect every error code and every server message somewhere.

A static check over this folder's sources, so that a code or a message added to
the protocol without an integration test fails here, by name.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest

from protocol import ERROR_CODES, ServerMessage

HERE = Path(__file__).parent
SOURCES = "\n".join(
    path.read_text() for path in sorted(HERE.glob("*.py")) if path.name != Path(__file__).name
)
SERVER_TYPES = [
    model.model_fields["type"].default for model in get_args(get_args(ServerMessage)[0])
]
NOT_YET: dict[str, str] = {}
"""What revision 3 added that the server does not do yet: each must fail here until it does."""


def _pending(values: list[str]) -> list[object]:
    return [
        pytest.param(v, marks=pytest.mark.xfail(strict=True, reason=NOT_YET[v]))
        if v in NOT_YET
        else v
        for v in values
    ]


@pytest.mark.parametrize("code", _pending(list(ERROR_CODES)))
def test_every_error_code_is_expected_somewhere(code):
    assert re.search(rf'(error|"code"\]) ?\(?(==)? ?"{code}"', SOURCES), code


@pytest.mark.parametrize("kind", _pending(SERVER_TYPES))
def test_every_server_message_is_received_somewhere(kind):
    assert re.search(rf'(recv|until)\([^)]*"{kind}"|"type": "{kind}"', SOURCES), kind
