"""The operator-table rows of the remainders (MODULUS_TRUNCATE, MODULUS_FLOOR), IF and ATAN_YX.

References: NumPy's ``fmod`` and ``remainder`` on floats (computed in float32, rounded once to the output's type,
as dmlpy computes a FLOAT16 operator), Python's integers for the integer remainders (a zero divisor giving all bits
set, docs/operators/element_wise_modulus.md), ``np.where`` for IF, NumPy's float64 ``arctan2`` for ATAN_YX (its
result within the operator's FLOAT32_ULPS). A default run takes the floats and one integer type per operator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import dmlpy as dml
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.dtypes import NUMPY_DTYPE
from tests.helpers.row_model import F16, F32, U8, Array, Case, OperatorRow, Reference, other_values
from tests.helpers.rows_bits import encoding

ORDER = tuple(np.dtype(t) for t in ("f4", "f2", "f8", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"))


def _types(desc: type[OperatorDescBase]) -> list[np.dtype[Any]]:
    types = {NUMPY_DTYPE[t] for t in desc.SUPPORT.rows[-1].data_types["ATensor"]}
    return [d for d in ORDER if d in types]


def _integer_remainder(a: Array, b: Array, floor: bool) -> Array:
    """Python's integers: the remainder of the quotient rounded toward zero (or toward -infinity with ``floor``);
    a zero divisor gives all bits set."""
    all_ones = -1 if np.iinfo(a.dtype).min else int(np.iinfo(a.dtype).max)
    out = []
    for x, y in zip(a.tolist(), b.tolist(), strict=True):
        if y == 0:
            out.append(all_ones)
            continue
        r = x % y  # Python's: the divisor's sign
        if not floor and r != 0 and (x < 0) != (y < 0):
            r -= y  # back to the dividend's sign
        out.append(r)
    return np.array(out, dtype=a.dtype)


def _remainder(floor: bool) -> Reference:
    def reference(inputs: Mapping[str, Array], case: Case) -> Array:
        a, b, out = inputs["a_tensor"], inputs["b_tensor"], case.dtypes["output_tensor"]
        if a.dtype.kind != "f":
            return _integer_remainder(a, b, floor)
        with np.errstate(all="ignore"):
            function = np.remainder if floor else np.fmod
            return function(a.astype(F32), b.astype(F32)).astype(out)

    return reference


def _remainder_row(desc: type[OperatorDescBase], floor: bool, default: str) -> OperatorRow:
    cases = tuple(Case({"a_tensor": d, "b_tensor": d, "output_tensor": d}) for d in _types(desc))
    slow = frozenset(c.id for c in cases if c.dtypes["a_tensor"] not in (F32, F16, np.dtype(default)))
    return OperatorRow(
        desc, cases, _remainder(floor), {"b_tensor": other_values}, sampled=True, slow_cases=slow, nan="any"
    )


def _if(inputs: Mapping[str, Array], case: Case) -> Array:
    a, b = encoding(inputs["a_tensor"]), encoding(inputs["b_tensor"])
    return np.where(inputs["condition_tensor"] != 0, a, b).view(case.dtypes["output_tensor"])


def _if_row() -> OperatorRow:
    desc = dml.ElementWiseIfOperatorDesc
    cases = tuple(
        Case({"condition_tensor": U8, "a_tensor": d, "b_tensor": d, "output_tensor": d}) for d in _types(desc)
    )
    slow = frozenset(c.id for c in cases if c.dtypes["a_tensor"] not in (F32, F16, np.dtype("i8")))
    # IF's first input is ConditionTensor: the row's value set goes to it, every byte (1 in 256 of them 0, choosing
    # B; tests/device/selection/ takes both sides evenly).
    parameters = {"a_tensor": other_values, "b_tensor": other_values}
    return OperatorRow(desc, cases, _if, parameters, sampled=True, slow_cases=slow, nan="bits")


def _atan_yx(inputs: Mapping[str, Array], case: Case) -> Array:
    with np.errstate(all="ignore"):
        return np.arctan2(inputs["a_tensor"].astype(np.float64), inputs["b_tensor"].astype(np.float64))


ROWS_SELECT: tuple[OperatorRow, ...] = (
    _remainder_row(dml.ElementWiseModulusTruncateOperatorDesc, False, "i2"),
    _remainder_row(dml.ElementWiseModulusFloorOperatorDesc, True, "i4"),
    OperatorRow(
        dml.ElementWiseAtanYxOperatorDesc,
        tuple(Case({"a_tensor": d, "b_tensor": d, "output_tensor": d}) for d in (F32, F16)),
        _atan_yx,
        {"b_tensor": other_values},
        sampled=True,
        nan="any",
    ),
    _if_row(),
)
"""The remainders', ATAN_YX's and IF's rows, in the operator table's order."""
