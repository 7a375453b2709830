"""The cases of BATCH_NORMALIZATION, MEAN_VARIANCE_NORMALIZATION (1, 2) and LP_NORMALIZATION, shared by
test_normalizations.py and the Oclgrind sweep (oclgrind_normalize_variants.py): each a descriptor, its inputs by
slot and the float64 formula of docs/operators/normalization.md (NumPy, written here once per operator) with the
bound that page derives (``bound``). ``gaps`` maps a slot to the padding of its rows (``padded_strides``); a slot
it does not name is packed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

import dmlpy as dml
from tests.device.movement.cases import padded_strides, tensor

T = dml.TensorDataType
U = 2.0**-24
"""FLOAT32's unit roundoff."""
SHAPE = (2, 3, 4, 5)
STATISTICS = (1, 3, 1, 1)
"""BATCH_NORMALIZATION's per-channel statistics, broadcast over SHAPE."""
BN_STATISTICS = ("mean", "variance", "scale", "bias")
RELU = dml.FusedActivation(type="ACTIVATION_RELU", desc={})
MVN_EPSILON = 1e-4

MVN, MVN1, MVN2 = (
    dml.MeanVarianceNormalizationOperatorDesc,
    dml.MeanVarianceNormalization1OperatorDesc,
    dml.MeanVarianceNormalization2OperatorDesc,
)
MVN_FORMS = {
    "MVN cross-channel": (MVN, {"cross_channel": True, "normalize_variance": True}, (1, 2, 3), True),
    "MVN per channel": (MVN, {"cross_channel": False, "normalize_variance": True}, (2, 3), True),
    "MVN1 last axis": (MVN1, {"axes": (3,), "normalize_variance": True}, (3,), True),
    "MVN1 no variance": (MVN1, {"axes": (0, 2), "normalize_variance": False}, (0, 2), True),
    "MVN2 RMS": (MVN2, {"axes": (2, 3), "use_mean": False, "use_variance": True}, (2, 3), False),
    "MVN2 both": (MVN2, {"axes": (1,), "use_mean": True, "use_variance": True}, (1,), True),
}
"""Each form: its descriptor class, its own fields, the axes it normalizes over and whether it subtracts the mean."""


class NormalizeCase(NamedTuple):
    desc: Any
    inputs: dict[str, npt.NDArray[Any]]
    expected: npt.NDArray[np.float64]
    allowed: npt.NDArray[np.float64]


def bound(scale: Any, x: Any, center: Any, sigma: Any, bias: Any, half: bool) -> Any:
    """The page's bound on |got - exact|: x - center, scale's product, the division by sqrt(variance + epsilon)
    and the bias each round once (u relative), the center (a mean) and sigma carry a compensated sum's 2u; a
    FLOAT16 output adds its rounding (2^-11 relative)."""
    scaled = np.abs(scale) * (np.abs(x) + np.abs(center)) / sigma
    exact = np.abs(scale * (x - center) / sigma + bias)
    allowed = 8 * U * (scaled + np.abs(bias)) + 4 * U * exact
    return allowed + (2.0**-11 * exact + 2.0**-24 if half else 0.0)


def values(data_type: Any, sizes: tuple[int, ...], seed: int, offset: float = 0.0) -> npt.NDArray[Any]:
    """Normal values of spread 2 around ``offset``, in ``data_type``'s NumPy type."""
    dtype = np.float16 if data_type == T.FLOAT16 else np.float32
    return (np.random.default_rng(seed).standard_normal(sizes) * 2 + offset).astype(dtype)


def past_bound(got: npt.NDArray[Any], expected: Any, allowed: Any) -> npt.NDArray[np.intp]:
    """The flat indices of the elements of ``got`` past their bound (a NaN among them)."""
    error = np.abs(got.astype(np.float64) - expected)
    return np.flatnonzero(~(error <= allowed))


def _tensor(data_type: Any, sizes: tuple[int, ...], gaps: Mapping[str, int], slot: str) -> Any:
    return tensor(data_type, sizes, padded_strides(sizes, gaps[slot]) if slot in gaps else None)


def _activated(exact: Any, relu: bool) -> Any:
    return np.maximum(exact, 0) if relu else exact


def mvn_reference(
    x: npt.NDArray[np.float64],
    axes: tuple[int, ...],
    use_mean: bool,
    normalize_variance: bool,
    epsilon: float,
    scale: Any = 1.0,
    bias: Any = 0.0,
    half: bool = False,
) -> tuple[Any, Any]:
    """MEAN_VARIANCE_NORMALIZATION's exact result, scale * (x - mean) / sqrt(variance + epsilon) + bias over
    ``axes`` (Epsilon the C FLOAT it is), and its ``bound``."""
    center = x.mean(axis=axes, keepdims=True) if use_mean else 0.0
    sigma = (
        np.sqrt(((x - center) ** 2).mean(axis=axes, keepdims=True) + np.float32(epsilon)) if normalize_variance else 1.0
    )
    return scale * (x - center) / sigma + bias, bound(scale, x, center, sigma, bias, half)


def mvn_case(form: str, data_type: Any, scale: bool, bias: bool, relu: bool, gaps: Mapping[str, int]) -> NormalizeCase:
    """An MVN_FORMS form over a mean of 20 against a spread of 2 (the one-pass variance would cancel), ScaleTensor
    and BiasTensor given or not (broadcast over H and W for MVN1 and the RMS form, over C otherwise)."""
    desc_class, fields, axes, use_mean = MVN_FORMS[form]
    normalize_variance = fields.get("normalize_variance", fields.get("use_variance"))
    x = values(data_type, SHAPE, 3, offset=20.0)
    broadcast = (1, 1, 4, 5) if form.startswith("MVN1") or form == "MVN2 RMS" else (1, 3, 1, 1)
    s, b = values(data_type, broadcast, 4), values(data_type, broadcast, 5)
    desc = desc_class(
        input_tensor=_tensor(data_type, SHAPE, gaps, "input_tensor"),
        scale_tensor=_tensor(data_type, broadcast, gaps, "scale_tensor") if scale else None,
        bias_tensor=_tensor(data_type, broadcast, gaps, "bias_tensor") if bias else None,
        output_tensor=_tensor(data_type, SHAPE, gaps, "output_tensor"),
        epsilon=MVN_EPSILON,
        fused_activation=RELU if relu else None,
        **fields,
    )
    inputs = {"input_tensor": x} | ({"scale_tensor": s} if scale else {}) | ({"bias_tensor": b} if bias else {})
    exact, allowed = mvn_reference(
        x.astype(np.float64),
        axes,
        use_mean,
        normalize_variance,
        MVN_EPSILON,
        s.astype(np.float64) if scale else 1.0,
        b.astype(np.float64) if bias else 0.0,
        data_type == T.FLOAT16,
    )
    return NormalizeCase(desc, inputs, _activated(exact, relu), allowed)


def lp_case(p: int, axis: int, data_type: Any, gaps: Mapping[str, int]) -> NormalizeCase:
    """LP_NORMALIZATION x / max(||x||_p, Epsilon) along ``axis``, a zero norm along the last axis among it (divided
    by Epsilon: 0); within 4u|exact| plus FLOAT16's rounding."""
    x = values(data_type, SHAPE, 6)
    x[0, 0, 0, :] = 0
    desc = dml.LpNormalizationOperatorDesc(
        input_tensor=_tensor(data_type, SHAPE, gaps, "input_tensor"),
        output_tensor=_tensor(data_type, SHAPE, gaps, "output_tensor"),
        axis=axis,
        epsilon=1e-5,
        p=p,
    )
    xd = x.astype(np.float64)
    exact = xd / np.maximum(np.linalg.norm(xd, ord=p, axis=axis, keepdims=True), np.float32(1e-5))
    allowed = 4 * U * np.abs(exact) + (2.0**-11 * np.abs(exact) + 2.0**-24 if data_type == T.FLOAT16 else 0.0)
    return NormalizeCase(desc, {"input_tensor": x}, exact, allowed)


def bn_case(data_type: Any, relu: bool, gaps: Mapping[str, int]) -> NormalizeCase:
    """BATCH_NORMALIZATION (Spatial) scale * (x - mean) / sqrt(variance + epsilon) + bias, per-channel statistics
    broadcast over SHAPE."""
    x = values(data_type, SHAPE, 1)
    stats = {name: values(data_type, STATISTICS, k + 2) for k, name in enumerate(BN_STATISTICS)}
    stats["variance"] = np.abs(stats["variance"])
    desc = dml.BatchNormalizationOperatorDesc(
        input_tensor=_tensor(data_type, SHAPE, gaps, "input_tensor"),
        **{f"{name}_tensor": _tensor(data_type, STATISTICS, gaps, f"{name}_tensor") for name in BN_STATISTICS},
        output_tensor=_tensor(data_type, SHAPE, gaps, "output_tensor"),
        spatial=True,
        epsilon=1e-3,
        fused_activation=RELU if relu else None,
    )
    m, v, s, b = (stats[name].astype(np.float64) for name in BN_STATISTICS)
    xd = x.astype(np.float64)
    sigma = np.sqrt(v + np.float32(1e-3))
    exact = s * (xd - m) / sigma + b
    allowed = bound(s, xd, m, sigma, b, data_type == T.FLOAT16)
    inputs = {"input_tensor": x, **{f"{name}_tensor": value for name, value in stats.items()}}
    return NormalizeCase(desc, inputs, _activated(exact, relu), allowed)
