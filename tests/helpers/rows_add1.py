"""The operator-table row of ELEMENT_WISE_ADD1: a + b, then each fusible activation.

Reference: ADD's, a + b in float32 rounded once to the output's type (as ADD stores it), then the activation's own
row reference (tests/helpers/rows_activations.py, rows_exponential.py) with the parameters its row runs with, so a
result equals ADD then the activation node by node: bit for bit for a piecewise activation, within the exponential
activation's own ULPs of the exact value for the others (``float32_ulps_of``). A default run takes FLOAT32 without
an activation and FLOAT16 with LEAKY_RELU; every other activation and type with --run-slow."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import dmlpy as dml
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.row_model import F16, F32, Array, Case, OperatorRow, other_values
from tests.helpers.rows_activations import PARAMETERS as PIECEWISE_PARAMETERS
from tests.helpers.rows_activations import ROWS_ACTIVATIONS
from tests.helpers.rows_exponential import PARAMETERS as EXPONENTIAL_PARAMETERS
from tests.helpers.rows_exponential import ROWS_EXPONENTIAL

ADD1 = dml.ElementWiseAdd1OperatorDesc
FUSIBLE_ROWS = {
    row.desc: row
    for row in (*ROWS_ACTIVATIONS, *ROWS_EXPONENTIAL)
    if row.desc in dml.FusedActivation.ACTIVATIONS.values()
}
"""The activations' rows whose activation DirectML fuses."""
PARAMETERS = {**PIECEWISE_PARAMETERS, **EXPONENTIAL_PARAMETERS}
"""The parameters each activation's row runs with."""


def fused(desc: type[OperatorDescBase], **fields: float) -> dml.FusedActivation:
    """``desc`` as a FusedActivation: its C struct with null tensors and ``fields`` (snake_case) under C names."""
    values = {desc.model_fields[name].alias or name: value for name, value in fields.items()}
    return dml.FusedActivation(type=desc.OPERATOR_TYPE, desc={"InputTensor": None, "OutputTensor": None, **values})


def activation_of(fused_activation: dml.FusedActivation) -> type[OperatorDescBase]:
    return dml.FusedActivation.ACTIVATIONS[fused_activation.type]


def add1_reference(a: Array, b: Array, fused_activation: dml.FusedActivation | None) -> Array:
    """ADD then the fused activation, each as its row computes it."""
    with np.errstate(all="ignore"):
        total = (a.astype(F32) + b.astype(F32)).astype(a.dtype)
    if fused_activation is None:
        return total
    activation = activation_of(fused_activation)
    fields = {name: value for name, value in fused_activation.desc.items() if value is not None}
    options = {next(n for n, f in activation.model_fields.items() if f.alias == k): v for k, v in fields.items()}
    case = Case({"input_tensor": total.dtype, "output_tensor": total.dtype}, options)
    return FUSIBLE_ROWS[activation].reference({"input_tensor": total}, case)


def add1_float32_ulps(case: Case) -> int:
    """The bound of ``case``'s fused activation (0 without one: ADD is exact)."""
    fused_activation = case.options.get("fused_activation")
    return 0 if fused_activation is None else activation_of(fused_activation).FLOAT32_ULPS


def _reference(inputs: Mapping[str, Array], case: Case) -> Array:
    return add1_reference(inputs["a_tensor"], inputs["b_tensor"], case.options.get("fused_activation"))


def add1_case(dtype: np.dtype[Any], fused_activation: dml.FusedActivation | None) -> Case:
    options = {} if fused_activation is None else {"fused_activation": fused_activation}
    return Case(dict.fromkeys(("a_tensor", "b_tensor", "output_tensor"), dtype), options)


_ACTIVATIONS = [None, *(fused(desc, **PARAMETERS.get(desc, {})) for desc in FUSIBLE_ROWS)]
_CASES = tuple(add1_case(dtype, f) for f in _ACTIVATIONS for dtype in (F32, F16))
_DEFAULT = {add1_case(F32, None).id, add1_case(F16, fused(dml.ActivationLeakyReluOperatorDesc, alpha=0.01)).id}
ROW_ADD1 = OperatorRow(
    ADD1,
    _CASES,
    _reference,
    {"b_tensor": other_values},
    sampled=True,
    slow_cases=frozenset(case.id for case in _CASES) - _DEFAULT,
    nan="any",  # a NaN result is arithmetic's (ADD's), as the binary rows say
    float32_ulps_of=add1_float32_ulps,
)
