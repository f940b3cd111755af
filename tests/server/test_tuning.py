"""The process settings ``flowergarden-server`` applies at start-up."""

from __future__ import annotations

import gc
import platform
import sys
from typing import TYPE_CHECKING

import pytest

from server.tuning import GC_THRESHOLDS, tune_gc, tune_malloc

if TYPE_CHECKING:
    from collections.abc import Iterator


@pytest.fixture
def gc_restored() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_gc_collects_less_often_and_skips_start_up_objects(gc_restored: None) -> None:
    tune_gc()
    assert gc.get_threshold() == GC_THRESHOLDS
    assert gc.get_freeze_count() > 0


@pytest.mark.skipif(
    sys.platform != "linux" or platform.libc_ver()[0] != "glibc", reason="glibc's mallopt"
)
def test_glibc_takes_the_mmap_threshold() -> None:
    assert tune_malloc() is True
