"""The verifier's command line, ``python -m engine verify``: a file or stdin, what it prints
and the code it exits with."""

from __future__ import annotations

import copy
import io
import json
from typing import TYPE_CHECKING

import pytest

from engine.__main__ import main

if TYPE_CHECKING:
    from pathlib import Path

    from .verify_helpers import Record


# -- the command line ----------------------------------------------------------


def write(tmp_path: Path, record: object) -> str:
    path = tmp_path / "race.json"
    path.write_text(json.dumps(record))
    return str(path)


def test_cli_verifies(cleared: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", write(tmp_path, cleared)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "race 0123456789abcdef: verified"
    assert "commits" in out and "moves" in out


def test_cli_fails_a_tampered_record(
    cleared: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = copy.deepcopy(cleared)
    record["counts"] = [52, 52]
    assert main(["verify", write(tmp_path, record)]) == 1
    out = capsys.readouterr().out
    assert "FAIL counts" in out
    assert "NOT verified (1 of 7 failed)" in out


def test_cli_reads_stdin(
    cleared: Record, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(cleared)))
    assert main(["verify", "-"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("verified")


@pytest.mark.parametrize(
    ("content", "says"),
    [(None, "cannot read"), ("{not json", "is not JSON"), (b"\xff\xfe\x00", "is not JSON")],
)
def test_cli_unreadable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes | None, says: str
) -> None:
    path = tmp_path / "race.json"
    if isinstance(content, str):
        path.write_text(content)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    assert main(["verify", str(path)]) == 2
    captured = capsys.readouterr()
    assert says in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert "Traceback" not in captured.err and captured.out == ""


def test_cli_a_json_that_is_no_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", write(tmp_path, [1, 2])]) == 1
    assert "record" in capsys.readouterr().out


def test_cli_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["verify", "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "FILE" in out and "stdin" in out and "GET /api/races/GAME_ID" in out
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "verify" in capsys.readouterr().out
