"""What the TOP_K and cumulative tests share (test_top_k.py, test_cumulative.py,
oclgrind_top_k_cumulative_variants.py): inputs rich in ties and special values, and the independent references:
onnx.reference's TopK (np.lexsort: NaN the largest, -0 equal to +0, ties by ascending index) and CumSum (exclusive,
reverse), a running product written the same way in NumPy, float64 for the float tallies with the bound
docs/operators/reduction.md derives (``tally_bound``), NumPy's own integer arithmetic (modulo 2^width) otherwise."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from onnx.reference.ops.op_cum_sum import CumSum
from onnx.reference.ops.op_topk import topk_sorted_implementation

import dmlpy as dml
from tests.device.movement.cases import tensor
from tests.helpers.dtypes import NUMPY_DTYPE

T = dml.TensorDataType
U = 2.0**-24
"""FLOAT32's unit roundoff."""
FLOAT_SPECIALS = (np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0)


def tied_values(data_type: Any, shape: tuple[int, ...], seed: int) -> npt.NDArray[Any]:
    """Elements drawn from a pool of 7 (so that most sequences hold ties): for integers the type's extremes and 5
    random values, for floats NaN of either sign (one with a payload), +-inf, +-0 and random normals."""
    rng = np.random.default_rng(seed)
    dtype = NUMPY_DTYPE[data_type]
    if dtype.kind == "f":
        pool = np.array([*FLOAT_SPECIALS, *rng.standard_normal(4)], dtype)
        payload = np.array(
            [0x7FC0_1234 if dtype == np.float32 else 0x7E15], np.uint32 if dtype == np.float32 else np.uint16
        )
        pool[0] = payload.view(dtype)[0]
    else:
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.max, *rng.integers(info.min, info.max, 5, endpoint=True, dtype=dtype)], dtype)
    return rng.choice(pool, shape)


def top_k_reference(x: npt.NDArray[Any], axis: int, k: int, largest: bool) -> tuple[npt.NDArray[Any], Any]:
    """onnx.reference's TopK (sorted): the values and their int64 indices."""
    values, indices = topk_sorted_implementation(x, k, axis, int(largest))
    return values, indices


def top_k_desc(
    operator: Any,
    data_type: Any,
    index_type: Any,
    shape: tuple[int, ...],
    axis: int,
    k: int,
    largest: bool,
    input_strides: tuple[int, ...] | None = None,
) -> Any:
    out = tuple(k if d == axis else s for d, s in enumerate(shape))
    fields: dict[str, Any] = {
        "input_tensor": tensor(data_type, shape, input_strides),
        "output_value_tensor": tensor(data_type, out),
        "output_index_tensor": tensor(index_type, out),
        "axis": axis,
        "k": k,
    }
    if operator is dml.TopK1OperatorDesc:
        fields["axis_direction"] = "DECREASING" if largest else "INCREASING"
    return operator(**fields)


def bits(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The elements as unsigned integers of their width: NaN payloads and -0 compared exactly."""
    return np.ascontiguousarray(array).view(f"u{array.dtype.itemsize}")


def top_k_mismatch(
    got: dict[str, npt.NDArray[Any]], x: npt.NDArray[Any], axis: int, k: int, largest: bool
) -> str | None:
    values, indices = top_k_reference(x, axis, k, largest)
    if not np.array_equal(got["output_index_tensor"], indices):
        wrong = np.flatnonzero(got["output_index_tensor"].reshape(-1) != indices.reshape(-1))
        return f"indices wrong at {wrong[:8].tolist()} ({wrong.size} in all)"
    if not np.array_equal(bits(got["output_value_tensor"]), bits(values)):
        return "values differ from the input's elements at the indices, bit for bit"
    return None


def cumulative_desc(
    operator: Any,
    data_type: Any,
    shape: tuple[int, ...],
    axis: int,
    reverse: bool,
    exclusive: bool,
    strides: tuple[tuple[int, ...] | None, tuple[int, ...] | None] = (None, None),
) -> Any:
    flag = "has_exclusive_sum" if operator is dml.CumulativeSummationOperatorDesc else "has_exclusive_product"
    return operator(
        input_tensor=tensor(data_type, shape, strides[0]),
        output_tensor=tensor(data_type, shape, strides[1]),
        axis=axis,
        axis_direction="DECREASING" if reverse else "INCREASING",
        **{flag: exclusive},
    )


def tally_values(data_type: Any, product: bool, shape: tuple[int, ...], seed: int) -> npt.NDArray[Any]:
    """Floats: normals (products: 1 + x/8, so that products of the sequences stay in range); integers: the type's
    whole range, so that the tallies wrap."""
    rng = np.random.default_rng(seed)
    dtype = NUMPY_DTYPE[data_type]
    if dtype.kind == "f":
        x = rng.standard_normal(shape)
        return (1 + x / 8 if product else x).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dtype)


def _running_product(x: npt.NDArray[Any], axis: int, reverse: bool, exclusive: bool) -> npt.NDArray[Any]:
    """CumSum's own steps (onnx.reference) with a product: flipped for reverse, shifted by one behind a 1 for
    exclusive, in x's type (integers wrap)."""
    y = np.flip(x, axis) if reverse else x
    with np.errstate(over="ignore"):
        running = np.cumprod(y, axis=axis, dtype=x.dtype)
    if exclusive:
        ones = np.ones_like(np.take(running, [0], axis=axis))
        running = np.concatenate([ones, np.delete(running, -1, axis=axis)], axis=axis)
    return np.flip(running, axis) if reverse else running


def tally_reference(x: npt.NDArray[Any], axis: int, reverse: bool, exclusive: bool, product: bool) -> Any:
    """The running tally: onnx.reference's CumSum, or the same with a product, in x's type."""
    if product:
        return _running_product(x, axis, reverse, exclusive)
    with np.errstate(over="ignore"):
        return CumSum.eval(x, np.int64(axis), exclusive=int(exclusive), reverse=int(reverse))


def tally_bound(
    x64: npt.NDArray[np.float64], axis: int, reverse: bool, exclusive: bool, product: bool, half: bool
) -> Any:
    """docs/operators/reduction.md's bound on |got - exact| at each output, of the m elements its tally took in: a
    compensated sum S within 2u|S| + 2m u^2 sum|x|; a serial product P within (m - 1)u|P|; a FLOAT16 output its own
    rounding besides, 2^-11 relative (2^-25 absolute among the subnormals)."""
    exact = tally_reference(x64, axis, reverse, exclusive, product)
    count = tally_reference(np.ones_like(x64), axis, reverse, exclusive, False)
    if product:
        allowed = count * U * np.abs(exact)
    else:
        magnitude = tally_reference(np.abs(x64), axis, reverse, exclusive, False)
        allowed = 2 * U * np.abs(exact) + 2 * count * U * U * magnitude
    return exact, allowed + (2.0**-11 * np.abs(exact) + 2.0**-25 if half else 0.0)


def tally_mismatch(
    got: npt.NDArray[Any], x: npt.NDArray[Any], axis: int, reverse: bool, exclusive: bool, product: bool
) -> str | None:
    """What is wrong with ``got``, or None: integers exactly (modulo 2^width), floats within ``tally_bound``."""
    if x.dtype.kind != "f":
        expected = tally_reference(x, axis, reverse, exclusive, product)
        wrong = np.flatnonzero(got.reshape(-1) != expected.reshape(-1))
        return f"wrong at {wrong[:8].tolist()} ({wrong.size} in all)" if wrong.size else None
    exact, allowed = tally_bound(x.astype(np.float64), axis, reverse, exclusive, product, x.dtype == np.float16)
    error = np.abs(got.astype(np.float64) - exact)
    return None if np.all(error <= allowed) else f"worst {np.max(error - allowed)} over the bound"
