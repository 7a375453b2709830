"""A quantized ONNX model's QDQ chain on dmlpy's ONNX backend, checked bit for bit against onnx.reference.

The model is what quantization tools leave around an operator: DequantizeLinear -> Round -> QuantizeLinear on
int8 activations with a per-channel scale (axis 1) and a zero point, the scales and zero points stored as
initializers. It is built with onnx.helper, saved to a file, loaded back and run through ``dmlpy.onnx``, which
compiles it as one DirectML graph; dmlpy fuses the three nodes into one kernel. Run: python examples/onnx_qdq.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import dmlpy.onnx

CHANNELS = 4


def qdq_model() -> onnx.ModelProto:
    """int8 x [2, 4, 8, 8] -> DequantizeLinear (per channel) -> Round -> QuantizeLinear (per channel) -> int8."""
    scale = numpy_helper.from_array(np.array([0.05, 0.1, 0.25, 1.5], np.float32), "scale")
    zero_point = numpy_helper.from_array(np.array([0, -3, 5, 1], np.int8), "zero_point")
    nodes = [
        helper.make_node("DequantizeLinear", ["x", "scale", "zero_point"], ["real"], name="dq", axis=1),
        helper.make_node("Round", ["real"], ["rounded"], name="round"),
        helper.make_node("QuantizeLinear", ["rounded", "scale", "zero_point"], ["y"], name="q", axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "qdq",
        [helper.make_tensor_value_info("x", TensorProto.INT8, [2, CHANNELS, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.INT8, [2, CHANNELS, 8, 8])],
        initializer=[scale, zero_point],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    onnx.checker.check_model(model)
    return model


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "qdq.onnx"
        onnx.save(qdq_model(), path)
        model = onnx.load(path)

    rng = np.random.default_rng(7)
    x = rng.integers(-128, 128, size=(2, CHANNELS, 8, 8), dtype=np.int8)
    x.flat[:4] = [-128, 127, 0, -1]  # the ends of the range saturate

    rep = dmlpy.onnx.prepare(model)
    (got,) = rep.run([x])
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    (compiled,) = rep.compiled_graphs
    print(f"{model.graph.name}: {len(model.graph.node)} ONNX nodes -> {compiled.kernel_count} OpenCL kernel(s)")
    print(f"dmlpy == onnx.reference, bit for bit: {got.tobytes() == expected.tobytes()} ({x.size} elements)")
    return 0 if got.dtype == expected.dtype and got.tobytes() == expected.tobytes() else 1


if __name__ == "__main__":
    sys.exit(main())
