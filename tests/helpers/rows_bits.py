"""The operator-table rows of the bit operators (BIT_AND, OR, XOR, NOT, COUNT, SHIFT_LEFT, SHIFT_RIGHT): every type
of each operator's newest support table, compared bit for bit (a NaN's quiet bit too). A default run takes
FLOAT32 and FLOAT16 (their encodings through the unsigned kernel) and one integer type per operator (fused on its
own registers); with --run-slow every type.

The references are NumPy's bitwise functions on each element's encoding (the array viewed as the unsigned integer
of its width), Python's ``int.bit_count`` for BIT_COUNT, and Python's shifts of unbounded integers, masked to the
width, for the shifts (a count of the width or more shifts every bit out)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import dmlpy as dml
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.dtypes import NUMPY_DTYPE
from tests.helpers.row_model import F16, F32, U8, U32, Array, Case, OperatorRow, Reference, other_values

ORDER = tuple(np.dtype(t) for t in ("f4", "f2", "f8", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"))


def encoding(values: Array) -> Array:
    """``values`` viewed as the unsigned integer of their width."""
    return values.view(f"u{values.dtype.itemsize}")


def _bitwise(function: Callable[..., Array]) -> Reference:
    def reference(inputs: Mapping[str, Array], case: Case) -> Array:
        operands = [encoding(inputs[name]) for name in ("a_tensor", "b_tensor", "input_tensor") if name in inputs]
        return function(*operands).view(case.dtypes["output_tensor"])

    return reference


def _bit_count(inputs: Mapping[str, Array], case: Case) -> Array:
    counts = [int(value).bit_count() for value in encoding(inputs["input_tensor"]).tolist()]
    return np.array(counts, dtype=case.dtypes["output_tensor"])


def _shift(left: bool) -> Reference:
    def reference(inputs: Mapping[str, Array], case: Case) -> Array:
        a, b = inputs["a_tensor"], inputs["b_tensor"]
        width = a.dtype.itemsize * 8
        mask = (1 << width) - 1
        shifted = [
            ((x << s) & mask if left else x >> s) if s < width else 0
            for x, s in zip(a.tolist(), b.tolist(), strict=True)
        ]
        return np.array(shifted, dtype=a.dtype)

    return reference


def shift_counts(dtype: np.dtype[Any], count: int, rng: np.random.Generator) -> Array:
    """BTensor's values for a shift: every count from 0 to the width + 3 (the last four shift every bit out), and
    random values of the type beyond."""
    width = dtype.itemsize * 8
    small = rng.integers(0, width + 4, count - count // 8, dtype=dtype, endpoint=False)
    return rng.permutation(np.concatenate([small, other_values(dtype, count // 8, rng)]))


def _row(
    desc: type[OperatorDescBase],
    cases: list[Case],
    reference: Reference,
    default: str,
    parameters: Mapping[str, Any] | None = None,
) -> OperatorRow:
    first = desc.INPUTS[0]
    keep = {F32, F16, np.dtype(default)}
    slow = frozenset(c.id for c in cases if c.dtypes[first] not in keep)
    return OperatorRow(desc, tuple(cases), reference, parameters or {}, sampled=True, slow_cases=slow, nan="bits")


def _types(desc: type[OperatorDescBase], tensor: str) -> list[np.dtype[Any]]:
    types = desc.SUPPORT.rows[-1].data_types[tensor]
    return [d for d in ORDER if d in {NUMPY_DTYPE[t] for t in types}]


def _binary(desc: type[OperatorDescBase], reference: Reference, default: str, **parameters: Any) -> OperatorRow:
    cases = [Case({"a_tensor": d, "b_tensor": d, "output_tensor": d}) for d in _types(desc, "ATensor")]
    return _row(desc, cases, reference, default, {"b_tensor": other_values, **parameters})


def _bit_not_row() -> OperatorRow:
    desc = dml.ElementWiseBitNotOperatorDesc
    cases = [Case({"input_tensor": d, "output_tensor": d}) for d in _types(desc, "InputTensor")]
    return _row(desc, cases, _bitwise(np.invert), "i8")


def _bit_count_row() -> OperatorRow:
    desc = dml.ElementWiseBitCountOperatorDesc
    cases = [Case({"input_tensor": d, "output_tensor": U8}) for d in _types(desc, "InputTensor")]
    cases.append(Case({"input_tensor": F32, "output_tensor": U32}))
    return _row(desc, cases, _bit_count, "u2")


ROWS_BITS: tuple[OperatorRow, ...] = (
    _binary(dml.ElementWiseBitAndOperatorDesc, _bitwise(np.bitwise_and), "i1"),
    _binary(dml.ElementWiseBitOrOperatorDesc, _bitwise(np.bitwise_or), "u4"),
    _binary(dml.ElementWiseBitXorOperatorDesc, _bitwise(np.bitwise_xor), "i2"),
    _bit_not_row(),
    _bit_count_row(),
    _binary(dml.ElementWiseBitShiftLeftOperatorDesc, _shift(True), "u1", b_tensor=shift_counts),
    _binary(dml.ElementWiseBitShiftRightOperatorDesc, _shift(False), "u8", b_tensor=shift_counts),
)
"""The bit operators' rows, in the operator table's order."""
