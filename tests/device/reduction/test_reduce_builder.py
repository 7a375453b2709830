"""The reductions' builder functions (DirectMLX's dml::Reduce as ``dml.graph.reduce``; ``arg_min`` and ``arg_max``):
outputs from the operator's rule (the rank kept, each reduced dimension 1; x's type, or the index type), DirectMLX's
defaults (every axis; UINT32 indices), one compiled graph computing what the NumPy references compute, and the
refusals of what the operators refuse."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.reduction.cases import SHAPE, F, T, arg_reference, mismatch, values


@pytest.mark.one_profile
def test_a_graph_of_every_reduction_builder_matches_numpy(device: Any) -> None:
    x = values(T.FLOAT32, F.SUM, 7)
    x[1, 2, 3, 4] = x[1, 2, 0, 0]  # a tie within a group: DECREASING gives the later index
    g = dml.Graph(device)
    gx = g.input(SHAPE, T.FLOAT32)
    total = dml.graph.reduce(gx, F.SUM, (1, 3))
    everything = dml.graph.reduce(gx, "LOG_SUM_EXP")  # no axes: the whole tensor, as dml::Reduce's default
    peak = dml.graph.reduce(gx, "ARGMAX", (0, 2))
    low = dml.graph.arg_min(gx, (2, 3), dtype="INT64")
    high_last = dml.graph.arg_max(-gx, (2, 3), axis_direction="DECREASING")
    assert [(e.sizes, e.data_type) for e in (total, everything, peak, low, high_last)] == [
        ((3, 1, 5, 1), T.FLOAT32), ((1, 1, 1, 1), T.FLOAT32), ((1, 4, 1, 6), T.UINT32), ((3, 4, 1, 1), T.INT64),
        ((3, 4, 1, 1), T.UINT32),
    ]  # fmt: skip
    got = [np.asarray(a) for a in g.compile([total, everything, peak, low, high_last])(x)]
    for result, function, axes in [(got[0], F.SUM, (1, 3)), (got[1], F.LOG_SUM_EXP, (0, 1, 2, 3))]:
        problem = mismatch(function, x, axes, result)
        assert problem is None, (function.name, problem)
    np.testing.assert_array_equal(got[2], arg_reference(x, (0, 2), maximum=True, last=False))
    np.testing.assert_array_equal(got[3], arg_reference(x, (2, 3), maximum=False, last=False))
    np.testing.assert_array_equal(got[4], arg_reference(-x, (2, 3), maximum=True, last=True))
    assert got[3].dtype == np.int64 and got[4].dtype == np.uint32


@pytest.mark.one_profile
def test_integer_reductions_in_a_graph_wrap_as_numpy_does(device: Any) -> None:
    x = values(T.INT32, F.MULTIPLY, 11)
    g = dml.Graph(device)
    gx = g.input(SHAPE, T.INT32)
    outputs = [dml.graph.reduce(gx, function, (0, 3)) for function in (F.MULTIPLY, F.SUM_SQUARE, F.MIN)]
    for result, function in zip(g.compile(outputs)(x), (F.MULTIPLY, F.SUM_SQUARE, F.MIN), strict=True):
        problem = mismatch(function, x, (0, 3), np.asarray(result))
        assert problem is None, (function.name, problem)


def test_the_builders_refuse_what_the_operators_refuse() -> None:
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x = g.input((2, 3, 4), T.FLOAT32)
    with pytest.raises(dml.InvalidArgumentError, match=r"^REDUCE\.Axes\[1\] is 3; each axis must be in .* = \[0, 2\]"):
        dml.graph.reduce(x, "SUM", (0, 3))
    with pytest.raises(dml.InvalidArgumentError, match=r"^ARGMIN\.Axes\[1\] is 1, which Axes \[1, 1\] holds already"):
        dml.graph.arg_min(x, (1, 1))
    with pytest.raises(dml.DmlError, match=r"ARGMAX\.Axes\[0\] is -1"):
        dml.graph.arg_max(x, (-1,))
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.reduce: axes is 1; it must be a list"):
        dml.graph.reduce(x, "SUM", 1)  # type: ignore[arg-type]
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.reduce: function: 'MEAN' is not a Reduce"):
        dml.graph.reduce(x, "MEAN")
    with pytest.raises(
        dml.InvalidArgumentError, match=r"^dml\.graph\.arg_max: axis_direction: 'UP' is not a AxisDirection; use one of"
    ):
        dml.graph.arg_max(x, axis_direction="UP")
    # ARGMIN's and ARGMAX's output is an index: INT32, UINT32, INT64 or UINT64, never x's float type.
    for build in (dml.graph.arg_min, dml.graph.arg_max):
        with pytest.raises(dml.InvalidArgumentError, match=r"OutputTensor\.DataType is DML_TENSOR_DATA_TYPE_FLOAT32"):
            build(x, (1,), dtype=T.FLOAT32)
        with pytest.raises(dml.InvalidArgumentError, match=r"OutputTensor\.DataType is DML_TENSOR_DATA_TYPE_UINT16"):
            build(x, (1,), dtype="uint16")
    # REDUCE's table for SUM has no INT8 input (its MIN has): the function's own table is the rule.
    small = g.input((2, 3), T.INT8)
    assert dml.graph.reduce(small, "MIN", (1,)).data_type == T.INT8
    with pytest.raises(dml.InvalidArgumentError, match=r"REDUCE\.InputTensor\.DataType is DML_TENSOR_DATA_TYPE_INT8"):
        dml.graph.reduce(small, "SUM", (1,))
