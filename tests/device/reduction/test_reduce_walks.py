"""reduce.cl's vector walks (docs/operators/reduction.md, "How the kernel walks a group") against the same float64 and
index references as test_reduce.py: LANES_WALK (a contiguous reduced axis, eight elements a load, a tail after the
last whole eight) and BANDS_WALK (up to 64 adjacent groups a work-item down the rows, a short band at the row's end
with a whole vector and groups one by one), every function they serve in FLOAT32 and FLOAT16, strided and packed,
ARGMIN and ARGMAX ties and NaN falling in different lanes under both AxisDirections; a band's sums over more rows than
a compensated block; and a sum of 2^24 positive terms in one group, which Neumaier's compensation alone (before
COMPENSATED_BLOCK) missed by 400 times the bound (L2 4.7e-5 relative)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.movement.cases import padded_strides, tensor
from tests.device.reduction.cases import ARG, F, T, arg_reference, mismatch, values
from tests.helpers.structured_runs import run_structured

WALKS = {"lanes": ((3, 37), (1,), "1"), "bands": ((21, 75), (0,), "2"), "short band": ((9, 70), (0,), "2")}
"""Each walk's input, axes and WALK define: 37 = four vectors and a tail of 5; 75 = a band of 64 and a short one of 11
(a vector, then 3 groups one at a time); 70 = a band of 64 and one of 6, too short for a vector."""


def _run(device: Any, desc: Any, x: np.ndarray) -> np.ndarray:
    desc.validate_on(device.feature_level)
    return run_structured(device, desc, {"input_tensor": x}, offsets={"input_tensor": 32})["output_tensor"]


def _desc(function: Any, data_type: Any, shape: tuple[int, ...], axes: tuple[int, ...], strided: bool) -> Any:
    out_sizes = tuple(1 if d in axes else s for d, s in enumerate(shape))
    return dml.ReduceOperatorDesc(
        function=function,
        input_tensor=tensor(data_type, shape, padded_strides(shape, 3) if strided else None),
        output_tensor=tensor(T.UINT32 if function in ARG else data_type, out_sizes),
        axes=axes,
    )


@pytest.mark.one_profile
@pytest.mark.parametrize("walk", WALKS)
@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
@pytest.mark.parametrize("function", [f for f in F if f != F.LOG_SUM_EXP], ids=lambda f: f.name)
def test_each_function_on_each_vector_walk(device: Any, function: Any, data_type: Any, walk: str) -> None:
    shape, axes, define = WALKS[walk]
    for strided in (False, True):
        desc = _desc(function, data_type, shape, axes, strided)
        assert dict(desc.lower().kernel.defines)["WALK"] == define
        x = values(data_type, function, int(function) * 17 + int(data_type), shape)
        problem = mismatch(function, x, axes, _run(device, desc, x))
        assert problem is None, f"{'strided' if strided else 'packed'}: {problem}"


@pytest.mark.parametrize("walk", WALKS)
@pytest.mark.parametrize("operator", [dml.ArgMaxOperatorDesc, dml.ArgMinOperatorDesc], ids=lambda c: c.__name__[:6])
@pytest.mark.parametrize("direction", ["INCREASING", "DECREASING"])
def test_ties_and_nan_across_lanes(device: Any, operator: Any, direction: str, walk: str) -> None:
    """Equal extremes and NaNs in different lanes and in the tail: the first (last) index wins, a NaN is the
    extreme, whatever lane holds it."""
    shape, axes, _ = WALKS[walk]
    x = np.random.default_rng(11).integers(0, 3, shape).astype(np.float32)
    if walk == "lanes":
        x[1, [3, 12, 36]] = np.nan  # lanes 3, 4 and the tail
    else:
        x[[2, 5, 8], 5] = np.nan
        x[[1, 4], 67] = np.nan  # in the last band
    out_sizes = tuple(1 if d in axes else s for d, s in enumerate(shape))
    desc = operator(
        input_tensor=tensor(T.FLOAT32, shape),
        output_tensor=tensor(T.INT64, out_sizes),
        axes=axes,
        axis_direction=direction,
    )
    expected = arg_reference(x, axes, operator is dml.ArgMaxOperatorDesc, last=direction == "DECREASING")
    np.testing.assert_array_equal(_run(device, desc, x), expected)


@pytest.mark.one_profile
@pytest.mark.parametrize(("columns", "walk"), [(20, "2"), (24, "3")])
@pytest.mark.parametrize("function", [F.SUM, F.L2], ids=lambda f: f.name)
def test_a_band_folds_its_blocks_down_long_columns(device: Any, function: Any, columns: int, walk: str) -> None:
    """BANDS_WALK down 2.5 compensated blocks of rows (COMPENSATED_BLOCK, 4096), the band's lanes folded together
    every 4096 rows; and ROWS_WALK (24 columns: a multiple of 8) over 40 chunks of 256 rows, each a block, folded
    by the combine: every column within the bound, which a fold losing or repeating a block's terms misses."""
    x = np.random.default_rng(5).uniform(0.5, 1.5, (10240, columns)).astype(np.float32)
    desc = _desc(function, T.FLOAT32, x.shape, (0,), strided=False)
    assert dict(desc.plan().steps[0].lowered.kernel.defines)["WALK"] == walk
    problem = mismatch(function, x, (0,), _run(device, desc, x))
    assert problem is None, problem


@pytest.mark.one_profile
def test_a_sum_of_2_24_positive_terms_stays_within_the_bound(device: Any) -> None:
    """L2 and SUM_SQUARE of 2^24 standard normal elements in one group (the benchmark's L2 over both axes): n u = 1,
    where Neumaier's compensation grew as large as the sum and rounded as a serial sum (9.5e-5 relative on the sum
    of squares, 2.7e-6 on L1's sum of |x|); the bound of docs/operators/reduction.md holds."""
    x = np.random.default_rng(3).standard_normal((4096, 4096)).astype(np.float32)
    for function in (F.L2, F.SUM_SQUARE):
        desc = _desc(function, T.FLOAT32, x.shape, (0, 1), strided=False)
        problem = mismatch(function, x, (0, 1), _run(device, desc, x))
        assert problem is None, f"{function.name}: {problem}"


@pytest.mark.parametrize("function", [F.MAX, F.MIN], ids=lambda f: f.name)
@pytest.mark.parametrize("walk", [*WALKS, "rows"])
def test_the_first_nan_of_a_group_comes_out_bit_for_bit(device: Any, function: Any, walk: str) -> None:
    """MAX and MIN of groups holding NaNs of different payloads in different lanes: the group's first NaN, its
    bits, as the serial walk takes it (the quick rule of reduce_lanes.h's lanes_take_by only marks a NaN, and such
    a walk is walked again by the NaN rule)."""
    shape, axes, define = WALKS[walk] if walk != "rows" else ((192, 16), (0,), "3")
    x = np.random.default_rng(29).standard_normal(shape).astype(np.float32)
    groups = np.moveaxis(x, axes[0], -1).reshape(-1, shape[axes[0]]).copy()  # a copy: its rows are the groups
    reduce = np.max if function == F.MAX else np.min
    expected = reduce(groups, axis=1)
    for g in range(0, groups.shape[0], 2):  # every other group: several NaNs, a payload each
        places = np.random.default_rng(g).choice(groups.shape[1], 3, replace=False)
        payloads = (0x7FC00001 + g * 4 + np.arange(3)).astype(np.uint32) | (np.arange(3) == 1) * 0x80000000
        groups[g, places] = payloads.astype(np.uint32).view(np.float32)
        expected[g] = groups[g, np.sort(places)[0]]
    x = np.moveaxis(groups.reshape(*np.moveaxis(x, axes[0], -1).shape), -1, axes[0]).copy()
    desc = _desc(function, T.FLOAT32, shape, axes, strided=False)
    assert dict(desc.plan().steps[0].lowered.kernel.defines)["WALK"] == define
    got = _run(device, desc, x).reshape(-1)
    np.testing.assert_array_equal(got.view(np.uint32), expected.view(np.uint32))
