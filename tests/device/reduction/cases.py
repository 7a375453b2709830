"""What the reduction tests share (test_reduce.py, test_reduce_builder.py, oclgrind_reduce_variants.py): the
inputs and the independent references, float64 NumPy for the floats, NumPy's own integer arithmetic (modulo
2^width) for the integers, the index in row-major order of the reduced axes for ARGMIN and ARGMAX, and the bound
docs/operators/reduction.md derives for each float result (``bound``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

import dmlpy as dml
from tests.device.movement.cases import tensor
from tests.helpers.dtypes import NUMPY_DTYPE
from tests.helpers.structured_runs import run_structured

F, T = dml.ReduceFunction, dml.TensorDataType

U = 2.0**-24
"""FLOAT32's unit roundoff."""
SHAPE = (3, 4, 5, 6)
ARG = (F.ARGMAX, F.ARGMIN)


def float_reference(function: Any, x: npt.NDArray[np.float64], axes: tuple[int, ...]) -> tuple[Any, Any]:
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


def values(data_type: Any, function: Any, seed: int, shape: tuple[int, ...] = SHAPE) -> npt.NDArray[Any]:
    rng = np.random.default_rng(seed)
    dtype = NUMPY_DTYPE[data_type]
    if dtype.kind == "f":
        x = rng.standard_normal(shape)
        if function == F.LOG_SUM:
            x = np.abs(x) + 0.1
        if function == F.MULTIPLY:
            x = 1 + x / 8  # products of 120 stay in range
        return x.astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dtype)


def integer_reference(function: Any, x: npt.NDArray[Any], axes: tuple[int, ...]) -> npt.NDArray[Any]:
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


def arg_reference(x: npt.NDArray[Any], axes: tuple[int, ...], maximum: bool, last: bool) -> npt.NDArray[Any]:
    """The index in row-major order of the reduced axes (a NaN the extreme), first or last of equal ones."""
    kept = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, (*kept, *sorted(axes))).reshape(*[x.shape[d] for d in kept], -1)
    pick = np.argmax if maximum else np.argmin
    index = moved.shape[-1] - 1 - pick(moved[..., ::-1], axis=-1) if last else pick(moved, axis=-1)
    sizes = [1 if d in axes else x.shape[d] for d in range(x.ndim)]
    return index.reshape(sizes)


def mismatch(function: Any, x: npt.NDArray[Any], axes: tuple[int, ...], got: npt.NDArray[Any]) -> str | None:
    """What is wrong with ``got``, REDUCE's ``function`` of ``x`` over ``axes`` (ARGMIN and ARGMAX: the first
    extreme's index), or None: integers and indices exactly, floats within ``bound``."""
    if function in ARG:
        expected = arg_reference(x, axes, function == F.ARGMAX, last=False)
    elif x.dtype.kind != "f":
        expected = integer_reference(function, x, axes)
    else:
        exact, magnitude = float_reference(function, x.astype(np.float64), axes)
        n = int(np.prod([x.shape[d] for d in axes]))
        error = np.abs(got.astype(np.float64) - exact)
        allowed = bound(function, exact, magnitude, n, x.dtype == np.float16)
        return None if np.all(error <= allowed) else f"worst {np.max(error - allowed)} over the bound"
    wrong = np.flatnonzero(got.reshape(-1) != expected.reshape(-1))
    return None if not wrong.size else f"wrong at elements {wrong[:8].tolist()} ({wrong.size} in all)"


def reduce_desc(
    function: Any,
    data_type: Any,
    shape: tuple[int, ...],
    axes: tuple[int, ...],
    strides: Any = None,
    output_strides: Callable[[tuple[int, ...]], Any] | None = None,
) -> Any:
    """REDUCE of ``function`` over ``axes`` of an input of ``shape`` (``strides``: None packed), its output packed or
    at ``output_strides(its sizes)``."""
    out_sizes = tuple(1 if d in axes else s for d, s in enumerate(shape))
    out_strides = None if output_strides is None else output_strides(out_sizes)
    return dml.ReduceOperatorDesc(
        function=function,
        input_tensor=tensor(data_type, shape, strides),
        output_tensor=tensor(dml.TensorDataType.UINT32 if function in ARG else data_type, out_sizes, out_strides),
        axes=axes,
    )


def run_reduce(device: Any, desc: Any, x: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``desc`` on ``x`` through the object model (the input 32 bytes into its buffer), on ``device``."""
    desc.validate_on(device.feature_level)
    output: npt.NDArray[Any] = run_structured(device, desc, {"input_tensor": x}, offsets={"input_tensor": 32})[
        "output_tensor"
    ]
    return output
