"""A reduction of few long groups as two launches (dmlpy/kernels/reduce_split.py): reduce.cl's partial launch over
chunks, then reduce_combine, against the same float64 and index references as test_reduce.py: every function it
serves in FLOAT32 and FLOAT16, ARGMIN and ARGMAX ties and NaN in different chunks under both AxisDirections, a
graph node between element-wise nodes; and which layouts are split."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.movement.cases import padded_strides, tensor
from tests.device.reduction.cases import F, T, arg_reference, bound, mismatch, reduce_desc, run_reduce, values

SHAPE, AXES = (2, 3, 4096), (1, 2)
"""Two groups of 12,288 contiguous elements: three chunks of 4096 each (a divisor that is not a power of two)."""


@pytest.mark.parametrize(
    ("shape", "axes", "data_type", "strided", "launches"),
    [
        (SHAPE, AXES, T.FLOAT32, False, 2),
        ((4096 * 4096,), (0,), T.FLOAT32, False, 2),  # the benchmark's L2 over both axes: one group
        ((64, 8192), (1,), T.FLOAT32, False, 1),  # enough groups for every core
        ((2, 8191), (1,), T.FLOAT32, False, 1),  # a prime length: no equal chunks
        ((2, 8192), (1,), T.INT32, False, 1),  # integers walk one element a step
        ((2, 8192), (1,), T.FLOAT32, True, 2),  # padded rows: each group still one contiguous run
        ((8192, 2), (0,), T.FLOAT32, False, 1),  # the reduced axis not contiguous
    ],
)
def test_which_layouts_are_split(
    shape: tuple[int, ...], axes: tuple[int, ...], data_type: Any, strided: bool, launches: int
) -> None:
    desc = reduce_desc(F.SUM, data_type, shape, axes, padded_strides(shape, 3) if strided else None)
    plan = desc.plan()
    assert len(plan.steps) == launches
    if launches == 2:
        partial, combine = (step.lowered.kernel for step in plan.steps)
        assert dict(partial.defines)["PARTIAL"] == "1" and dict(partial.defines)["WALK"] == "1"
        assert combine.kernel_name == "reduce_combine" and plan.temporaries[0].sizes[0] % 2 == 0


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
@pytest.mark.parametrize("function", [f for f in F if f != F.LOG_SUM_EXP], ids=lambda f: f.name)
def test_each_function_split_in_chunks(device: Any, function: Any, data_type: Any) -> None:
    x = values(data_type, function, int(function) * 7 + int(data_type), SHAPE)
    if function == F.MULTIPLY:  # a product of 12,288 terms in range: 1 + x / 256
        x = (1 + np.random.default_rng(5).standard_normal(SHAPE) / 256).astype(x.dtype)
    for strides in (None, (12288 + 40, 4096, 1)):  # packed, and padded between the groups
        desc = reduce_desc(function, data_type, SHAPE, AXES, strides)
        assert len(desc.plan().steps) == 2
        problem = mismatch(function, x, AXES, run_reduce(device, desc, x))
        assert problem is None, f"strides {strides}: {problem}"


@pytest.mark.parametrize("operator", [dml.ArgMaxOperatorDesc, dml.ArgMinOperatorDesc], ids=lambda c: c.__name__[:6])
@pytest.mark.parametrize("direction", ["INCREASING", "DECREASING"])
def test_ties_and_nan_across_chunks(device: Any, operator: Any, direction: str) -> None:
    """Equal extremes in every chunk (the values 0 to 2), and in group 1 NaNs in chunks 1 and 2: the first (last)
    index of the whole group wins, a NaN is the extreme."""
    x = np.random.default_rng(13).integers(0, 3, SHAPE).astype(np.float32)
    x[1, 1, [5, 4000]] = x[1, 2, 17] = np.nan
    desc = operator(
        input_tensor=tensor(T.FLOAT32, SHAPE),
        output_tensor=tensor(T.INT64, (2, 1, 1)),
        axes=AXES,
        axis_direction=direction,
    )
    assert len(desc.plan().steps) == 2
    expected = arg_reference(x, AXES, operator is dml.ArgMaxOperatorDesc, last=direction == "DECREASING")
    np.testing.assert_array_equal(run_reduce(device, desc, x), expected)


def test_a_split_reduction_in_a_graph(device: Any) -> None:
    x = np.random.default_rng(17).standard_normal(SHAPE).astype(np.float32)
    g = dml.Graph(device)
    gx = g.input(SHAPE, T.FLOAT32)
    reduced = g.add_operator(reduce_desc(F.L2, T.FLOAT32, SHAPE, AXES), [dml.graph.abs(gx)])
    got = np.asarray(g.compile([reduced * 0.5])(x))
    exact = 0.5 * np.sqrt((x.astype(np.float64) ** 2).sum(axis=AXES, keepdims=True))
    squares = (x.astype(np.float64) ** 2).sum(axis=AXES, keepdims=True)
    allowed = 0.5 * bound(F.L2, 2 * exact, squares, 12288, False) + 2.0**-24 * exact
    assert np.all(np.abs(got - exact) <= allowed)
