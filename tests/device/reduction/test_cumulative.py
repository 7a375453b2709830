"""CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT run (opencl/cumulative.cl), against onnx.reference's CumSum (and the
same steps with a product; top_k_cumulative_cases.py): integers exactly (modulo 2^width), floats within the bound
docs/operators/reduction.md derives, measured against float64, for every data type of the tables, both
AxisDirections, inclusive and exclusive, strided tensors along every axis under both launch profiles, in place (the
output bound to the input's own bytes), a long sum a plain running sum would miss the bound on, and a graph node."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.movement.cases import padded_strides
from tests.device.reduction.top_k_cumulative_cases import (
    T,
    cumulative_desc,
    tally_bound,
    tally_mismatch,
    tally_reference,
    tally_values,
)
from tests.helpers.object_model import compile_and_initialize, dispatch
from tests.helpers.structured_runs import run_structured

SHAPE = (3, 17, 4)
OPERATORS = {"SUM": dml.CumulativeSummationOperatorDesc, "PRODUCT": dml.CumulativeProductOperatorDesc}
TYPES = sorted(dml.CumulativeProductOperatorDesc.SUPPORT.rows[-1].data_types["InputTensor"], key=int)
FORMS = [(reverse, exclusive) for reverse in (False, True) for exclusive in (False, True)]


def _run(device: Any, desc: Any, x: Any) -> Any:
    desc.validate_on(device.feature_level)
    return run_structured(device, desc, {"input_tensor": x}, offsets={"input_tensor": 32})["output_tensor"]


def test_both_tables_hold_the_same_types() -> None:
    assert sorted(dml.CumulativeSummationOperatorDesc.SUPPORT.rows[-1].data_types["InputTensor"], key=int) == TYPES
    assert len(TYPES) == 6


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", TYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("name", OPERATORS)
def test_every_type_direction_and_exclusive_form(device: Any, name: str, data_type: Any) -> None:
    product = name == "PRODUCT"
    x = tally_values(data_type, product, SHAPE, int(data_type))
    for reverse, exclusive in FORMS:
        desc = cumulative_desc(OPERATORS[name], data_type, SHAPE, 1, reverse, exclusive)
        problem = tally_mismatch(_run(device, desc, x), x, 1, reverse, exclusive, product)
        assert problem is None, f"reverse {reverse}, exclusive {exclusive}: {problem}"


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("name", OPERATORS)
def test_strided_along_every_axis_under_both_profiles(device: Any, name: str, axis: int) -> None:
    product = name == "PRODUCT"
    x = tally_values(T.FLOAT32, product, SHAPE, axis)
    strides = (padded_strides(SHAPE, 3), padded_strides(SHAPE, 1))
    desc = cumulative_desc(OPERATORS[name], T.FLOAT32, SHAPE, axis, axis == 1, axis == 2, strides)
    problem = tally_mismatch(_run(device, desc, x), x, axis, axis == 1, axis == 2, product)
    assert problem is None, problem


@pytest.mark.one_profile
@pytest.mark.parametrize(("reverse", "exclusive"), FORMS)
def test_in_place(device: Any, reverse: bool, exclusive: bool) -> None:
    """The output bound to the input's own bytes (the pages allow it): each element is read before it is written."""
    x = tally_values(T.INT32, False, SHAPE, 9)
    desc = cumulative_desc(dml.CumulativeSummationOperatorDesc, T.INT32, SHAPE, 1, reverse, exclusive)
    compiled = compile_and_initialize(device, desc)
    buffer = device.create_buffer(x.nbytes)
    buffer.write(x)
    binding = dml.BufferBinding(buffer, 0, x.nbytes)
    dispatch(device, compiled, [binding], [binding])
    got = buffer.read(np.int32, SHAPE)
    np.testing.assert_array_equal(got, tally_reference(x, 1, reverse, exclusive, False))


@pytest.mark.one_profile
def test_a_long_sum_stays_within_the_compensated_bound(device: Any) -> None:
    """4096 terms of mixed magnitude: the compensated running sum meets 2u|S| + 2m u^2 sum|x| everywhere, where a
    plain float32 running sum (np.cumsum) misses it: the bound is one a serial sum cannot pass."""
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((2, 4096)) * np.exp2(rng.integers(-8, 8, (2, 4096)))).astype(np.float32)
    desc = cumulative_desc(dml.CumulativeSummationOperatorDesc, T.FLOAT32, x.shape, 1, False, False)
    assert tally_mismatch(_run(device, desc, x), x, 1, False, False, False) is None
    exact, allowed = tally_bound(x.astype(np.float64), 1, False, False, False, False)
    assert np.any(np.abs(np.cumsum(x, axis=1, dtype=np.float32) - exact) > allowed)


def test_a_running_sum_between_element_wise_nodes_in_a_graph(device: Any) -> None:
    x = np.random.default_rng(2).standard_normal(SHAPE).astype(np.float32)
    g = dml.Graph(device)
    gx = g.input(SHAPE, T.FLOAT32)
    desc = cumulative_desc(dml.CumulativeSummationOperatorDesc, T.FLOAT32, SHAPE, 2, True, True)
    running = g.add_operator(desc, [gx * 2])
    got = np.asarray(g.compile([dml.graph.abs(running)])(x))
    exact, allowed = tally_bound(2 * x.astype(np.float64), 2, True, True, False, False)
    assert np.all(np.abs(got - np.abs(exact)) <= allowed)
