"""QDQ models' DequantizeLinear -> Conv / MatMul -> QuantizeLinear as QUANTIZED_LINEAR_CONVOLUTION and
QUANTIZED_LINEAR_MATRIX_MULTIPLY (dmlpy/onnx/qdq.py), on small models that onnxruntime.quantization.quantize_static
writes (int8 and uint8 activations, weights per channel and per tensor, an INT32 bias): the fused operators appear in
``explain_model``, exactly where onnxruntime's CPU provider fuses them into QLinearConv / QLinearMatMul (its
optimized model says where), and the outputs equal onnxruntime's. The patterns onnxruntime leaves as the float chain
(a quantized value read twice, a bias of another scale, a Conv's result that is a graph output) stay that chain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static  # noqa: E402

import dmlpy.onnx  # noqa: E402
from dmlpy.onnx.explained import explain_model  # noqa: E402
from dmlpy.onnx.initializers import initializer_types  # noqa: E402
from dmlpy.onnx.qdq import fuse_qdq  # noqa: E402

CHANNELS, SIDE = 8, 8
FUSED = {"Conv": "QUANTIZED_LINEAR_CONVOLUTION", "MatMul": "QUANTIZED_LINEAR_MATRIX_MULTIPLY"}


class _Reader(CalibrationDataReader):  # type: ignore[misc]  # onnxruntime's base class is untyped
    def __init__(self, shape: tuple[int, ...]) -> None:
        rng = np.random.default_rng(1)
        self.feeds = iter([{"x": rng.normal(size=shape).astype(np.float32)} for _ in range(4)])

    def get_next(self) -> dict[str, Any] | None:
        return next(self.feeds, None)


def _conv(nodes: list[Any], weights: list[Any], x: str, y: str, name: str, rng: Any) -> None:
    weights.append(
        numpy_helper.from_array(rng.normal(0, 0.3, (CHANNELS, CHANNELS, 3, 3)).astype(np.float32), f"{name}.w")
    )
    weights.append(numpy_helper.from_array(rng.normal(0, 0.3, (CHANNELS,)).astype(np.float32), f"{name}.b"))
    nodes.append(helper.make_node("Conv", [x, f"{name}.w", f"{name}.b"], [y], pads=[1, 1, 1, 1], name=name))


def _float_model(kind: str) -> tuple[Any, tuple[int, ...]]:
    """A float model: ``conv`` two Convs with a Relu between, ``silu`` a Conv read twice (Sigmoid and Mul, as
    YOLOv8's SiLU) then a Conv, ``matmul`` x @ W then Sigmoid."""
    rng = np.random.default_rng(0)
    nodes: list[Any] = []
    weights: list[Any] = []
    shape: tuple[int, ...] = (1, CHANNELS, SIDE, SIDE)
    if kind == "matmul":
        shape = (2, 16, 32)
        weights.append(numpy_helper.from_array(rng.normal(0, 0.3, (32, 24)).astype(np.float32), "w"))
        nodes += [helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"), helper.make_node("Sigmoid", ["m"], ["y"])]
    else:
        _conv(nodes, weights, "x", "c", "conv1", rng)
        if kind == "silu":
            nodes += [helper.make_node("Sigmoid", ["c"], ["s"]), helper.make_node("Mul", ["c", "s"], ["a"])]
        else:
            nodes.append(helper.make_node("Relu", ["c"], ["a"]))
        _conv(nodes, weights, "a", "y", "conv2", rng)
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        weights,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), shape


def _quantized(
    tmp_path: Path, kind: str, activations: Any, weights: Any, per_channel: bool
) -> tuple[Path, tuple[int, ...]]:
    model, shape = _float_model(kind)
    source, target = tmp_path / f"{kind}.onnx", tmp_path / f"{kind}-qdq.onnx"
    onnx.save(model, source)
    quantize_static(
        str(source),
        str(target),
        _Reader(shape),
        quant_format=QuantFormat.QDQ,
        per_channel=per_channel,
        activation_type=activations,
        weight_type=weights,
    )
    return target, shape


def _onnxruntime(path: Path, x: Any, tmp_path: Path) -> tuple[Any, list[str]]:
    """onnxruntime's output with its default optimizations, and the QLinear op types of its optimized model."""
    options = ort.SessionOptions()
    options.optimized_model_filepath = str(tmp_path / "optimized.onnx")
    options.log_severity_level = 3
    (y,) = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"]).run(None, {"x": x})
    optimized = onnx.load(options.optimized_model_filepath)
    return y, sorted(node.op_type for node in optimized.graph.node if node.op_type in ("QLinearConv", "QLinearMatMul"))


@pytest.mark.one_profile
@pytest.mark.parametrize(
    ("kind", "activations", "weights", "per_channel", "fused"),
    [
        ("conv", QuantType.QInt8, QuantType.QInt8, True, 2),
        ("conv", QuantType.QUInt8, QuantType.QInt8, False, 2),
        ("silu", QuantType.QInt8, QuantType.QInt8, True, 1),
        ("matmul", QuantType.QInt8, QuantType.QInt8, False, 1),
        ("matmul", QuantType.QUInt8, QuantType.QInt8, True, 1),
    ],
    ids=[
        "conv int8 per channel",
        "conv uint8 per tensor",
        "silu int8: the first conv left",
        "matmul int8",
        "matmul uint8 per column",
    ],
)
def test_quantized_models_fuse_where_onnxruntime_does_and_match_it(
    device: Any, tmp_path: Path, kind: str, activations: Any, weights: Any, per_channel: bool, fused: int
) -> None:
    path, shape = _quantized(tmp_path, kind, activations, weights, per_channel)
    x = np.random.default_rng(2).normal(size=shape).astype(np.float32)
    want, theirs = _onnxruntime(path, x, tmp_path)
    rep = dmlpy.onnx.prepare(str(path), dml_device=device)
    op_type = "MatMul" if kind == "matmul" else "Conv"
    assert explain_model(rep).operators[FUSED[op_type]] == theirs.count(f"QLinear{op_type}") == fused
    (got,) = rep.run({"x": x})
    np.testing.assert_array_equal(got, want)


def _fused(graph: Any) -> list[str]:
    return [node.name for node in fuse_qdq(graph, initializer_types(graph)).node if node.op_type == "QLinearConv"]


def test_the_float_chain_stays_where_the_fused_form_would_mean_otherwise(tmp_path: Path) -> None:
    """A Conv whose result is a graph output too, a bias whose scale is not x_scale * w_scale, UINT8 weights with
    INT8 activations, and a scale that is a graph input too are left."""
    path, _ = _quantized(tmp_path, "conv", QuantType.QInt8, QuantType.QInt8, True)
    assert _fused(onnx.load(path).graph) == ["conv1_quantized", "conv2_quantized"]
    as_output = onnx.load(path).graph
    as_output.output.append(helper.make_tensor_value_info("a", TensorProto.FLOAT, None))  # conv1's (Relu folded)
    assert _fused(as_output) == ["conv2_quantized"]
    other_bias = onnx.load(path).graph
    scale = next(t for t in other_bias.initializer if t.name.startswith("conv1.b") and t.name.endswith("scale"))
    scale.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(scale) * np.float32(1.5), scale.name))
    assert _fused(other_bias) == ["conv2_quantized"]
    unsigned = onnx.load(path).graph  # INT8 activations with UINT8 weights: onnxruntime keeps the float chain
    for tensor in unsigned.initializer:
        if tensor.name.startswith("conv1.w") and tensor.data_type == TensorProto.INT8:
            shifted = (numpy_helper.to_array(tensor).astype(np.int16) + 128).astype(np.uint8)
            tensor.CopyFrom(numpy_helper.from_array(shifted, tensor.name))
    assert _fused(unsigned) == ["conv2_quantized"]
    replaceable = onnx.load(path).graph  # x's scale a graph input too: the caller may give another
    replaceable.input.append(helper.make_tensor_value_info("x_scale", TensorProto.FLOAT, []))
    assert _fused(replaceable) == ["conv2_quantized"]
