"""ELEMENT_WISE_QUANTIZED_LINEAR_ADD on the edges, each type one graph over every pair of its values (A x B, 65,536
elements): one program per type, its nodes running it with other scales and zero points.

* ties: AScale 0.5, BScale 0.25, OutputScale 0.5 make the quotient A' + B' / 2, a tie for every odd B'; each goes
  to the even neighbour (the page leaves round()'s tie rule unstated: QuantizeLinear's halves to even);
* saturation: OutputScale 1/64 sends most sums past the output type's range, to its minimum and maximum;
* zero points absent (0): scales of no common power of two, so the sums round in float32 as the reference's.

Reference: the row's (tests/helpers/rows_quantized.py: NumPy float32, ``np.rint``, ``np.clip``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.dtypes import DATA_TYPE
from tests.helpers.row_model import I8, U8, Array
from tests.helpers.rows_quantized import quantized_linear_add

pytestmark = pytest.mark.one_profile  # values, not launch shapes: the rows run both profiles

F32 = np.dtype(np.float32)
ZERO_POINTS = {I8: (-3, 5, 7), U8: (128, 120, 131)}
"""(A, B, output) zero points of each type's ties and saturation nodes."""


def _parameters(dtype: np.dtype[Any]) -> dict[str, tuple[float, int | None, float, int | None, float, int | None]]:
    za, zb, zo = ZERO_POINTS[dtype]
    return {
        "ties": (0.5, za, 0.25, zb, 0.5, zo),
        "saturation": (1.0, za, 1.0, zb, 1.0 / 64, zo),
        "no zero points": (0.37, None, 2.5, None, 3.0, None),
    }


def _reference(a: Array, b: Array, parameters: tuple[Any, ...]) -> Array:
    names = ("a_scale", "a_zero_point", "b_scale", "b_zero_point", "output_scale", "output_zero_point")
    inputs = {"a_tensor": a, "b_tensor": b}
    for name, value, values in zip(names, parameters, (F32, a.dtype, F32, b.dtype, F32, a.dtype), strict=True):
        if value is not None:
            inputs[f"{name}_tensor"] = np.full(a.shape, value, values)
    return quantized_linear_add(inputs, a.dtype)


@pytest.mark.parametrize("dtype", [I8, U8], ids=str)
def test_ties_saturation_and_absent_zero_points(device: Any, dtype: np.dtype[Any]) -> None:
    info = np.iinfo(dtype)
    every = np.arange(int(info.min), int(info.max) + 1).astype(dtype)
    a, b = (v.reshape(-1) for v in np.meshgrid(every, every, indexing="ij"))
    g = dml.Graph(device)
    desc = dml.BufferTensorDesc(data_type=DATA_TYPE[dtype], sizes=a.shape)
    ai, bi = g.input(desc), g.input(desc)
    nodes = _parameters(dtype)
    outputs = [dml.graph.quantized_linear_add(ai, p[0], p[1], bi, p[2], p[3], p[4], p[5]) for p in nodes.values()]
    results = dict(zip(nodes, g.compile(outputs)(a, b), strict=True))
    for name, got in results.items():
        want = _reference(a, b, nodes[name])
        wrong = np.flatnonzero(got != want)
        assert wrong.size == 0, (
            f"{name}: A {a[wrong][:8]}, B {b[wrong][:8]} gave {got[wrong][:8]}, not {want[wrong][:8]}"
        )

    _, zb, zo = ZERO_POINTS[dtype]
    b_offset = b.astype(np.int64) - zb
    ties = (b_offset % 2 == 1) & (results["ties"] > info.min) & (results["ties"] < info.max)
    assert ties.sum() > 10_000
    assert ((results["ties"][ties].astype(np.int64) - zo) % 2 == 0).all(), "a tie not rounded to even"
    saturated = results["saturation"]
    assert (saturated == info.min).sum() > 20_000 and (saturated == info.max).sum() > 20_000
