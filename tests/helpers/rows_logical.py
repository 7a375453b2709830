"""The operator-table rows of the comparisons (LOGICAL_EQUALS, GREATER_THAN, LESS_THAN, GREATER_THAN_OR_EQUAL,
LESS_THAN_OR_EQUAL) and the logical operators (LOGICAL_AND, OR, XOR, NOT): every input type of each operator's
newest support table with a UINT8 output and FLOAT32 with a UINT32 one; both truth types for the logical operators.
A default run takes the floats and one integer type per comparison (another for each), every type with
--run-slow.

The references are NumPy's comparisons (IEEE 754's: a NaN compares false, -0 equals +0) and logical functions
(any nonzero element true), converted to the output's 1 and 0."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import dmlpy as dml
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.dtypes import NUMPY_DTYPE
from tests.helpers.row_model import F16, F32, U8, U32, Array, Case, OperatorRow, Reference, other_values

COMPARISONS: Mapping[type[OperatorDescBase], Callable[[Array, Array], Array]] = {
    dml.ElementWiseLogicalEqualsOperatorDesc: np.equal,
    dml.ElementWiseLogicalGreaterThanOperatorDesc: np.greater,
    dml.ElementWiseLogicalLessThanOperatorDesc: np.less,
    dml.ElementWiseLogicalGreaterThanOrEqualOperatorDesc: np.greater_equal,
    dml.ElementWiseLogicalLessThanOrEqualOperatorDesc: np.less_equal,
}
"""Each comparison's reference."""
LOGIC: Mapping[type[OperatorDescBase], Callable[[Array, Array], Array]] = {
    dml.ElementWiseLogicalAndOperatorDesc: np.logical_and,
    dml.ElementWiseLogicalOrOperatorDesc: np.logical_or,
    dml.ElementWiseLogicalXorOperatorDesc: np.logical_xor,
}
"""Each binary logical operator's reference."""
DEFAULT_INTEGERS = tuple(np.dtype(t) for t in ("i1", "u2", "i4", "i8", "u8"))
"""The integer type a default run gives each comparison, in COMPARISONS' order."""


def binary_reference(function: Callable[[Array, Array], Array]) -> Reference:
    def reference(inputs: Mapping[str, Array], case: Case) -> Array:
        return function(inputs["a_tensor"], inputs["b_tensor"]).astype(case.dtypes["output_tensor"])

    return reference


def comparison_row(desc: type[OperatorDescBase], default_integer: np.dtype[Any]) -> OperatorRow:
    types = desc.SUPPORT.rows[-1].data_types["ATensor"]
    dtypes = sorted((NUMPY_DTYPE[t] for t in types), key=lambda d: (d.kind != "f", d.itemsize, d.kind))
    cases = [Case({"a_tensor": d, "b_tensor": d, "output_tensor": U8}) for d in dtypes]
    cases.append(Case({"a_tensor": F32, "b_tensor": F32, "output_tensor": U32}))
    slow = frozenset(c.id for c in cases if c.dtypes["a_tensor"] not in (F32, F16, default_integer))
    reference = binary_reference(COMPARISONS[desc])
    return OperatorRow(desc, tuple(cases), reference, {"b_tensor": other_values}, sampled=True, slow_cases=slow)


def logic_row(desc: type[OperatorDescBase]) -> OperatorRow:
    cases = tuple(Case({"a_tensor": d, "b_tensor": d, "output_tensor": d}) for d in (U8, U32))
    return OperatorRow(desc, cases, binary_reference(LOGIC[desc]), {"b_tensor": other_values}, sampled=True)


def _logical_not(inputs: Mapping[str, Array], case: Case) -> Array:
    return np.logical_not(inputs["input_tensor"]).astype(case.dtypes["output_tensor"])


ROWS_LOGICAL: tuple[OperatorRow, ...] = (
    *(comparison_row(desc, default) for desc, default in zip(COMPARISONS, DEFAULT_INTEGERS, strict=True)),
    *(logic_row(desc) for desc in LOGIC),
    OperatorRow(
        dml.ElementWiseLogicalNotOperatorDesc,
        tuple(Case({"input_tensor": d, "output_tensor": d}) for d in (U8, U32)),
        _logical_not,
        sampled=True,
    ),
)
"""The comparisons' and the logical operators' rows, in the operator table's order."""
