"""REDUCE in its twelve functions, ARGMIN and ARGMAX run, against a float64 NumPy reference (tests/helpers reads
nothing of dmlpy's arithmetic): integers exactly (sums and products modulo 2^width), MIN, MAX and the indices
exactly, and every float result within the bound docs/operators/reduction.md derives for it (``bound`` below, the
same formulas), for every data type of each function's table, several axis sets, strided tensors, and as a graph
node between element-wise ones."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from tests.device.movement.cases import padded_strides, tensor
from tests.device.reduction.cases import ARG, SHAPE, F, T, arg_reference, bound, mismatch, values
from tests.helpers.structured_runs import run_structured

AXES_SETS = [(1, 3), (3,), (0,), (0, 1, 2, 3), (1, 2)]


def _run(device: Any, desc: Any, x: npt.NDArray[Any]) -> npt.NDArray[Any]:
    desc.validate_on(device.feature_level)
    return run_structured(device, desc, {"input_tensor": x}, offsets={"input_tensor": 32})["output_tensor"]


def _check(device: Any, function: Any, data_type: Any, axes: tuple[int, ...], strided: bool = False) -> None:
    x = values(data_type, function, int(function) * 31 + int(data_type))
    out_sizes = tuple(1 if d in axes else s for d, s in enumerate(SHAPE))
    index_type = T.UINT32 if function in ARG else data_type
    desc = dml.ReduceOperatorDesc(
        function=function,
        input_tensor=tensor(data_type, SHAPE, padded_strides(SHAPE, 3) if strided else None),
        output_tensor=tensor(index_type, out_sizes),
        axes=axes,
    )
    problem = mismatch(function, x, axes, _run(device, desc, x))
    assert problem is None, problem


def _table_types(function: Any) -> list[Any]:
    row = dml.ReduceOperatorDesc.TABLES[function].rows[-1]
    return sorted(row.data_types["InputTensor"], key=int)


@pytest.mark.one_profile
@pytest.mark.parametrize(
    ("function", "data_type"),
    [(function, data_type) for function in F for data_type in _table_types(function)],
    ids=lambda value: value.name,
)
def test_every_function_and_type_of_its_table(device: Any, function: Any, data_type: Any) -> None:
    _check(device, function, data_type, (1, 3))


@pytest.mark.parametrize("axes", AXES_SETS, ids=lambda axes: "axes" + "".join(map(str, axes)))
@pytest.mark.parametrize("function", [F.SUM, F.LOG_SUM_EXP, F.MAX, F.ARGMIN], ids=lambda f: f.name)
def test_axes_and_strides_under_both_profiles(device: Any, function: Any, axes: tuple[int, ...]) -> None:
    _check(device, function, T.FLOAT32, axes, strided=True)


@pytest.mark.one_profile
@pytest.mark.parametrize("operator", [dml.ArgMaxOperatorDesc, dml.ArgMinOperatorDesc], ids=lambda c: c.__name__[:6])
@pytest.mark.parametrize("direction", ["INCREASING", "DECREASING"])
@pytest.mark.parametrize("index_type", [T.UINT32, T.INT64])
def test_argmin_argmax_ties_nan_and_direction(device: Any, operator: Any, direction: str, index_type: Any) -> None:
    """Ties: the first (INCREASING) or last (DECREASING) index in row-major order of the axes; a NaN is the extreme."""
    rng = np.random.default_rng(5)
    x = rng.integers(0, 3, SHAPE).astype(np.float32)  # many ties
    x[0, 1, 2, 3] = np.nan
    x[2, 0, 4, 5] = x[2, 3, 4, 1] = np.nan
    desc = operator(
        input_tensor=tensor(T.FLOAT32, SHAPE),
        output_tensor=tensor(index_type, (3, 1, 5, 1)),
        axes=(1, 3),
        axis_direction=direction,
    )
    maximum = operator is dml.ArgMaxOperatorDesc
    expected = arg_reference(x, (1, 3), maximum, last=direction == "DECREASING")
    np.testing.assert_array_equal(_run(device, desc, x), expected)


@pytest.mark.one_profile
def test_special_values_follow_numpy(device: Any) -> None:
    """A NaN anywhere gives NaN; +inf and -inf sum to NaN; an all -inf group's LOG_SUM_EXP is -inf; MAX keeps inf."""
    x = np.array(
        [[1.0, np.nan, 2.0], [np.inf, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 3.0]], np.float32
    )
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for function, reference in [
            (F.SUM, lambda a: a.sum(axis=1, keepdims=True)),
            (F.MAX, lambda a: a.max(axis=1, keepdims=True)),
            (F.LOG_SUM_EXP, lambda a: np.log(np.exp(a.astype(np.float64)).sum(axis=1, keepdims=True))),
        ]:
            desc = dml.ReduceOperatorDesc(
                function=function,
                input_tensor=tensor(T.FLOAT32, x.shape),
                output_tensor=tensor(T.FLOAT32, (4, 1)),
                axes=(1,),
            )
            np.testing.assert_array_equal(_run(device, desc, x), reference(x).astype(np.float32), err_msg=function.name)


def test_a_reduction_between_element_wise_nodes_in_a_graph(device: Any) -> None:
    x = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    g = dml.Graph(device)
    gx = g.input(SHAPE, T.FLOAT32)
    scaled = gx * 2
    reduced = g.add_operator(
        dml.ReduceOperatorDesc(
            function=F.SUM,
            input_tensor=tensor(T.FLOAT32, SHAPE),
            output_tensor=tensor(T.FLOAT32, (3, 1, 5, 1)),
            axes=(1, 3),
        ),
        [scaled],
    )
    got = np.asarray(g.compile([dml.graph.abs(reduced)])(x))
    exact = np.abs((2 * x.astype(np.float64)).sum(axis=(1, 3), keepdims=True))
    assert np.all(np.abs(got - exact) <= bound(F.SUM, exact, np.abs(2 * x).sum(axis=(1, 3), keepdims=True), 24, False))
