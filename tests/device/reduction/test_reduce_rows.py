"""Tall columns as two launches (dmlpy/kernels/reduce_split.py's rows plan): reduce.cl's ROWS_WALK over chunks of rows
and strips of columns, then reduce_combine over eight columns a work-item, against the same float64 and index
references as test_reduce.py: every function it serves in FLOAT32 and FLOAT16, packed and padded, ARGMIN and ARGMAX
ties and NaN in different chunks under both AxisDirections, two strips of a row, a graph node between element-wise
nodes; and which layouts take it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.movement.cases import padded_strides, tensor
from tests.device.reduction.cases import F, T, arg_reference, bound, mismatch, reduce_desc, run_reduce, values

SHAPE, AXES = (2, 192, 24), (1,)
"""Two blocks of 24 columns of 192 rows: two chunks of 96 rows (the divisor nearest ROWS_CHUNK), three vectors a row."""


def _walks(desc: Any) -> list[str]:
    return [dict(step.lowered.kernel.defines).get("WALK", "") for step in desc.plan().steps]


@pytest.mark.parametrize(
    ("shape", "axes", "data_type", "walks"),
    [
        (SHAPE, AXES, T.FLOAT32, ["3", "3"]),
        ((4096, 4096), (0,), T.FLOAT32, ["3", "3"]),  # the benchmark's tall columns
        ((16, 4096), (0,), T.FLOAT32, ["2"]),  # few rows: one launch's bands read them nearly in order
        ((2, 192, 20), (1,), T.FLOAT32, ["2"]),  # a row of groups not a multiple of 8
        ((2, 191, 24), (1,), T.FLOAT32, ["2"]),  # rows without a divisor of 32 to 4096
        ((2, 192, 24), (1,), T.INT32, ["0"]),  # integers walk one element a step
    ],
)
def test_which_layouts_take_rows(
    shape: tuple[int, ...], axes: tuple[int, ...], data_type: Any, walks: list[str]
) -> None:
    assert _walks(reduce_desc(F.SUM, data_type, shape, axes)) == walks


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
@pytest.mark.parametrize("function", [f for f in F if f != F.LOG_SUM_EXP], ids=lambda f: f.name)
def test_each_function_in_chunks_of_rows(device: Any, function: Any, data_type: Any) -> None:
    x = values(data_type, function, int(function) * 5 + int(data_type), SHAPE)
    for strides in (None, padded_strides(SHAPE, 3)):
        desc = reduce_desc(function, data_type, SHAPE, AXES, strides)
        assert _walks(desc) == ["3", "3"]
        problem = mismatch(function, x, AXES, run_reduce(device, desc, x))
        assert problem is None, f"strides {strides}: {problem}"


def every_other(sizes: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides, doubled: each element followed by an unused one."""
    return tuple(2 * s for s in padded_strides(sizes, 0))


@pytest.mark.parametrize(
    ("shape", "axes", "walks"),
    [(SHAPE, AXES, ["3", "3"]), ((16, 64), (0,), ["2"])],
    ids=["rows", "bands"],
)
@pytest.mark.parametrize("function", [F.SUM, F.MAX, F.ARGMAX], ids=lambda f: f.name)
def test_eight_results_to_an_output_at_strides(
    device: Any, shape: tuple[int, ...], axes: tuple[int, ...], walks: list[str], function: Any
) -> None:
    """The rows combine's and the bands' eight results a store (reduce_lanes.h's store_eight): at constant offsets
    where the output is packed along the kept groups (the other tests), through the output's strides where it is not
    (every element's stride doubled here: a gap after each)."""
    x = values(T.FLOAT32, function, 7, shape)
    desc = reduce_desc(function, T.FLOAT32, shape, axes, output_strides=every_other)
    assert _walks(desc) == walks and desc.output_tensor.desc.strides[-1] != 1
    problem = mismatch(function, x, axes, run_reduce(device, desc, x))
    assert problem is None, problem


def test_two_strips_of_a_row(device: Any) -> None:
    """4104 columns: a strip of 4096 (ROWS_STRIP) and one of 8."""
    shape, axes = (64, 4104), (0,)
    x = values(T.FLOAT32, F.SUM, 3, shape)
    desc = reduce_desc(F.SUM, T.FLOAT32, shape, axes)
    assert _walks(desc) == ["3", "3"]
    assert mismatch(F.SUM, x, axes, run_reduce(device, desc, x)) is None


@pytest.mark.parametrize("operator", [dml.ArgMaxOperatorDesc, dml.ArgMinOperatorDesc], ids=lambda c: c.__name__[:6])
@pytest.mark.parametrize("direction", ["INCREASING", "DECREASING"])
def test_ties_and_nan_across_chunks_of_rows(device: Any, operator: Any, direction: str) -> None:
    """Equal extremes in both chunks (the values 0 to 2), and in column 5 NaNs in both chunks: the first (last)
    index of the whole column wins, a NaN is the extreme."""
    x = np.random.default_rng(19).integers(0, 3, SHAPE).astype(np.float32)
    x[1, [7, 150], 5] = x[0, 100, 5] = np.nan
    desc = operator(
        input_tensor=tensor(T.FLOAT32, SHAPE),
        output_tensor=tensor(T.INT64, (2, 1, 24)),
        axes=AXES,
        axis_direction=direction,
    )
    assert _walks(desc) == ["3", "3"]
    expected = arg_reference(x, AXES, operator is dml.ArgMaxOperatorDesc, last=direction == "DECREASING")
    np.testing.assert_array_equal(run_reduce(device, desc, x), expected)


def test_tall_columns_in_a_graph(device: Any) -> None:
    x = np.random.default_rng(23).standard_normal(SHAPE).astype(np.float32)
    g = dml.Graph(device)
    gx = g.input(SHAPE, T.FLOAT32)
    reduced = g.add_operator(reduce_desc(F.L2, T.FLOAT32, SHAPE, AXES), [dml.graph.abs(gx)])
    got = np.asarray(g.compile([reduced * 0.5])(x))
    squares = (x.astype(np.float64) ** 2).sum(axis=AXES, keepdims=True)
    exact = 0.5 * np.sqrt(squares)
    allowed = 0.5 * bound(F.L2, 2 * exact, squares, SHAPE[1], False) + 2.0**-24 * exact
    assert np.all(np.abs(got - exact) <= allowed)
