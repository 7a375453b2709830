"""ONNX's node tests of the convolutions (dmlpy.onnx.convolution: Conv, ConvTranspose, ConvInteger, QLinearConv):
every one the installed onnx ships runs as shipped, and the runner's tolerance for the float ones is twice
CONVOLUTION's stated bound (docs/operators/convolution.md: gamma_(K+1) (sum |x||w| + |b|), K the products one output
element sums) evaluated on the case's own inputs: ONNX's expected outputs are NumPy's float32 results, which lie
within the same bound of the exact value. The integer ones are compared exactly."""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx.reference import ReferenceEvaluator

from tests.helpers.onnx_compute import gamma

CONVOLUTION_TEST_NAMES = ("basic_conv_with_padding", "basic_conv_without_padding")
"""The node tests of Conv whose names do not begin with an op type's (test_basic_conv_...)."""
CONVOLUTION_RUNS = (
    *CONVOLUTION_TEST_NAMES,
    *(f"conv_with_{form}" for form in ("strides_padding", "strides_no_padding", "strides_and_asymmetric_padding")),
    "conv_with_autopad_same",
    "convtranspose",
    *(f"convtranspose_{form}" for form in ("1d", "3d", "output_shape", "pad", "kernel_shape", "pads", "dilations")),
    *(f"convtranspose_{form}" for form in ("autopad_same", "group_2", "group_2_image_3")),
    "convinteger_without_padding",
    "convinteger_with_padding",
    "qlinearconv",
)
"""The convolutions' node tests, all of which run as shipped."""
FLOAT_OPS = ("Conv", "ConvTranspose")


def convolution_bound(model: Any, inputs: list[Any]) -> Any:
    """CONVOLUTION's bound per output element, gamma_(K+1) (sum |x||w| + |b|): the magnitude is the same node's
    result on |X|, |W| and |B| in float64 (onnx.reference), K the input channels per group times W's spatial
    elements."""
    (node,) = model.graph.node
    w = np.asarray(inputs[1])
    group = next((attribute.i for attribute in node.attribute if attribute.name == "group"), 1)
    channels = w.shape[0] // group if node.op_type == "ConvTranspose" else w.shape[1]
    k = channels * int(np.prod(w.shape[2:]))
    magnitudes = [np.abs(np.asarray(value, np.float64)) for value in inputs]
    (magnitude,) = ReferenceEvaluator(model).run(None, dict(zip(node.input, magnitudes, strict=False)))
    return gamma(k + 1) * np.asarray(magnitude, np.float64)


def convolution_tolerance(model: Any, inputs: list[Any]) -> dict[str, float] | None:
    """The runner's tolerance of a Conv or ConvTranspose node test: atol twice the bound, largest over the output
    (rtol 0); None for the others (exact: the integer convolutions, every other op type)."""
    if len(model.graph.node) != 1 or model.graph.node[0].op_type not in FLOAT_OPS:
        return None
    return {"rtol": 0.0, "atol": 2 * float(np.max(convolution_bound(model, inputs)))}
