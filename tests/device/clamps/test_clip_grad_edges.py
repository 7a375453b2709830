"""CLIP_GRAD's FLOAT bounds against an integer tensor, compared as real numbers (docs/operators/element_wise_clip.md):
fractional bounds (x <= -5.5 is x <= -6), bounds beyond the type's range (a comparison no value can change: never,
or always, not a saturated bound that would compare wrongly at the edge), NaN (never) and infinite bounds, on every
value of INT8 and UINT8 and on INT32's edges; and CLIP_GRAD1 with the type's own MIN and MAX as bounds (each
blocks exactly its own value). One graph per type holds every bound set, two fused kernels; against the rows'
reference (Python's exact comparison of an integer with a float)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.dtypes import DATA_TYPE
from tests.helpers.row_model import Case
from tests.helpers.rows_clamps import GRADIENT_TENSORS, clip_grad_reference

pytestmark = pytest.mark.one_profile  # values, not launch shapes: the rows run both profiles

BOUND_SETS = (
    (-5.5, 100.7),
    (-200.0, 300.0),
    (float("nan"), float("nan")),
    (float("-inf"), float("inf")),
    (127.5, -128.5),
    (2.0, 2.0),
    (1e20, -1e20),
)


def values_of(dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    info = np.iinfo(dtype)
    if dtype.itemsize == 1:
        return np.arange(int(info.min), int(info.max) + 1).astype(dtype)
    return np.array([info.min, info.min + 1, -6, -5, 0, 1, 2, 3, 100, 101, info.max - 1, info.max], dtype=dtype)


@pytest.mark.parametrize("dtype", [np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int32)], ids=str)
def test_integer_tensors_compare_with_float_bounds_exactly(device: Any, dtype: np.dtype[Any]) -> None:
    x = values_of(dtype)
    gradient = np.arange(1, x.size + 1).astype(dtype)
    g = dml.Graph(device)
    xi = g.input(dml.BufferTensorDesc(data_type=DATA_TYPE[dtype], sizes=x.shape))
    gi = g.input(dml.BufferTensorDesc(data_type=DATA_TYPE[dtype], sizes=x.shape))
    compiled = g.compile([dml.graph.clip_grad(xi, gi, low, high) for low, high in BOUND_SETS])
    assert compiled.kernel_count == 2  # two inputs and seven outputs: a kernel binds 8 tensors at most
    case = Case(dict.fromkeys(GRADIENT_TENSORS, dtype))
    for (low, high), got in zip(BOUND_SETS, compiled(x, gradient), strict=True):
        want = clip_grad_reference(lambda case, b=(low, high): list(b))(
            {"input_tensor": x, "input_gradient_tensor": gradient}, case
        )
        np.testing.assert_array_equal(got, want, err_msg=f"Min {low}, Max {high}")
    # written out: at NaN nothing is blocked, beyond an 8-bit type's range nothing, at 2.0 everything (inclusive)
    results = dict(zip(BOUND_SETS, compiled(x, gradient), strict=True))
    assert np.array_equal(results[BOUND_SETS[2]], gradient)
    if dtype.itemsize == 1:
        assert np.array_equal(results[(-200.0, 300.0)], gradient)
    assert not results[(127.5, -128.5)].any() and not results[(2.0, 2.0)].any()


def test_clip_grad1_blocks_exactly_its_typed_bounds(device: Any) -> None:
    dtype = np.dtype(np.int64)
    info = np.iinfo(dtype)
    x = np.array([info.min, info.min + 1, 0, 2**60 + 1, info.max - 1, info.max], dtype=dtype)
    gradient = np.arange(1, x.size + 1).astype(dtype)
    g = dml.Graph(device)
    xi = g.input(dml.BufferTensorDesc(data_type="INT64", sizes=x.shape))
    gi = g.input(dml.BufferTensorDesc(data_type="INT64", sizes=x.shape))
    y = dml.graph.clip_grad1(xi, gi, int(info.min) + 1, 2**60 + 1)
    got = g.compile([y])(x, gradient)
    np.testing.assert_array_equal(got, [0, 0, 3, 0, 0, 0])
