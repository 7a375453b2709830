"""Run FL 6_3's QUANTIZE / DEQUANTIZE variants on the Oclgrind simulator (run by test_quantize_6_3_oclgrind.py in a
subprocess whose OCL_ICD_VENDORS exposes Oclgrind's ICD; the shared parts are tests/helpers/oclgrind_driver.py).

4-bit inputs and outputs of odd element counts, blocked quantization tensors, a strided 4-bit input, a strided
float input (the walk's nibble pairs) and the fused DEQUANTIZE -> ROUND -> QUANTIZE kernel, each buffer exactly
as large as its binding needs. Results are compared with the oracle (tests/helpers/quantize_6_3.py); the
``OCLGRIND_SUMMARY`` line lists the variants run and the mismatches.

    python oclgrind_quantize_6_3_variants.py [--negative-control] [--launch-profile cpu|gpu]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.helpers.oclgrind_driver import VariantLog, main
from tests.helpers.quantize_6_3 import (
    DTYPES,
    chain,
    dequantize_desc,
    dequantize_reference,
    float32_sweep,
    pack_nibbles,
    quantize_desc,
    quantize_reference,
    quantized_values,
    run_packed_graph,
    run_quantization,
    tensor,
    unpack_nibbles,
)
from tests.helpers.references import round_reference

T = dml.TensorDataType
F32, F16 = np.dtype(np.float32), np.dtype(np.float16)
LOG = VariantLog()


def compare(name: str, got: np.ndarray, want: np.ndarray) -> None:
    got, want = got.reshape(-1), want.reshape(-1)
    if got.dtype.kind == "f":
        got, want = got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}")
    else:
        got, want = got.astype(np.int64), want.astype(np.int64)
    if got.shape != want.shape or (got != want).any():
        LOG.mismatch(f"{name} at {np.flatnonzero(got != want)[:8]}")


def run_one(device: Any, name: str, desc: Any, values: list[np.ndarray], want: np.ndarray) -> None:
    LOG.begin(name)
    run = run_quantization(device, desc, values, slack=0)
    compare(name, run.got, want)
    if run.changed_outside or run.pad_nibble not in (None, 0):
        LOG.mismatch(f"{name}: bytes {run.changed_outside[:8]} changed, pad nibble {run.pad_nibble}")


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng(63)
    for name, real, out, sizes, scale_sizes, zero_point in (
        ("q_f32_int4_3x15_blocks_of_5", T.FLOAT32, T.INT4, (3, 15), (3, 3), True),
        ("q_f16_uint4_6x20_blocked_2_axes_scale_only", T.FLOAT16, T.UINT4, (6, 20), (3, 4), False),
        ("q_f32_uint8_5x7_per_axis", T.FLOAT32, T.UINT8, (5, 7), (5, 1), True),
    ):
        x = float32_sweep(rng, sizes).astype(DTYPES[real])
        scale = rng.uniform(0.1, 3.0, scale_sizes).astype(DTYPES[real])
        zero = quantized_values(rng, out, scale_sizes) if zero_point else None
        desc = quantize_desc(real, out, sizes, scale_sizes, zero_point)
        values = [x, scale] + ([zero] if zero is not None else [])
        run_one(device, name, desc, values, quantize_reference(x, scale, zero, out))

    x, scale, zero = (
        float32_sweep(rng, (3, 7)),
        rng.uniform(0.1, 2.0, (3, 1)).astype(F32),
        quantized_values(rng, T.INT4, (3, 1)),
    )
    desc = dml.QuantizeOperatorDesc(
        InputTensor=tensor(T.FLOAT32, (3, 7), (1, 3)),
        QuantizationType=dml.QuantizationType.SCALE_ZERO_POINT,
        QuantizationTensors=[tensor(T.FLOAT32, (3, 1)), tensor(T.INT4, (3, 1))],
        OutputTensor=tensor(T.INT4, (3, 7)),
    )
    run_one(
        device, "q_f32_int4_3x7_column_major_input", desc, [x, scale, zero], quantize_reference(x, scale, zero, T.INT4)
    )

    for name, quantized, real, sizes, scale_sizes, strides in (
        ("dq_int4_f32_3x15_blocks_of_5", T.INT4, T.FLOAT32, (3, 15), (3, 3), None),
        ("dq_uint4_f16_3x7_rows_padded_to_9", T.UINT4, T.FLOAT16, (3, 7), (3, 1), (9, 1)),
    ):
        x, zero = quantized_values(rng, quantized, sizes), quantized_values(rng, quantized, scale_sizes)
        scale = rng.uniform(0.1, 2.0, scale_sizes).astype(DTYPES[real])
        desc = dequantize_desc(quantized, real, sizes, scale_sizes, True, input_strides=strides)
        run_one(device, name, desc, [x, scale, zero], dequantize_reference(x, scale, zero, quantized, real))

    LOG.begin("fused_dq_int4_round_q_int4_3x15")
    sizes, scale_sizes = (3, 15), (3, 3)
    x, zero = quantized_values(rng, T.INT4, sizes), quantized_values(rng, T.INT4, scale_sizes)
    scale = rng.uniform(0.05, 2.0, scale_sizes).astype(F32)
    rounding = dml.ElementWiseRoundOperatorDesc(
        input_tensor=tensor(T.FLOAT32, sizes), output_tensor=tensor(T.FLOAT32, sizes)
    )
    graph = chain(
        [
            dequantize_desc(T.INT4, T.FLOAT32, sizes, scale_sizes, True),
            rounding,
            quantize_desc(T.FLOAT32, T.INT4, sizes, scale_sizes, True),
        ]
    )
    inputs = [pack_nibbles(x).tobytes(), scale.tobytes(), pack_nibbles(zero).tobytes()]
    output_bytes = dml.calc_buffer_tensor_size(T.INT4, sizes)
    compiled, after = run_packed_graph(device, graph, inputs, output_bytes, fuse=True, slack=0)
    got = unpack_nibbles(after[:23], 45, T.INT4)
    real_values = dequantize_reference(x, scale, zero, T.INT4, T.FLOAT32)
    want = quantize_reference(
        round_reference(real_values, dml.RoundingMode.HALVES_TO_NEAREST_EVEN), scale, zero, T.INT4
    )
    compare("fused_dq_int4_round_q_int4_3x15", got, want)
    if compiled.kernel_count != 1:
        LOG.mismatch(f"fused_dq_int4_round_q_int4_3x15: {compiled.kernel_count} kernels")
    return LOG.summary()


if __name__ == "__main__":
    sys.exit(main(run_all))
