"""docs/clients.md stays true: its transcript is real messages, in the order the
transcript script makes them against the server today, and it names where things are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from jsonschema import Draft202012Validator

from protocol import DecodeError, decode, decode_server
from protocol.conformance import VECTORS
from protocol.conformance.transcript import session
from protocol.schema import SCHEMA_DIR

if TYPE_CHECKING:
    from server.app import GameServer

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "clients.md").read_text(encoding="utf-8")
REGENERATE = "regenerate it: python -m protocol.conformance.transcript against a fresh server"


def transcript() -> list[str]:
    """The lines of the doc's transcript, the code block after "A session"."""
    block = DOC.split("## A session", 1)[1].split("```text\n", 1)[1].split("\n```", 1)[0]
    return block.splitlines()


def shape(lines: list[str]) -> list[list[tuple[str, str, str]]]:
    """Each step's frames as (who, direction, type), in an order that does not depend
    on which of several sockets the loop reads first."""
    steps: list[list[tuple[str, str, str]]] = [[]]
    for line in lines:
        if line.startswith("#"):
            steps.append([])
            continue
        who, arrow, frame = line.split(" ", 2)
        try:
            kind = str(json.loads(frame)["type"])
        except ValueError:
            kind = "(not JSON)"
        steps[-1].append((who, arrow, kind))
    return [sorted(step) for step in steps]


def test_the_transcripts_frames_are_messages() -> None:
    schema = json.loads((SCHEMA_DIR / "server.json").read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    lines = [line for line in transcript() if not line.startswith("#")]
    kinds = set()
    for i, line in enumerate(lines):
        _, arrow, frame = line.split(" ", 2)
        if arrow == "→":
            try:
                decode(frame)
            except DecodeError as refused:  # on purpose: the next frame to them says so
                reply = json.loads(lines[i + 1].split(" ", 2)[2])
                assert (reply["type"], reply["code"]) == ("error", refused.code), line
            continue
        kinds.add(json.loads(frame)["type"])
        if '"…"' not in frame:  # boards cut for the page
            decode_server(frame)
            assert [e.message for e in validator.iter_errors(json.loads(frame))] == [], line
    assert kinds >= {
        "welcome", "error", "seeking", "game_start", "played", "game_state", "opponent_away",
        "opponent_back", "game_over", "rematch_offered", "status",
    }  # fmt: skip


async def test_the_transcript_is_what_the_server_says_today(server: GameServer) -> None:
    assert shape(await session(server.url)) == shape(transcript()), REGENERATE


@pytest.mark.parametrize(
    "named",
    [
        f"protocol/conformance/{VECTORS}",
        "protocol/schema/client.json",
        "protocol/schema/server.json",
        "python -m protocol.conformance ws://",
        "python -m protocol.conformance --serve ws://",
        "python -m protocol.conformance.transcript",
        "redeal_after",
        "redeal_of_winnable",
    ],
)
def test_the_doc_names_where_things_are(named: str) -> None:
    assert named in DOC
