"""int8 versions of the catalogue's float models, made by onnxruntime's own quantizer (as a user makes them):
``quantize_static`` in QDQ form (QuantizeLinear/DequantizeLinear pairs around float operators, weights per channel,
activations per tensor, calibrated on a few of the model's own inputs) and ``quantize_dynamic`` (weights int8,
activations quantized at run time: DynamicQuantizeLinear and MatMulInteger). The int4 blocked versions need
onnx_ir, so they are made under the builder Python (builders.py int4)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

CALIBRATION_INPUTS = 4
"""Calibration runs per model: enough for the ranges of random inputs, cheap on two shared cores."""

Inputs = Callable[[np.random.Generator], dict[str, np.ndarray[Any, Any]]]


def qdq_static(source: Path, inputs: Inputs, out: Path) -> None:
    """``source`` quantized by ``quantize_static`` in QDQ form, int8 weights per channel and int8 activations."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class Reader(CalibrationDataReader):  # type: ignore[misc]  # onnxruntime's base class is untyped
        def __init__(self) -> None:
            rng = np.random.default_rng(1)
            self.feeds: Iterator[dict[str, np.ndarray[Any, Any]]] = iter(
                [inputs(rng) for _ in range(CALIBRATION_INPUTS)]
            )

        def get_next(self) -> dict[str, np.ndarray[Any, Any]] | None:
            return next(self.feeds, None)

    quantize_static(
        str(source),
        str(out),
        Reader(),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QInt8,
        weight_type=QuantType.QInt8,
    )


def dynamic(source: Path, out: Path) -> None:
    """``source`` quantized by ``quantize_dynamic``: int8 weights, activations quantized as the model runs."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(source), str(out), weight_type=QuantType.QInt8)
