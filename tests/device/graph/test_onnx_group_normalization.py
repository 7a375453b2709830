"""ONNX's GroupNormalization (dmlpy/onnx/normalization.py) as MEAN_VARIANCE_NORMALIZATION1 over a view (N, G,
C / G, S) of X, against a float64 NumPy reference written from ONNX's definition (the statistics of each group of
C / G channels of each batch, then opset 21's scale and bias per channel, opset 18's per group): every type of
MVN1's table (FLOAT32, FLOAT16), X computed by a node and read through a transposed view, between element-wise
nodes, rank 2 to 5; the refusals say why. ONNX's own node tests run in test_onnx_backend.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper  # noqa: E402

import dmlpy.onnx.backend  # noqa: E402
from dmlpy.errors import DmlError  # noqa: E402
from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from dmlpy.ops.mean_variance_normalization import MeanVarianceNormalization1OperatorDesc as MVN1  # noqa: E402
from tests.helpers.onnx_normalization_indexing import NORMALIZED_ULPS  # noqa: E402

BOUNDS = {TensorProto.FLOAT: NORMALIZED_ULPS * 2.0**-23, TensorProto.FLOAT16: 4 * 2.0**-10}
"""Relative and absolute, of a normalized value of order 1: FLOAT32 within the normalizations' 64 float32 ULPs of 1
(tests/helpers/onnx_normalization_indexing.py); FLOAT16 within 4 float16 ULPs of 1 (the statistics in float32, the
result rounded once to float16, the scale and bias products each rounded)."""
NUMPY_TYPES = {TensorProto.FLOAT: np.float32, TensorProto.FLOAT16: np.float16}
RNG = np.random.default_rng(46)


def _reference(x: Any, scale: Any, bias: Any, groups: int, epsilon: float, per_channel: bool) -> Any:
    """ONNX's GroupNormalization in float64."""
    x64 = x.astype(np.float64)
    grouped = x64.reshape(x.shape[0], groups, -1)
    mean = grouped.mean(axis=2, keepdims=True)
    variance = ((grouped - mean) ** 2).mean(axis=2, keepdims=True)
    normalized = ((grouped - mean) / np.sqrt(variance + epsilon)).reshape(x.shape)
    channels = x.shape[1]
    repeat = 1 if per_channel else channels // groups
    along = (1, channels) + (1,) * (x.ndim - 2)
    s = np.repeat(scale.astype(np.float64), repeat).reshape(along)
    b = np.repeat(bias.astype(np.float64), repeat).reshape(along)
    return s * normalized + b


def _model(
    shape: list[int],
    groups: int,
    elem: int = TensorProto.FLOAT,
    opset: int = 21,
    before: Sequence[Any] = (),
    **extra: Any,
) -> Any:
    """GroupNormalization of x (or of t, computed from x by the nodes ``before``), of input shape ``shape``."""
    node = helper.make_node("GroupNormalization", ["t" if before else "x", "s", "b"], ["y"], num_groups=groups, **extra)
    inputs = [helper.make_tensor_value_info(n, elem, shape if n == "x" else ["k"]) for n in ("x", "s", "b")]
    output = helper.make_tensor_value_info("y", elem, ["d"] * len(shape))
    graph = helper.make_graph([*before, node], "g", inputs, [output])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _check(got: Any, want: Any, elem: int) -> None:
    bound = BOUNDS[elem]
    assert got.dtype == NUMPY_TYPES[elem] and got.shape == want.shape
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=bound, atol=bound)


def _arrays(shape: list[int], count: int, dtype: Any) -> list[Any]:
    x = (RNG.standard_normal(shape) * 3 + 1).astype(dtype)
    return [x, RNG.standard_normal(count).astype(dtype), RNG.standard_normal(count).astype(dtype)]


@pytest.mark.one_profile
@pytest.mark.parametrize("elem", [TensorProto.FLOAT, TensorProto.FLOAT16])
@pytest.mark.parametrize(("shape", "groups"), [([2, 6, 3, 4], 3), ([3, 4], 2), ([1, 8, 5], 8), ([2, 4, 2, 3, 2], 1)])
def test_every_type_and_rank_is_the_float64_reference(device: Any, elem: int, shape: list[int], groups: int) -> None:
    assert {TensorProto.FLOAT: "FLOAT32", TensorProto.FLOAT16: "FLOAT16"}[elem] in {
        t.name for t in MVN1.SUPPORT.rows[-1].types_of("InputTensor")
    }
    arrays = _arrays(shape, shape[1], NUMPY_TYPES[elem])
    (got,) = DmlBackend.prepare(_model(shape, groups, elem, epsilon=1e-3), dml_device=device).run(arrays)
    _check(got, _reference(*arrays, groups, float(np.float32(1e-3)), True), elem)


def test_x_computed_and_transposed_between_element_wise_nodes(device: Any) -> None:
    """X is Relu(x) transposed (a strided view, packed for the group view), and the output feeds a Mul: in one
    graph, within the FLOAT32 bound."""
    before = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Transpose", ["r"], ["t"], perm=[0, 3, 1, 2]),
    ]
    model = _model([2, 5, 4, 6], 2, before=before)
    model.graph.node.append(helper.make_node("Mul", ["y", "y"], ["z"]))
    model.graph.output[0].name = "z"
    x = RNG.standard_normal((2, 5, 4, 6)).astype(np.float32)
    scale, bias = RNG.standard_normal(6).astype(np.float32), RNG.standard_normal(6).astype(np.float32)
    (got,) = DmlBackend.prepare(model, dml_device=device).run([x, scale, bias])
    y = _reference(np.maximum(x, 0).transpose(0, 3, 1, 2), scale, bias, 2, 1e-5, True)
    np.testing.assert_allclose(got, y * y, rtol=4 * BOUNDS[TensorProto.FLOAT], atol=4 * BOUNDS[TensorProto.FLOAT])


def test_opset_18_scales_each_group(device: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """GroupNormalization-18 (scale and bias one per group). onnx 1.23's checker refuses it as deprecated, which
    dmlpy's prepare repeats; an older onnx accepts it, so it is lowered and checked here with the checker left out."""
    monkeypatch.setattr(dmlpy.onnx.backend, "check_with_onnx", lambda model: None)
    arrays = _arrays([2, 6, 2, 2], 3, np.float32)
    (got,) = DmlBackend.prepare(_model([2, 6, 2, 2], 3, opset=18), dml_device=device).run(arrays)
    _check(got, _reference(*arrays, 3, float(np.float32(1e-5)), False), TensorProto.FLOAT)


def test_what_group_normalization_cannot_take_is_refused_saying_why(device: Any) -> None:
    with pytest.raises(NodeRefused, match=r"stash_type 10; .*float32, stash_type 1"):
        DmlBackend.prepare(_model([1, 4, 2], 2, stash_type=10), dml_device=device)
    rep = DmlBackend.prepare(_model([1, 6, 2], 4), dml_device=device)
    with pytest.raises(NodeRefused, match="num_groups 4 with 6 channels"):
        rep.run(_arrays([1, 6, 2], 6, np.float32))
    rep = DmlBackend.prepare(_model([1, 6, 2], 3), dml_device=device)
    x, scale, bias = _arrays([1, 6, 2], 6, np.float32)
    with pytest.raises(DmlError, match=r"its scale 's' has shape \[3\]; GroupNormalization-21 takes \[6\]"):
        rep.run([x, scale[:3], bias])
