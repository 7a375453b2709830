"""The normalizations' builder functions (DirectMLX's dml::BatchNormalization and dml::MeanVarianceNormalization;
``mean_variance_normalization2``; ``local_response_normalization`` and ``lp_normalization`` from the table): one
compiled graph of all five against float64 NumPy within the bounds the operators' own tests state
(tests/device/normalization), and the refusals naming the argument or field."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.normalization.cases import RELU, U, bound
from tests.device.normalization.lrn_cases import ALPHA, BETA, BIAS, lrn_reference
from tests.device.normalization.lrn_cases import bound as lrn_bound

T = dml.TensorDataType
SHAPE = (2, 3, 4, 5)
STATS = (1, 3, 1, 1)


def _check(got: Any, exact: Any, allowed: Any) -> None:
    error = np.abs(np.asarray(got).astype(np.float64) - exact)
    assert np.all(error <= allowed), f"worst {np.max(error - allowed)} over the bound"


@pytest.mark.one_profile
def test_a_graph_of_every_normalization_builder_matches_numpy(device: Any) -> None:
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(SHAPE) * 2 + 3).astype(np.float32)
    mean, scale, bias = (rng.standard_normal(STATS).astype(np.float32) for _ in range(3))
    variance = np.abs(rng.standard_normal(STATS)).astype(np.float32)
    g = dml.Graph(device)
    gx, gm, gv, gs, gb = (g.input(a.shape, T.FLOAT32) for a in (x, mean, variance, scale, bias))
    bn = dml.graph.batch_normalization(gx, gm, gv, gs, gb, True, 1e-3, RELU)
    mvn1 = dml.graph.mean_variance_normalization(gx, gs, gb, [2, 3], True, 1e-4)
    rms = dml.graph.mean_variance_normalization2(gx, None, gb, (3,), False, True, 1e-4)  # bias alone: FL 5_2 on
    lrn = dml.graph.local_response_normalization(gx, True, 3, ALPHA, BETA, BIAS)
    lp = dml.graph.lp_normalization(gx, 3, 1e-5, 2)
    outputs = [bn, mvn1, rms, lrn, lp]
    assert all(e.sizes == SHAPE and e.data_type == T.FLOAT32 for e in outputs)  # packed like x
    got = g.compile(outputs)(x, mean, variance, scale, bias)

    xd, m, v, s, b = (a.astype(np.float64) for a in (x, mean, variance, scale, bias))
    sigma = np.sqrt(v + np.float32(1e-3))
    exact = s * (xd - m) / sigma + b
    _check(got[0], np.maximum(exact, 0), bound(s, xd, m, sigma, b, False))
    center = xd.mean(axis=(2, 3), keepdims=True)
    sigma = np.sqrt(((xd - center) ** 2).mean(axis=(2, 3), keepdims=True) + np.float32(1e-4))
    _check(got[1], s * (xd - center) / sigma + b, bound(s, xd, center, sigma, b, False))
    sigma = np.sqrt((xd**2).mean(axis=3, keepdims=True) + np.float32(1e-4))
    _check(got[2], xd / sigma + b, bound(1.0, xd, 0.0, sigma, b, False))
    exact = lrn_reference(x, True, 3, ALPHA, BETA, BIAS)
    _check(got[3], exact, lrn_bound(exact, BETA, False))
    exact = xd / np.maximum(np.linalg.norm(xd, ord=2, axis=3, keepdims=True), np.float32(1e-5))
    _check(got[4], exact, 4 * U * np.abs(exact))


def test_the_normalization_builders_refuse_bad_arguments_naming_them() -> None:
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x, stats = g.input(SHAPE, T.FLOAT32), g.input(STATS, T.FLOAT32)
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.batch_normalization: variance is "):
        dml.graph.batch_normalization(x, stats, np.ones(STATS), stats, stats, True, 1e-3)  # type: ignore[arg-type]
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.batch_normalization: epsilon is 1e\+300"):
        dml.graph.batch_normalization(x, stats, stats, stats, stats, True, 1e300)
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.mean_variance_normalization: fused_activation"):
        dml.graph.mean_variance_normalization(x, None, None, [3], True, 1e-5, "relu")  # type: ignore[arg-type]
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.mean_variance_normalization: axes is 3; "):
        dml.graph.mean_variance_normalization(x, None, None, 3, True, 1e-5)  # type: ignore[arg-type]
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.mean_variance_normalization2: scale is "):
        dml.graph.mean_variance_normalization2(x, 2.0, None, [3], True, True, 1e-5)  # type: ignore[arg-type]
    with pytest.raises(dml.DmlError, match=r"MEAN_VARIANCE_NORMALIZATION1\.Axes"):
        dml.graph.mean_variance_normalization(x, None, None, [4], True, 1e-5)
    with pytest.raises(dml.DmlError, match=r"BATCH_NORMALIZATION\.MeanTensor"):
        dml.graph.batch_normalization(x, g.input((1, 2, 1, 1), T.FLOAT32), stats, stats, stats, True, 1e-3)
    # DirectML requires ScaleTensor and BiasTensor together below DML_FEATURE_LEVEL_5_2.
    old = dml.Graph(dml.FeatureLevel.FL_5_1)
    with pytest.raises(dml.InvalidArgumentError, match=r"ScaleTensor and BiasTensor must both be given"):
        dml.graph.mean_variance_normalization(
            old.input(SHAPE, T.FLOAT32), None, old.input(STATS, T.FLOAT32), [3], True, 1e-5
        )


@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
def test_batch_normalization_fuses_with_the_element_wise_nodes_around_it(device: Any, data_type: Any) -> None:
    # Pointwise: x + y, the normalization and the Relu run as one kernel, with the same bits as one node at a time.
    dtype = np.float16 if data_type == T.FLOAT16 else np.float32
    rng = np.random.default_rng(7)
    x, y = ((rng.standard_normal(SHAPE) * 2).astype(dtype) for _ in range(2))
    mean, scale, bias = (rng.standard_normal(STATS).astype(dtype) for _ in range(3))
    variance = (np.abs(rng.standard_normal(STATS)) + 0.1).astype(dtype)
    g = dml.Graph(device)
    gx, gy, gm, gv, gs, gb = (g.input(a.shape, data_type) for a in (x, y, mean, variance, scale, bias))
    desc = g.desc_for([dml.graph.activation_relu(dml.graph.batch_normalization(gx + gy, gm, gv, gs, gb, True, 1e-3))])
    fused, separate = device.compile_graph(desc), device.compile_graph(desc, fuse=False)
    assert fused.kernel_count == 1 and separate.kernel_count == 3
    arrays = (x, y, mean, variance, scale, bias)
    got = np.asarray(fused(*arrays))
    assert got.tobytes() == np.asarray(separate(*arrays)).tobytes()
    s, m, v, b = (a.astype(np.float64) for a in (scale, mean, variance, bias))
    summed = (x + y).astype(np.float64)  # the Add node's output, rounded to its type
    sigma = np.sqrt(v + np.float32(1e-3))
    exact = s * (summed - m) / sigma + b
    _check(got, np.maximum(exact, 0), bound(s, summed, m, sigma, b, data_type == T.FLOAT16))
