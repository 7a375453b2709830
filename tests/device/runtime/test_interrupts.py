"""Ctrl-C anywhere in a one-liner never frees memory a kernel is still writing (issue 12, item 1).

A ``sys.settrace`` hook raises KeyboardInterrupt at the n-th line dmlpy executes during a call, for every n in
turn until the call completes (lines that open a ``with`` block excepted: CPython itself can leak a lock when
interrupted there). After each interrupted call, an array of the same size is allocated at once, as the freed
one's memory is likely to be handed out again, and filled with a sentinel; the queue is drained, and the
sentinel must be intact. Then the next call must compute the right result.
"""

from __future__ import annotations

import linecache
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
import pytest

import dmlpy as dml

DMLPY_SOURCES = str(Path(dml.__file__).resolve().parent)
ELEMENTS = 8 * 2**20  # 32 MiB of float32: the kernel runs long enough for a premature free to be caught
SENTINEL = np.float32(-7.25)
pytestmark = pytest.mark.one_profile  # the host side's frees, the same under either launch profile's kernel shape


class _Interrupter:
    """A trace function raising KeyboardInterrupt at the ``target``-th line executed in dmlpy's sources."""

    def __init__(self, target: int) -> None:
        self.target, self.seen, self.fired = target, 0, False

    def __call__(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if not frame.f_code.co_filename.startswith(DMLPY_SOURCES):
            return None
        if event == "line" and not self.fired:
            text = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
            if not text.startswith(("with ", "async with ")):
                self.seen += 1
                if self.seen == self.target:
                    self.fired = True
                    raise KeyboardInterrupt
        return self


def _calls(device: Any) -> dict[str, Callable[[], Any]]:
    """Calls whose result (or copy, or scratch) dmlpy allocates and the caller would drop on an exception."""
    values = np.linspace(-1000.0, 1000.0, ELEMENTS, dtype=np.float32)
    return {
        "new_result": lambda: dml.round(values, device=device),
        "reversed_input_copy": lambda: dml.round(values[::-1], device=device),
        "reversed_out_scratch": lambda: dml.round(values, out=np.empty_like(values)[::-1], device=device),
    }


@pytest.mark.parametrize("call", ["new_result", "reversed_input_copy", "reversed_out_scratch"])
def test_interrupt_at_every_line_frees_nothing_in_use(device: Any, call: str, tally: Any) -> None:
    run = _calls(device)[call]
    run()  # warm: the sweep covers the path every later call takes
    target, interrupted = 1, 0
    while True:
        tracer = _Interrupter(target)
        sys.settrace(tracer)
        try:
            run()
        except KeyboardInterrupt:
            interrupted += 1
        finally:
            sys.settrace(None)
        fresh = np.full(ELEMENTS, SENTINEL, np.float32)
        device.queue.finish()
        overwritten = int(np.count_nonzero(fresh != SENTINEL))
        assert overwritten == 0, f"interrupted at line {target}: {overwritten} elements of a fresh array overwritten"
        if not tracer.fired:
            break
        target += 1
    assert interrupted == target - 1 > 20, (interrupted, target)
    x = np.array([-2.5, -1.5, 0.5, 1.5, 2.5], np.float32)
    np.testing.assert_array_equal(dml.round(x, device=device), [-2.0, -2.0, 0.0, 2.0, 2.0])
    tally["interrupt points swept"] += interrupted
