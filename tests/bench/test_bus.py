"""bench.bus runs against a real Redis and prints its figures as JSON (its last line)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from bench.bus import encodings, main

if TYPE_CHECKING:
    import pytest


def test_messagepack_carries_a_frame_in_fewer_bytes_than_json_and_base64() -> None:
    figures = encodings(50)
    assert figures["msgpack_bytes"] < figures["json_base64_bytes"]
    assert figures["msgpack_us"] > 0 and figures["json_base64_us"] > 0


def test_a_short_run_measures_both_deliveries(
    redis_server: object, capsys: pytest.CaptureFixture[str]
) -> None:
    # redis_server: skipped, or failed in CI, where there is no redis-server
    assert main(["--messages", "300"]) == 0
    figures = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert figures["pubsub_msgs_per_s"] > 0 and figures["streams_msgs_per_s"] > 0
    assert 0 < figures["pubsub_p50_ms"] <= figures["pubsub_p99_ms"]
