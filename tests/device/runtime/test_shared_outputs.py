"""An output whose elements share memory is refused whatever path would run it (issue 12, item 4): DirectML's
strides (0 strides), and the layouts the one-liners compute in scratch and copy back (negative strides, a
misaligned start), which once lost rows silently. Nothing is written when the call is refused."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml

SENTINEL = np.float32(123.0)


def _out(memory: np.ndarray[Any, Any], offset_bytes: int, strides: tuple[int, int]) -> np.ndarray[Any, Any]:
    """A (2, 3) float32 view of ``memory`` starting ``offset_bytes`` in, with byte ``strides``."""
    return np.ndarray((2, 3), np.float32, buffer=memory.data, offset=offset_bytes, strides=strides)


CASES = {
    "zero_then_negative": (16, (0, -4)),  # rows read the same memory backwards: row 0 was lost
    "negative_overlapping_rows": (48, (-4, 4)),  # row 1 starts one element before row 0: they overlap
    "zero_stride_misaligned": (2, (0, 4)),  # a 0 stride on a start off the element grid
    "zero_row_stride": (16, (0, 4)),  # refused before too, by the descriptor rules
    "overlapping_misaligned": (2, (6, 4)),  # rows 6 bytes apart, elements 4 wide: rows interleave bytes
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("one_liner", ["round", "dequantize"])
def test_outputs_sharing_memory_are_refused_and_nothing_is_written(device: Any, case: str, one_liner: str) -> None:
    offset, strides = CASES[case]
    memory = np.full(80, SENTINEL, np.float32)
    out = _out(memory, offset, strides)
    x = np.arange(6, dtype=np.float32).reshape(2, 3) + 0.5
    before = memory.copy()
    with pytest.raises(dml.InvalidArgumentError, match="share memory") as error:
        if one_liner == "round":
            dml.round(x, out=out, device=device)
        else:
            dml.dequantize_linear(np.arange(6, dtype=np.int32).reshape(2, 3), np.float32(0.5), out=out, device=device)
    assert "out" in str(error.value)
    np.testing.assert_array_equal(memory.view(np.uint32), before.view(np.uint32))


def test_layouts_without_sharing_still_run(device: Any) -> None:
    memory = np.full(80, SENTINEL, np.float32)
    for offset, strides in ((48, (-12, 4)), (16, (12, -4)), (2, (12, 4))):
        out = _out(memory, offset, strides)
        x = np.arange(6, dtype=np.float32).reshape(2, 3) + 0.5
        dml.round(x, out=out, device=device)
        np.testing.assert_array_equal(out, np.rint(x))
