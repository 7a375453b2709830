"""The operator-table rows of POW and CONSTANT_POW.

References: NumPy's float64 ``power`` (C's pow, C99 Annex F's special cases) of the bases (after ``x * Scale + Bias``
in float32) and the exponents, a result within the operators' FLOAT32_ULPS; Python's integers for integer bases
and exponents: ``pow(x, n, 2**width)`` (the product wrapped), and for a negative exponent 1 / x^n truncated (1, +-1
by parity for -1, all bits set for 0, else 0; docs/operators/element_wise_pow.md). A default run takes FLOAT32,
FLOAT16, INT32 and a FLOAT32 base with INT32 exponents (pown); --run-slow every integer type and other mixes.
An integer base with a float exponent is truncated from a bounded float result, so no bit-exact reference exists:
tests/device/powers/ tests it on results far from an integer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import dmlpy as dml
from tests.helpers.row_model import F16, F32, Array, Case, OperatorRow

I32 = np.dtype(np.int32)
INTEGERS = tuple(np.dtype(t) for t in ("i1", "u1", "i2", "u2", "i4", "u4"))
_FLOAT_EXPONENTS = (0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, 2.5, 1 / 3, 10.0, np.inf, -np.inf, np.nan)


def exponents(dtype: np.dtype[Any], count: int, rng: np.random.Generator) -> Array:
    """ExponentTensor's values: small integers, halves, a third and the special values (float types), small and
    negative counts and the type's edges (integer types), then random values of the type."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        chosen = np.array(_FLOAT_EXPONENTS, dtype=dtype)
        rest = rng.uniform(-12, 12, count).astype(dtype)
    else:
        info = np.iinfo(dtype)
        small = [n for n in range(-3, 34) if info.min <= n]
        chosen = np.array([*small, info.max, info.min], dtype=dtype)
        rest = rng.integers(max(int(info.min), -40), min(int(info.max), 40), count, dtype=dtype, endpoint=True)
    picked = np.where(rng.random(count) < 0.5, np.resize(chosen, count), rest)
    return rng.permutation(picked.astype(dtype))


def integer_power(x: int, n: int, dtype: np.dtype[Any]) -> int:
    """x^n as dmlpy computes it in ``dtype``: wrapped modulo 2^width; a negative n as 1 / x^|n| truncated."""
    width = 8 * dtype.itemsize
    if n < 0:
        return 1 if x == 1 else (-1 if n % 2 else 1) if x == -1 else -1 if x == 0 else 0
    wrapped = pow(x, n, 1 << width)
    return wrapped - (1 << width) if dtype.kind == "i" and wrapped >= 1 << (width - 1) else wrapped


def _pow(base: Array, exponent: Array, case: Case) -> Array:
    out = np.dtype(case.dtypes["output_tensor"])
    if base.dtype.kind in "iu":
        values = [integer_power(x, n, out) for x, n in zip(base.tolist(), exponent.tolist(), strict=True)]
        return np.array([v if v >= 0 or out.kind == "i" else v & np.iinfo(out).max for v in values], dtype=out)
    scale_bias = case.options.get("scale_bias")
    with np.errstate(all="ignore"):
        if scale_bias is not None:
            base = base.astype(F32) * F32.type(scale_bias.scale) + F32.type(scale_bias.bias)
        return np.power(base.astype(np.float64), exponent.astype(np.float64))


def pow_reference(inputs: Mapping[str, Array], case: Case) -> Array:
    return _pow(inputs["input_tensor"], inputs["exponent_tensor"], case)


def constant_pow_reference(inputs: Mapping[str, Array], case: Case) -> Array:
    x = inputs["input_tensor"]
    return _pow(x, np.full(x.shape, case.options["exponent"], F32), case)


def _pow_case(base: np.dtype[Any], exponent: np.dtype[Any], scale_bias: Any = None) -> Case:
    options = {"scale_bias": scale_bias} if scale_bias is not None else {}
    return Case({"input_tensor": base, "exponent_tensor": exponent, "output_tensor": base}, options)


def _pow_row() -> OperatorRow:
    mixed = (_pow_case(F32, I32), _pow_case(F16, F32), _pow_case(F16, np.dtype(np.uint8)))
    integers = (*(_pow_case(d, d) for d in INTEGERS), _pow_case(np.dtype(np.int8), np.dtype(np.uint32)))
    scaled = (_pow_case(F32, F32, dml.ScaleBias(scale=1.5, bias=-0.25)),)
    cases = (_pow_case(F32, F32), _pow_case(F16, F16), *mixed, *integers, *scaled)
    default = {_pow_case(F32, F32).id, _pow_case(F16, F16).id, _pow_case(I32, I32).id, _pow_case(F32, I32).id}
    slow = frozenset(c.id for c in cases if c.id not in default)
    return OperatorRow(
        dml.ElementWisePowOperatorDesc,
        cases,
        pow_reference,
        {"exponent_tensor": exponents},
        sampled=True,
        slow_cases=slow,
        nan="any",
    )


def _constant_pow_row() -> OperatorRow:
    cases = tuple(
        Case({"input_tensor": d, "output_tensor": d}, {"exponent": exponent, "scale_bias": scale_bias})
        for d, exponent, scale_bias in (
            (F32, 2.5, None),
            (F16, -3.0, dml.ScaleBias(scale=1.5, bias=-0.25)),
            (F32, 1 / 3, None),
            (F16, 0.5, None),
        )
    )
    slow = frozenset(case.id for case in cases[2:])
    return OperatorRow(
        dml.ElementWiseConstantPowOperatorDesc, cases, constant_pow_reference, sampled=True, slow_cases=slow, nan="any"
    )


ROWS_POW: tuple[OperatorRow, ...] = (_pow_row(), _constant_pow_row())
"""POW's and CONSTANT_POW's rows, in the operator table's order."""
