"""REDUCE in its twelve functions, ARGMIN and ARGMAX run, against a float64 NumPy reference (tests/helpers reads
nothing of dmlpy's arithmetic): integers exactly (sums and products modulo 2^width), MIN, MAX and the indices
exactly, and every float result within the bound docs/operators/reduction.md derives for it (``bound`` below, the
same formulas), for every data type of each function's table, several axis sets, strided tensors, and as a graph
node between element-wise ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from tests.device.movement.cases import padded_strides, tensor
from tests.helpers.dtypes import NUMPY_DTYPE
from tests.helpers.structured_runs import run_structured

F, T = dml.ReduceFunction, dml.TensorDataType
U = 2.0**-24
"""FLOAT32's unit roundoff."""
SHAPE = (3, 4, 5, 6)
AXES_SETS = [(1, 3), (3,), (0,), (0, 1, 2, 3), (1, 2)]
ARG = (F.ARGMAX, F.ARGMIN)

Reference = Callable[[npt.NDArray[Any], tuple[int, ...]], npt.NDArray[Any]]


def _float_reference(function: Any, x: npt.NDArray[np.float64], axes: tuple[int, ...]) -> tuple[Any, Any]:
    """The exact result in float64, and the sum of |term| its summation carries (the bound's cancellation term)."""
    keep = {"axis": axes, "keepdims": True}
    terms = {F.L1: np.abs(x), F.SUM_SQUARE: x * x, F.L2: x * x}.get(function, x)
    magnitude = np.abs(terms).sum(**keep)
    exact = {
        F.SUM: lambda: x.sum(**keep),
        F.AVERAGE: lambda: x.mean(**keep),
        F.L1: lambda: terms.sum(**keep),
        F.SUM_SQUARE: lambda: terms.sum(**keep),
        F.L2: lambda: np.sqrt(terms.sum(**keep)),
        F.LOG_SUM: lambda: np.log(x.sum(**keep)),
        F.LOG_SUM_EXP: lambda: np.log(np.exp(x - x.max(**keep)).sum(**keep)) + x.max(**keep),
        F.MULTIPLY: lambda: x.prod(**keep),
        F.MAX: lambda: x.max(**keep),
        F.MIN: lambda: x.min(**keep),
    }[function]()
    return exact, magnitude


def bound(function: Any, exact: Any, magnitude: Any, n: int, half: bool) -> Any:
    """docs/operators/reduction.md's bound on |got - exact|: a compensated sum S is within 2u|S| + 2nu^2 sum|t|;
    the division, sqrt and log add their own roundings (OpenCL: correctly rounded / and sqrt, log within 3 ULPs, exp
    within 3); a product of n within (n - 1)u relative; a FLOAT16 output adds its rounding, 2^-11 relative."""
    s = 2 * U * np.abs(exact) + 2 * n * U * U * magnitude
    if function == F.AVERAGE:
        s = (2 * U * np.abs(exact * n) + 2 * n * U * U * magnitude) / n + U * np.abs(exact)
    elif function == F.L2:
        s = (2 * U * exact * exact + 2 * n * U * U * magnitude) / (2 * np.maximum(exact, 1e-30)) + U * exact
    elif function == F.LOG_SUM:
        total = np.exp(exact)
        s = (2 * U * total + 2 * n * U * U * magnitude) / total + 3 * 2 * U * np.abs(exact)
    elif function == F.LOG_SUM_EXP:
        s = 8 * U * np.maximum(np.abs(exact), 1.0)
    elif function == F.MULTIPLY:
        s = n * U * np.abs(exact)
    elif function in (F.MAX, F.MIN):
        s = np.zeros_like(exact)
    return s + (2.0**-11 * np.abs(exact) + 2.0**-25 if half else 0.0)


def _values(data_type: Any, function: Any, seed: int) -> npt.NDArray[Any]:
    rng = np.random.default_rng(seed)
    dtype = NUMPY_DTYPE[data_type]
    if dtype.kind == "f":
        x = rng.standard_normal(SHAPE)
        if function == F.LOG_SUM:
            x = np.abs(x) + 0.1
        if function == F.MULTIPLY:
            x = 1 + x / 8  # products of 120 stay in range
        return x.astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, SHAPE, endpoint=True, dtype=dtype)


def _integer_reference(function: Any, x: npt.NDArray[Any], axes: tuple[int, ...]) -> npt.NDArray[Any]:
    """Modulo 2^width, as NumPy's integer arithmetic in the tensor's own type wraps."""
    keep = {"axis": axes, "keepdims": True, "dtype": x.dtype}
    with np.errstate(over="ignore"):
        return {
            F.SUM: lambda: x.sum(**keep),
            F.MULTIPLY: lambda: x.prod(**keep),
            F.SUM_SQUARE: lambda: (x * x).sum(**keep),
            F.L1: lambda: np.abs(x).sum(**keep),
            F.MAX: lambda: x.max(axis=axes, keepdims=True),
            F.MIN: lambda: x.min(axis=axes, keepdims=True),
        }[function]()


def _arg_reference(x: npt.NDArray[Any], axes: tuple[int, ...], maximum: bool, last: bool) -> npt.NDArray[Any]:
    """The index in row-major order of the reduced axes (a NaN the extreme), first or last of equal ones."""
    kept = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, (*kept, *sorted(axes))).reshape(*[x.shape[d] for d in kept], -1)
    pick = np.argmax if maximum else np.argmin
    index = moved.shape[-1] - 1 - pick(moved[..., ::-1], axis=-1) if last else pick(moved, axis=-1)
    sizes = [1 if d in axes else x.shape[d] for d in range(x.ndim)]
    return index.reshape(sizes)


def _run(device: Any, desc: Any, x: npt.NDArray[Any]) -> npt.NDArray[Any]:
    desc.validate_on(device.feature_level)
    return run_structured(device, desc, {"input_tensor": x}, offsets={"input_tensor": 32})["output_tensor"]


def _check(device: Any, function: Any, data_type: Any, axes: tuple[int, ...], strided: bool = False) -> None:
    x = _values(data_type, function, int(function) * 31 + int(data_type))
    out_sizes = tuple(1 if d in axes else s for d, s in enumerate(SHAPE))
    index_type = T.UINT32 if function in ARG else data_type
    desc = dml.ReduceOperatorDesc(
        function=function,
        input_tensor=tensor(data_type, SHAPE, padded_strides(SHAPE, 3) if strided else None),
        output_tensor=tensor(index_type, out_sizes),
        axes=axes,
    )
    got = _run(device, desc, x)
    if function in ARG:
        np.testing.assert_array_equal(got, _arg_reference(x, axes, function == F.ARGMAX, last=False))
    elif x.dtype.kind != "f":
        np.testing.assert_array_equal(got, _integer_reference(function, x, axes))
    else:
        exact, magnitude = _float_reference(function, x.astype(np.float64), axes)
        n = int(np.prod([SHAPE[d] for d in axes]))
        error = np.abs(got.astype(np.float64) - exact)
        allowed = bound(function, exact, magnitude, n, x.dtype == np.float16)
        assert np.all(error <= allowed), f"worst {np.max(error - allowed)} over the bound"


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
    expected = _arg_reference(x, (1, 3), maximum, last=direction == "DECREASING")
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
