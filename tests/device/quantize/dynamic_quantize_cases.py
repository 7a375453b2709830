"""DYNAMIC_QUANTIZE_LINEAR's cases: the NumPy reference written from ONNX's definition, the descriptor, the inputs
(test_dynamic_quantize_linear.py and oclgrind_dynamic_quantize_variants.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import dmlpy as dml
from tests.device.movement.cases import padded_strides, tensor

T = dml.TensorDataType
SHAPE = (2, 3, 5, 7)
ROW = dml.DynamicQuantizeLinearOperatorDesc.SUPPORT.rows[-1].data_types
RANGES = {T.UINT8: (0, 255, np.uint8), T.INT8: (-128, 127, np.int8)}


def reference(x: npt.NDArray[Any], output_type: Any) -> tuple[npt.NDArray[Any], np.float32, Any]:
    """ONNX's DynamicQuantizeLinear, in float32 as its definition computes it: the range widened to hold 0, scale
    (max - min) / (qmax - qmin) (1 / (qmax - qmin) where max == min, as onnx.reference and onnxruntime give a
    constant input), zero point saturate(round(qmin - min / scale)), y = saturate(round(x / scale) + zero point),
    rounding halves to even; in the output type's range (ONNX's is UINT8's; INT8's is DirectML's other choice)."""
    qmin, qmax, dtype = RANGES[output_type]
    x = x.astype(np.float32)
    low, high = np.float32(min(x.min(), 0)), np.float32(max(x.max(), 0))
    scale = np.float32(np.float32(1) if high == low else high - low) / np.float32(qmax - qmin)
    zero_point = np.clip(np.rint(np.float32(qmin) - low / scale), qmin, qmax)
    y = np.clip(np.rint(x / scale) + zero_point, qmin, qmax)
    return y.astype(dtype), scale, dtype(zero_point)


def desc_of(input_type: Any, output_type: Any, sizes: tuple[int, ...], strided: bool) -> Any:
    one = (1,) * len(sizes)
    return dml.DynamicQuantizeLinearOperatorDesc(
        input_tensor=tensor(input_type, sizes, padded_strides(sizes, 3) if strided else None),
        output_tensor=tensor(output_type, sizes, padded_strides(sizes, 2) if strided else None),
        output_scale_tensor=tensor(T.FLOAT32, one),
        output_zero_point_tensor=tensor(output_type, one),
    )


def values(input_type: Any, seed: int, shift: float = 0.0) -> npt.NDArray[Any]:
    """SHAPE's normal values, spread by 3 around ``shift``, in the input type."""
    x = np.random.default_rng(seed).standard_normal(SHAPE) * 3 + shift
    return x.astype(np.float16 if input_type == T.FLOAT16 else np.float32)
