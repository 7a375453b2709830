"""The softmax family on the edges (docs/operators/activation_softmax.md, "Where the pages are silent"), at FLOAT32
and FLOAT16, through the "1" forms along the last axis (the older forms run the same kernel):

* groups of four: large values (no overflow: every exp argument is <= 0), values whose differences underflow exp,
  -inf entries, a group of -inf only, a +inf, NaNs (one, two, after the maximum), ties (of every element, of two,
  -0 against +0) and subnormals, in one launch per operator and type, against the rows' float64 references
  (tests/helpers/rows_softmax.py) within the operator's bound; the rules asserted as written beside them;
* the same groups inside rows of 19 (two whole lanes of softmax.cl's ROWS path and a tail of three), each at its
  own place (so the maximum lands in every lane and in the tail), the row's other elements -inf (a term of 0, never
  the maximum of a group that has a larger element): the rows' references, and the same rules;
* groups of one element, one more launch of the same program: 1 (SOFTMAX), 0 (LOG_SOFTMAX) for a finite value,
  NaN for a NaN or an infinity, and 1 from HARDMAX for every value;
* rows of 1003 (125 whole steps of eight and a tail of three) whose first maximum is in the first step, the second,
  the middle, the last whole one or the tail, tied by later elements in its own step and in the next: softmax.cl
  leaves the first maximum's term out of the sum in its own step only (row_rest), so a step skipped, taken twice
  or a tie left out would move every result by hundreds of ULPs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.dtypes import DATA_TYPE
from tests.helpers.object_model import run_operator
from tests.helpers.operators import row_of
from tests.helpers.row_model import F16, F32, Array, Case
from tests.helpers.row_runs import assert_same
from tests.helpers.rows_softmax import LAST

pytestmark = pytest.mark.one_profile  # values, not launch shapes: the rows run both profiles

INF, NAN, BIG = math.inf, math.nan, 3.4028234663852886e38
GROUPS = np.array(
    [
        [88.0, 89.0, 1e30, BIG],  # large: exp(x - max) never overflows
        [-BIG, BIG, 0.0, 1.0],  # x - max overflows to -inf: exp gives 0
        [-1000.0, 0.0, -200.0, -104.0],  # differences exp underflows (to a subnormal, to 0)
        [-INF, 0.0, 1.0, -INF],  # -inf entries: 0 (LOG_SOFTMAX -inf)
        [-INF, -INF, -INF, -INF],  # every element -inf: -inf - -inf is NaN
        [INF, 1.0, 2.0, 3.0],  # a +inf: inf - inf is NaN
        [1.0, NAN, 2.0, 3.0],  # a NaN
        [3.0, 5.0, NAN, NAN],  # NaNs after the maximum: HARDMAX marks the first NaN
        [5.0, 5.0, 5.0, 5.0],  # every element tied
        [1.0, 3.0, 3.0, 2.0],  # two maxima
        [-0.0, 0.0, -0.0, 0.0],  # -0 and +0 are equal
        [1e-45, 0.0, -1e-45, 1e-40],  # subnormals
        [0.5, -0.25, 0.125, 2.0],  # plain values
    ]
)
NAN_GROUPS = (4, 5, 6, 7)
"""The groups whose maximum is not finite: NaN throughout from SOFTMAX and LOG_SOFTMAX."""
FIRST_MAXIMUM = (3, 1, 1, 2, 0, 0, 1, 2, 0, 1, 0, 3, 3)
"""Where HARDMAX puts its 1 in each group at FLOAT32 (the first maximum; the first NaN; -0 ties with +0)."""
SINGLES = np.array([0.0, -0.0, 1.5, -BIG, BIG, 1e-45, INF, -INF, NAN])
OPERATORS = (
    dml.ActivationSoftmax1OperatorDesc,
    dml.ActivationLogSoftmax1OperatorDesc,
    dml.ActivationHardmax1OperatorDesc,
)


def run_groups(device: Any, desc_class: Any, dtype: np.dtype[Any], values: Array) -> tuple[Array, Array]:
    """``values`` (a group per row) through ``desc_class`` along the last axis at ``dtype``: the result and the
    input as the kernel read it, both in the groups' shape."""
    tensor = dml.BufferTensorDesc(data_type=DATA_TYPE[dtype], sizes=values.shape)
    desc = desc_class(input_tensor=tensor, output_tensor=tensor, axes=(1,))
    with np.errstate(over="ignore"):  # BIG and 1e30 are infinities at FLOAT16
        flat = values.astype(dtype).reshape(-1)
    run = run_operator(device, desc, {"input_tensor": lambda count: flat[:count]})
    assert run.changed_outside == []
    return run.got.reshape(values.shape), run.inputs["input_tensor"].reshape(values.shape)


@pytest.mark.parametrize("dtype", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("desc_class", OPERATORS, ids=lambda desc: desc.OPERATOR_TYPE.name)
def test_edge_groups_follow_the_rules(device: Any, desc_class: Any, dtype: np.dtype[Any]) -> None:
    row = row_of(desc_class)
    case = Case({"input_tensor": dtype, "output_tensor": dtype}, {"axes": LAST})
    got, read = run_groups(device, desc_class, dtype, GROUPS)
    assert_same(row, got, row.reference_in_shape({"input_tensor": read}, case), read, case)
    if desc_class is dml.ActivationHardmax1OperatorDesc:
        if dtype == F32:
            assert got.argmax(axis=1).tolist() == list(FIRST_MAXIMUM)
        assert (got.sum(axis=1) == 1).all(), "one 1 per group, exactly"
        return
    finite = np.isfinite(read.max(axis=1))  # NumPy's max is NaN where a NaN is
    if dtype == F32:  # at FLOAT16 the large values are infinities too
        assert np.flatnonzero(~finite).tolist() == list(NAN_GROUPS)
    assert np.isnan(got[~finite]).all(), "a NaN, a +inf or a group of -inf: NaN throughout"
    assert not np.isnan(got[finite]).any(), "a finite maximum: no NaN"
    if desc_class is dml.ActivationSoftmax1OperatorDesc:
        assert (got[finite] >= 0).all() and (got[finite] <= 1).all()
        assert got[3].tolist() == [0.0, got[3][1], got[3][2], 0.0], "-inf entries give 0"
        assert got[8].tolist() == [0.25] * 4, "four ties: a quarter each, exactly"
    else:
        assert (got[finite] <= 0).all()
        assert got[3][0] == -INF and got[3][3] == -INF, "-inf entries give -inf"


ROW = 19
"""Elements of a row that holds one edge group: two whole lanes of eight and a tail of three."""
PLACES = tuple(5 * k % (ROW - GROUPS.shape[1] + 1) for k in range(len(GROUPS)))
"""Where each group starts in its row: 0, 5, 10, 15, 4, ..., so its elements fall in every lane and in the tail."""


def in_rows(groups: Array) -> Array:
    """Each group at its PLACE in a row of ROW elements, -inf elsewhere."""
    rows = np.full((len(groups), ROW), -INF)
    for row, place, group in zip(rows, PLACES, groups, strict=True):
        row[place : place + len(group)] = group
    return rows


@pytest.mark.parametrize("dtype", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("desc_class", OPERATORS, ids=lambda desc: desc.OPERATOR_TYPE.name)
def test_edge_groups_in_rows_of_lanes_follow_the_rules(desc_class: Any, dtype: np.dtype[Any], device: Any) -> None:
    row = row_of(desc_class)
    case = Case({"input_tensor": dtype, "output_tensor": dtype}, {"axes": LAST})
    got, read = run_groups(device, desc_class, dtype, in_rows(GROUPS))
    assert_same(row, got, row.reference_in_shape({"input_tensor": read}, case), read, case)
    finite = np.isfinite(read.max(axis=1))
    if desc_class is dml.ActivationHardmax1OperatorDesc:
        if dtype == F32:
            first = [0 if k == 4 else place + m for k, (place, m) in enumerate(zip(PLACES, FIRST_MAXIMUM, strict=True))]
            assert got.argmax(axis=1).tolist() == first, "the group's first maximum; a row of -inf: its first"
        assert (got.sum(axis=1) == 1).all(), "one 1 per row, exactly"
        return
    assert np.isnan(got[~finite]).all() and not np.isnan(got[finite]).any()
    outside = np.isneginf(in_rows(np.zeros_like(GROUPS)))
    if desc_class is dml.ActivationSoftmax1OperatorDesc:
        assert (got[outside & finite[:, None]] == 0).all(), "-inf gives 0"
        assert got[8][PLACES[8] : PLACES[8] + 4].tolist() == [0.25] * 4, "four ties: a quarter each, exactly"
    else:
        assert (got[outside & finite[:, None]] == -INF).all(), "-inf gives -inf"


@pytest.mark.parametrize("dtype", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("desc_class", OPERATORS, ids=lambda desc: desc.OPERATOR_TYPE.name)
def test_groups_of_one_element(device: Any, desc_class: Any, dtype: np.dtype[Any]) -> None:
    got, read = run_groups(device, desc_class, dtype, SINGLES[:, None])
    finite = np.isfinite(read)
    if desc_class is dml.ActivationHardmax1OperatorDesc:
        assert (got == 1).all(), "the one element is its group's first maximum, whatever it is"
        return
    assert np.isnan(got[~finite]).all(), "a NaN or an infinity alone: NaN"
    one = 1.0 if desc_class is dml.ActivationSoftmax1OperatorDesc else 0.0
    assert (got[finite] == one).all() and not np.signbit(got[finite]).any()


LONG_ROW = 1003
FIRST_PLACES = (0, 7, 8, 500, 991, 999, 1000, 1002)
"""Where each long row's first maximum is: the first step's first and last lane, the second step, the middle, the last
whole step's first and last lane, the tail's first and last element."""


@pytest.mark.parametrize("dtype", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("desc_class", OPERATORS[:2], ids=lambda desc: desc.OPERATOR_TYPE.name)
def test_the_first_maximum_in_any_step_leaves_every_other_term_in_the_sum(
    device: Any, desc_class: Any, dtype: np.dtype[Any]
) -> None:
    values = np.random.default_rng(47).uniform(-4.0, 0.0, (len(FIRST_PLACES), LONG_ROW))
    ties = []
    for row, place in zip(values, FIRST_PLACES, strict=True):
        tied = [k for k in (place, place + 1, place + 9) if k < LONG_ROW]
        row[tied] = 1.0
        ties.append(tied)
    case = Case({"input_tensor": dtype, "output_tensor": dtype}, {"axes": LAST})
    got, read = run_groups(device, desc_class, dtype, values)
    assert_same(
        row_of(desc_class), got, row_of(desc_class).reference_in_shape({"input_tensor": read}, case), read, case
    )
    for result, tied in zip(got, ties, strict=True):
        assert len(set(result[tied].tolist())) == 1, "tied maxima, one result"
