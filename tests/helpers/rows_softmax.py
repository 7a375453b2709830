"""The operator-table rows of the axis-reducing activations (ACTIVATION_SOFTMAX, LOG_SOFTMAX, HARDMAX and their
"1" forms): FLOAT32 and FLOAT16, the "1" forms with one choice of Axes each by default (another per type for
FLOAT32 and FLOAT16) and every other choice with --run-slow. Their values test runs rows of 16 (``Reduction``):
normal values of scales 0.01 to 100, a quarter of them whole numbers (ties for HARDMAX).

References: NumPy in float64, the formula as DirectML's pages write it, exp(x - max) / sum and (x - max) - log(sum)
(so a NaN, a +inf or a group of -inf gives NaN throughout, the rule opencl/softmax.cl follows), compared within
the operator's FLOAT32_ULPS; HARDMAX exact, 1 at NumPy's argmax (the first maximum; the first NaN where there is
one) of each group."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import dmlpy as dml
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.row_model import F16, F32, Array, Case, OperatorRow, PerRank, Reduction, Reference

LAST = PerRank("last", lambda rank: (rank - 1,))
FIRST = PerRank("first", lambda rank: (0,))
LAST_TWO = PerRank("last-two", lambda rank: tuple(range(max(rank - 2, 0), rank)))
FIRST_AND_LAST = PerRank("first-and-last", lambda rank: tuple(sorted({0, rank - 1})))
EVERY = PerRank("every", lambda rank: tuple(range(rank)))
AXES = (FIRST_AND_LAST, LAST, FIRST, LAST_TWO, EVERY)
"""The Axes the "1" forms' cases take, as each shape's rank gives them; a default run FIRST_AND_LAST at FLOAT32
(groups strided apart) and LAST at FLOAT16, every choice at both types with --run-slow."""


def group_axes(x: Array, case: Case) -> tuple[int, ...]:
    """The axes ``case`` reduces ``x`` along: its Axes, or the older forms' last axis."""
    axes = case.options.get("axes")
    return axes.pick(x.ndim) if isinstance(axes, PerRank) else (x.ndim - 1,)


def softmax_reference(x: Array, axes: tuple[int, ...], operation: str) -> Array:
    """SOFTMAX or LOG_SOFTMAX of ``x`` along ``axes`` in float64. The sum is 1 (the first maximum's term) + the
    rest, and log(sum) is log1p(rest): where the rest is below float64's epsilon, log(1 + rest) would be 0 and the
    maximum's log-softmax, -rest, lost."""
    wide = x.astype(np.float64)
    with np.errstate(all="ignore"):
        maximum = wide.max(axis=axes, keepdims=True)
        difference = wide - maximum
        terms = np.exp(difference)
        rest = np.where(hardmax_reference(x, axes) == 1, 0.0, terms).sum(axis=axes, keepdims=True)
        result = terms / (1 + rest) if operation == "SOFTMAX" else difference - np.log1p(rest)
        # A maximum that is not finite puts a NaN into the sum (NaN, inf - inf, -inf - -inf): NaN throughout.
        return np.where(np.isfinite(maximum), result, np.nan)


def hardmax_reference(x: Array, axes: tuple[int, ...]) -> Array:
    """1 at the first maximum of each group of ``x`` along ``axes`` (row-major order of the axes), 0 elsewhere."""
    kept = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, (*kept, *axes))
    groups = moved.reshape(*moved.shape[: len(kept)], -1)
    ones = np.zeros(groups.shape, dtype=x.dtype)
    np.put_along_axis(ones, np.argmax(groups, axis=-1)[..., None], 1, axis=-1)
    return np.transpose(ones.reshape(moved.shape), np.argsort((*kept, *axes)))


def _reference(desc: type[OperatorDescBase]) -> Reference:
    operation = desc.OPERATION  # type: ignore[attr-defined]

    def reference(inputs: Mapping[str, Array], case: Case) -> Array:
        x = inputs["input_tensor"]
        if operation == "HARDMAX":
            return hardmax_reference(x, group_axes(x, case)).astype(case.dtypes["output_tensor"])
        return softmax_reference(x, group_axes(x, case), operation)

    return reference


def softmax_values(dtype: np.dtype[Any], count: int, rng: np.random.Generator) -> Array:
    """Normal values of scales 0.01 to 100, a quarter of them whole numbers (ties)."""
    values = rng.standard_normal(count) * rng.choice([0.01, 1.0, 10.0, 100.0], count)
    return np.where(rng.random(count) < 0.25, np.round(values), values).astype(dtype)


REDUCTION = Reduction(softmax_values)
"""How the "1" forms' tests shape their values: rows of 16."""
ROWS_OF_RANK_2 = Reduction(softmax_values, max_effective_rank=2)
"""The older forms': rows of 16 too, and only the layouts of an effective rank of 2 at most."""


def _row(desc: type[OperatorDescBase]) -> OperatorRow:
    """The row of ``desc``: sampled (one layout per case by default) but for SOFTMAX1, as the six run one kernel
    that differs only in its last pass."""
    dtypes = {"input_tensor": F32, "output_tensor": F32}, {"input_tensor": F16, "output_tensor": F16}
    sampled = desc is not dml.ActivationSoftmax1OperatorDesc
    if "axes" not in desc.model_fields:
        cases = tuple(Case(d) for d in dtypes)
        return OperatorRow(
            desc,
            cases,
            _reference(desc),
            sampled=sampled,
            nan="any",
            reduction=ROWS_OF_RANK_2,
        )
    cases = tuple(Case(d, {"axes": axes}) for axes in AXES for d in dtypes)
    default = {cases[0].id, cases[3].id}  # FLOAT32 over FIRST_AND_LAST, FLOAT16 over LAST
    slow = frozenset(case.id for case in cases) - default
    return OperatorRow(desc, cases, _reference(desc), sampled=sampled, slow_cases=slow, nan="any", reduction=REDUCTION)


ROWS_SOFTMAX: tuple[OperatorRow, ...] = tuple(
    _row(desc)
    for desc in (
        dml.ActivationSoftmaxOperatorDesc,
        dml.ActivationLogSoftmaxOperatorDesc,
        dml.ActivationHardmaxOperatorDesc,
        dml.ActivationSoftmax1OperatorDesc,
        dml.ActivationLogSoftmax1OperatorDesc,
        dml.ActivationHardmax1OperatorDesc,
    )
)
"""The softmax family's rows, in the operator table's order."""
