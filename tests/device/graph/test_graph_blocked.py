"""Blocked quantization in a dml.Graph, as DirectML graphs express it: x described split, (blocks, block) per
blocked axis (the same bytes as the unsplit array), the scale and zero point NumPy arrays with 1 along each
block (constant nodes, 0 Strides there). A DequantizeLinear -> Round -> QuantizeLinear chain fuses into one
kernel, bit-identical to the nodes one by one and to the exact oracle (quantize_oracle) given the scales
repeated over their blocks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers import quantize_oracle as oracle
from tests.helpers.object_model import run_graph as run

T = dml.TensorDataType


@pytest.mark.parametrize("data", [T.INT8, T.UINT8], ids=["int8", "uint8"])
@pytest.mark.parametrize("real", [T.FLOAT32, T.FLOAT16], ids=["float32", "float16"])
def test_blocked_dequantize_round_quantize_fuses_and_equals_the_oracle(device: Any, data: T, real: T) -> None:
    data_type = np.dtype(np.int8 if data == T.INT8 else np.uint8)
    real_type = np.dtype(np.float32 if real == T.FLOAT32 else np.float16)
    rng = np.random.default_rng(3)
    x = rng.integers(np.iinfo(data_type).min, np.iinfo(data_type).max, (6, 32), endpoint=True).astype(data_type)
    scale = rng.uniform(0.05, 3.0, (3, 4)).astype(real_type)  # blocks of 2 rows x 8 columns
    zero = rng.integers(-5, 5, (3, 4)).astype(data_type) if data == T.INT8 else rng.integers(100, 150, (3, 4))
    zero = zero.astype(data_type)
    g = dml.Graph(device)
    xi = g.input(dml.BufferTensorDesc(data_type=data, sizes=(3, 2, 4, 8)))  # (6, 32) split along both axes
    s, z = scale.reshape(3, 1, 4, 1), zero.reshape(3, 1, 4, 1)
    y = dml.graph.quantize_linear(dml.graph.round(dml.graph.dequantize_linear(xi, s, z)), s, z)
    (fused,), compiled = run(device, g.desc_for([y]), [x])
    (separate,), _ = run(device, g.desc_for([y]), [x], fuse=False)
    assert compiled.kernel_count == 1
    assert fused.tobytes() == separate.tobytes()
    scales = np.repeat(np.repeat(scale, 2, 0), 8, 1)
    zeros = np.repeat(np.repeat(zero, 2, 0), 8, 1)
    real_values = oracle.dequantize(x, scales, zeros)
    expected = oracle.quantize(np.rint(real_values), scales, zeros, out_dtype=data_type)
    assert fused.reshape(6, 32).tobytes() == expected.tobytes()
