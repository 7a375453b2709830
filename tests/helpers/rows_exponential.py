"""The operator-table rows of the exponential activations (ELU, CELU, SCALED_ELU, SIGMOID, TANH, SCALED_TANH,
SOFTPLUS, PARAMETRIC_SOFTPLUS, GELU, SWISH): FLOAT32 and FLOAT16 with DirectMLX's default parameters
(PARAMETRIC_SOFTPLUS, which has none, with 1.5 and 0.5), each result within the operator's ULPs of the exact value
(``OperatorRow.ulps``: FLOAT32_ULPS at FLOAT32, one half ULP at FLOAT16).

References: the pages' formulas in float64 on the float32 inputs and parameters, NumPy's expm1, tanh and logaddexp
and C's erfc (an input times a float32 parameter is exact in float64), with each page's limits where float64
arithmetic would make a NaN of them (GELU and SWISH at -infinity: -0) and its zero signs (ELU keeps x from -0 up;
SCALED_ELU's Gamma * Alpha * expm1(-0) is -0)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np

import dmlpy as dml
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.row_model import F16, F32, Array, Case, OperatorRow, Reference

PARAMETERS: Mapping[type[OperatorDescBase], dict[str, float]] = {
    desc: dict(desc.BUILDER_DEFAULTS)
    for desc in (
        dml.ActivationEluOperatorDesc,
        dml.ActivationCeluOperatorDesc,
        dml.ActivationScaledEluOperatorDesc,
        dml.ActivationScaledTanhOperatorDesc,
        dml.ActivationSoftplusOperatorDesc,
        dml.ActivationSwishOperatorDesc,
    )
} | {dml.ActivationParametricSoftplusOperatorDesc: {"alpha": 1.5, "beta": 0.5}}
"""The parameters the rows run with: DirectMLX's defaults; PARAMETRIC_SOFTPLUS's own (it has none)."""


def _erfc(x: Array) -> Array:
    """The complementary error function of float64 values (NumPy has none): C's erfc through Python's."""
    return np.frompyfunc(math.erfc, 1, 1)(x).astype(np.float64)


def sigmoid(t: Array) -> Array:
    """1 / (1 + e^-t) in float64, written so that neither exponential overflows."""
    e = np.exp(-np.abs(t))
    return np.where(t >= 0, 1 / (1 + e), e / (1 + e))


def _times_vanishing(x: Array, factor: Array) -> Array:
    """x * factor, the limit -0 or +0 (x's sign) where x is infinite and factor 0 (GELU's and SWISH's at -inf)."""
    return np.where(np.isinf(x) & (factor == 0), np.copysign(0.0, x), x * factor)


FORMULAS: Mapping[type[OperatorDescBase], Callable[..., Array]] = {
    dml.ActivationEluOperatorDesc: lambda x, alpha: np.where(x >= 0, x, alpha * np.expm1(x)),
    dml.ActivationCeluOperatorDesc: lambda x, alpha: np.where(x >= 0, x, alpha * np.expm1(x / alpha)),
    dml.ActivationScaledEluOperatorDesc: lambda x, alpha, gamma: np.where(
        x > 0, gamma * x, gamma * (alpha * np.expm1(x))
    ),
    dml.ActivationSigmoidOperatorDesc: sigmoid,
    dml.ActivationTanhOperatorDesc: np.tanh,
    dml.ActivationScaledTanhOperatorDesc: lambda x, alpha, beta: alpha * np.tanh(beta * x),
    dml.ActivationSoftplusOperatorDesc: lambda x, steepness: np.logaddexp(0.0, steepness * x) / steepness,
    dml.ActivationParametricSoftplusOperatorDesc: lambda x, alpha, beta: alpha * np.logaddexp(0.0, beta * x),
    dml.ActivationGeluOperatorDesc: lambda x: _times_vanishing(x, 0.5 * _erfc(-x / math.sqrt(2))),
    dml.ActivationSwishOperatorDesc: lambda x, sigmoid_input_scale: _times_vanishing(
        x, sigmoid(sigmoid_input_scale * x)
    ),
}
"""Each activation's formula on float64 values, its parameters float32 values."""


def exact(desc: type[OperatorDescBase], x: Array, parameters: Mapping[str, float]) -> Array:
    """``desc``'s exact result (float64) on ``x`` with ``parameters`` rounded to float32, as the C FLOATs hold them."""
    rounded = {name: float(np.float32(value)) for name, value in parameters.items()}
    with np.errstate(all="ignore"):
        return np.asarray(FORMULAS[desc](x.astype(np.float64), **rounded), dtype=np.float64)


def _reference(desc: type[OperatorDescBase]) -> Reference:
    def reference(inputs: Mapping[str, Array], case: Case) -> Array:
        return exact(desc, inputs["input_tensor"], case.options)

    return reference


def _row(desc: type[OperatorDescBase]) -> OperatorRow:
    cases = tuple(Case({"input_tensor": d, "output_tensor": d}, PARAMETERS.get(desc, {})) for d in (F32, F16))
    return OperatorRow(desc, cases, _reference(desc), sampled=True, nan="any")


ROWS_EXPONENTIAL: tuple[OperatorRow, ...] = tuple(_row(desc) for desc in FORMULAS)
"""The exponential activations' rows, in the operator table's order."""
