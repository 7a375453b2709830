"""Where a graph call's NumPy memory starts (dmlpy/runtime/graph_calls.py): a packed output is computed into an
array whose memory starts at a 128-byte boundary, and a packed input that does not start at one is read where it
lies, on Intel's runtime (which would copy it at every call) through a buffer from the 128-byte boundary below it;
either way the results are NumPy's, and no buffer is kept for the input."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from dmlpy.runtime import graph_calls

T = dml.TensorDataType
ELEMENTS = 1 << 14  # 64 KiB of float32: ALIGNED_FROM_BYTES


def at_offset(values: npt.NDArray[np.float32], offset: int) -> npt.NDArray[np.float32]:
    """``values`` copied into memory starting ``offset`` bytes past a 128-byte boundary."""
    block = np.empty(values.nbytes + 256, np.uint8)
    start = -block.ctypes.data % 128 + offset
    placed = block[start : start + values.nbytes].view(np.float32)
    placed[...] = values
    return placed


@pytest.mark.parametrize("offset", [0, 16])
def test_inputs_and_outputs_by_where_their_memory_starts(
    device: Any, offset: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[int] = []
    allocate = graph_calls.allocate
    monkeypatch.setattr(graph_calls, "allocate", lambda device, size: made.append(size) or allocate(device, size))
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(ELEMENTS,)))
    compiled = g.compile([dml.graph.abs(x) * 2.0])
    values = np.random.default_rng(5).uniform(-8, 8, ELEMENTS).astype(np.float32)
    given = at_offset(values, offset)
    for _ in range(2):  # the second call as the first: the kept buffer, if any, is made once
        got = compiled(given)
        np.testing.assert_array_equal(got, np.abs(values) * np.float32(2))
    if device.is_cpu:
        assert got.ctypes.data % 128 == 0
        assert made == []
    np.testing.assert_array_equal(given, values)  # the input is only read
