"""BATCH_NORMALIZATION, MEAN_VARIANCE_NORMALIZATION (1, 2) and LP_NORMALIZATION run, against the float64 formula of
docs/operators/normalization.md (NumPy, written here), within the bound that page derives (``bound``): FLOAT32 and
FLOAT16, with and without ScaleTensor and BiasTensor, broadcast statistics, a FusedActivation, several axis sets,
strided tensors, and as graph nodes."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from tests.device.movement.cases import padded_strides, tensor
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
U = 2.0**-24
SHAPE = (2, 3, 4, 5)
RELU = dml.FusedActivation(type="ACTIVATION_RELU", desc={})


def bound(scale: Any, x: Any, center: Any, sigma: Any, bias: Any, half: bool) -> Any:
    """The page's bound on |got - exact|: x - center, scale's product, the division by sqrt(variance + epsilon)
    and the bias each round once (u relative), the center (a mean) and sigma carry a compensated sum's 2u; a
    FLOAT16 output adds its rounding (2^-11 relative)."""
    scaled = np.abs(scale) * (np.abs(x) + np.abs(center)) / sigma
    exact = np.abs(scale * (x - center) / sigma + bias)
    allowed = 8 * U * (scaled + np.abs(bias)) + 4 * U * exact
    return allowed + (2.0**-11 * exact + 2.0**-24 if half else 0.0)


def _values(data_type: Any, sizes: tuple[int, ...], seed: int, offset: float = 0.0) -> npt.NDArray[Any]:
    dtype = np.float16 if data_type == T.FLOAT16 else np.float32
    return (np.random.default_rng(seed).standard_normal(sizes) * 2 + offset).astype(dtype)


def _check(got: Any, expected: Any, allowed: Any) -> None:
    error = np.abs(got.astype(np.float64) - expected)
    assert np.all(error <= allowed), f"worst {np.max(error - allowed)} over the bound"


@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
@pytest.mark.parametrize("fused", [False, True], ids=["plain", "relu"])
def test_batch_normalization(device: Any, data_type: Any, fused: bool) -> None:
    x = _values(data_type, SHAPE, 1)
    stats = {
        name: _values(data_type, (1, 3, 1, 1), k + 2) for k, name in enumerate(("mean", "variance", "scale", "bias"))
    }
    stats["variance"] = np.abs(stats["variance"])
    desc = dml.BatchNormalizationOperatorDesc(
        input_tensor=tensor(data_type, SHAPE, padded_strides(SHAPE, 2)),
        **{f"{name}_tensor": tensor(data_type, (1, 3, 1, 1)) for name in stats},
        output_tensor=tensor(data_type, SHAPE),
        spatial=True,
        epsilon=1e-3,
        fused_activation=RELU if fused else None,
    )
    desc.validate_on(device.feature_level)
    got = run_structured(device, desc, {"input_tensor": x, **{f"{k}_tensor": v for k, v in stats.items()}})
    m, v, s, b = (stats[k].astype(np.float64) for k in ("mean", "variance", "scale", "bias"))
    sigma = np.sqrt(v + np.float32(1e-3))
    exact = s * (x - m) / sigma + b
    allowed = bound(s, x.astype(np.float64), m, sigma, b, data_type == T.FLOAT16)
    _check(got["output_tensor"], np.maximum(exact, 0) if fused else exact, allowed)


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


@pytest.mark.parametrize("form", list(MVN_FORMS))
@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
@pytest.mark.parametrize("parameters", ["scale and bias", "none"])
def test_mean_variance_normalizations(device: Any, form: str, data_type: Any, parameters: str) -> None:
    desc_class, fields, axes, use_mean = MVN_FORMS[form]
    normalize_variance = fields.get("normalize_variance", fields.get("use_variance"))
    x = _values(data_type, SHAPE, 3, offset=20.0)  # a mean far from 0: the one-pass variance would cancel
    broadcast = (1, 1, 4, 5) if form.startswith("MVN1") or form == "MVN2 RMS" else (1, 3, 1, 1)
    given = parameters != "none"
    s, b = _values(data_type, broadcast, 4), _values(data_type, broadcast, 5)
    desc = desc_class(
        input_tensor=tensor(data_type, SHAPE),
        scale_tensor=tensor(data_type, broadcast) if given else None,
        bias_tensor=tensor(data_type, broadcast) if given else None,
        output_tensor=tensor(data_type, SHAPE, padded_strides(SHAPE, 1)),
        epsilon=1e-4,
        fused_activation=RELU,
        **fields,
    )
    desc.validate_on(device.feature_level)
    inputs = {"input_tensor": x} | ({"scale_tensor": s, "bias_tensor": b} if given else {})
    got = run_structured(device, desc, inputs)["output_tensor"]
    xd = x.astype(np.float64)
    center = xd.mean(axis=axes, keepdims=True) if use_mean else 0.0
    sigma = (
        np.sqrt(((xd - center) ** 2).mean(axis=axes, keepdims=True) + np.float32(1e-4)) if normalize_variance else 1.0
    )
    sd, bd = (s.astype(np.float64), b.astype(np.float64)) if given else (1.0, 0.0)
    exact = sd * (xd - center) / sigma + bd
    _check(got, np.maximum(exact, 0), bound(sd, xd, center, sigma, bd, data_type == T.FLOAT16))


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("axis", [0, 3])
def test_lp_normalization(device: Any, p: int, axis: int) -> None:
    x = _values(T.FLOAT32, SHAPE, 6)
    x[0, 0, 0, :] = 0  # a zero norm along axis 3: divided by Epsilon, 0
    desc = dml.LpNormalizationOperatorDesc(
        input_tensor=tensor(T.FLOAT32, SHAPE, padded_strides(SHAPE, 3)),
        output_tensor=tensor(T.FLOAT32, SHAPE),
        axis=axis,
        epsilon=1e-5,
        p=p,
    )
    desc.validate_on(device.feature_level)
    got = run_structured(device, desc, {"input_tensor": x})["output_tensor"]
    norm = np.linalg.norm(x.astype(np.float64), ord=p, axis=axis, keepdims=True)
    exact = x / np.maximum(norm, np.float32(1e-5))
    _check(got, exact, 4 * U * np.abs(exact))


def test_layer_normalization_as_a_graph_node(device: Any) -> None:
    x = _values(T.FLOAT32, SHAPE, 7)
    g = dml.Graph(device)
    gx = g.input(SHAPE, T.FLOAT32)
    normalized = g.add_operator(
        dml.MeanVarianceNormalization1OperatorDesc(
            input_tensor=tensor(T.FLOAT32, SHAPE), output_tensor=tensor(T.FLOAT32, SHAPE), axes=(3,),
            normalize_variance=True, epsilon=1e-5,
        ),
        [gx + 1],
    )  # fmt: skip
    got = np.asarray(g.compile([normalized * 2])(x))
    xd = x.astype(np.float64) + 1
    center = xd.mean(axis=3, keepdims=True)
    sigma = np.sqrt(((xd - center) ** 2).mean(axis=3, keepdims=True) + np.float32(1e-5))
    exact = 2 * (xd - center) / sigma
    _check(got, exact, 2 * bound(1.0, xd, center, sigma, 0.0, False))
