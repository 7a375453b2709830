"""Run QuantizeLinear / DequantizeLinear variants on the Oclgrind simulator (run by test_quantize_oclgrind.py in a
subprocess whose OCL_ICD_VENDORS exposes Oclgrind's ICD; the shared parts are tests/helpers/oclgrind_driver.py).

Values on finite inputs are compared with the oracle; the ``OCLGRIND_SUMMARY`` line lists the variants run
and the mismatches. NaN inputs are exercised but not compared: Oclgrind's convert_char_sat
turns NaN into -128 where the OpenCL specification (and PoCL) give 0.

    python oclgrind_quantize_variants.py [--negative-control]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.helpers import quantize_oracle as oracle
from tests.helpers.dtypes import INTEGER_DTYPES_32 as INTEGERS
from tests.helpers.object_model import compile_and_initialize, dispatch
from tests.helpers.oclgrind_driver import VariantLog, main

U8, I8, F32, F16 = (np.dtype(t) for t in (np.uint8, np.int8, np.float32, np.float16))


LOG = VariantLog()
begin = LOG.begin


def compare(name: str, got: np.ndarray, want: np.ndarray, keep: np.ndarray | None = None) -> None:
    got, want = got.reshape(-1), want.reshape(-1)
    if got.dtype.kind == "f":
        got, want = got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}")
    wrong = got != want
    if keep is not None:
        wrong &= keep.reshape(-1)
    if got.shape != want.shape or wrong.any():
        LOG.mismatch(f"{name} at {np.flatnonzero(wrong)[:8]}")


def float_input(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    n = int(np.prod(shape))
    x = np.where(rng.random(n) < 0.5, rng.integers(-600, 600, n) / 4, rng.uniform(-300, 300, n)).astype(dtype)
    specials = np.array([np.nan, np.inf, -np.inf, 255.5, -128.5], dtype)
    x[: min(n, specials.size)] = specials[: min(n, specials.size)]
    return x.reshape(shape)


def blocked_repeat(parameter: np.ndarray, shape: tuple[int, ...], block_size: int | None) -> np.ndarray:
    """A blocked scale or zero point repeated over its blocks (the last one cut, ONNX's partial block)."""
    for axis, (length, count) in enumerate(zip(shape, parameter.shape, strict=True)):
        if count != length:
            repeats = block_size if block_size is not None else length // count
            parameter = np.repeat(parameter, repeats, axis=axis).take(range(length), axis=axis)
    return parameter


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any]:
    ext_device = dml.create_device(
        cl_device=device.cl_device, extensions=True, launch_profile=device.launch_profile.name
    )
    rng = np.random.default_rng(0)

    # QuantizeLinear: (name, input dtype, shape, axis, output dtype, zero point?, mode)
    quantize_variants = [
        ("q_f32_u8_size1", F32, (1,), None, U8, True, None),
        ("q_f32_u8_size3", F32, (3,), None, U8, True, None),
        ("q_f32_i8_size17", F32, (17,), None, I8, True, None),
        ("q_f32_i8_size33_nullzp", F32, (33,), None, I8, False, None),
        ("q_f32_u8_axis1_2x3x5", F32, (2, 3, 5), 1, U8, True, None),
        ("q_f32_i8_axis-1_3x7_nullzp", F32, (3, 7), -1, I8, False, None),
        ("q_f16_i8_size19", F16, (19,), None, I8, True, None),
        ("q_f16_u8_axis0_5x3_nullzp", F16, (5, 3), 0, U8, False, None),
        ("q_i32_u8_axis0_5x3", np.dtype(np.int32), (5, 3), 0, U8, True, None),
        ("q_ext_round_up_size7", F32, (7,), None, U8, True, "ROUND_UP"),
        ("q_ext_nearest_downward_axis1_2x5", F32, (2, 5), 1, I8, True, "ROUND_NEAREST_DOWNWARD"),
    ]
    for name, in_dtype, shape, axis, out_dtype, with_zp, mode in quantize_variants:
        begin(name)
        x = (
            rng.integers(-3000, 3000, shape).astype(in_dtype)
            if in_dtype.kind == "i"
            else float_input(rng, shape, in_dtype)
        )
        n = 1 if axis is None else shape[axis]
        scale_dtype = F32 if in_dtype.kind == "i" else in_dtype
        scale = rng.uniform(0.1, 3.0, n).astype(scale_dtype)
        zp = rng.integers(*oracle.INTEGER_RANGES[out_dtype], n).astype(out_dtype) if with_zp else None
        if axis is None:
            scale = scale.reshape(())
            zp = zp.reshape(()) if zp is not None else None
        extra = {"mode": mode, "device": ext_device} if mode else {"device": device}
        got = dml.quantize_linear(x, scale, zp, axis=axis, dtype=out_dtype, **extra)
        want = oracle.quantize(
            x,
            scale,
            zp,
            axis=axis,
            out_dtype=out_dtype,
            mode=mode.removeprefix("ROUND_") if mode else "NEAREST_TOWARD_EVEN",
        )
        keep = ~np.isnan(x) if x.dtype.kind == "f" else None
        compare(name, got, want, keep)

    for in_dtype in INTEGERS:
        for scale_dtype, shape, axis, with_zp in (
            (F32, (13,), None, True),
            (F16, (3, 7), 1, True),
            (F32, (5,), 0, False),
        ):
            name = f"dq_{in_dtype.name}_{scale_dtype.name}_{'x'.join(map(str, shape))}{'' if with_zp else '_nullzp'}"
            begin(name)
            low, high = oracle.INTEGER_RANGES[in_dtype]
            low, high = max(low, -(2**12)), min(high, 2**12)
            x = rng.integers(low, high, shape, endpoint=True).astype(in_dtype)
            n = 1 if axis is None else shape[axis]
            scale = rng.uniform(0.01, 2.0, n).astype(scale_dtype)
            zp = rng.integers(low, high, n, endpoint=True).astype(in_dtype) if with_zp else None
            if axis is None:
                scale = scale.reshape(())
                zp = zp.reshape(()) if zp is not None else None
            got = dml.dequantize_linear(x, scale, zp, axis=axis, device=device)
            compare(name, got, oracle.dequantize(x, scale, zp, axis=axis))

    # Blocked (dmlpy.quantization_blocks): x and the output viewed split, the scale broadcast over each block by a
    # 0 stride; ONNX's partial last block a second dispatch.
    for name, shape, scale_shape, block_size in (
        ("q_blocked_onnx_partial_3x10", (3, 10), (3, 3), 4),
        ("q_blocked_webnn_two_axes_4x6", (4, 6), (2, 3), None),
    ):
        begin(name)
        x = float_input(rng, shape, F32)
        scale = rng.uniform(0.1, 3.0, scale_shape).astype(F32)
        zp = rng.integers(-128, 128, scale_shape).astype(I8)
        axis = None if block_size is None else 1
        got = dml.quantize_linear(x, scale, zp, axis=axis, block_size=block_size, device=device)
        scales, zps = blocked_repeat(scale, shape, block_size), blocked_repeat(zp, shape, block_size)
        compare(name, got, oracle.quantize(x, scales, zps, out_dtype=I8), ~np.isnan(x))
        name = name.replace("q_", "dq_", 1)
        begin(name)
        got = dml.dequantize_linear(got, scale.astype(F16), zp, axis=axis, block_size=block_size, device=device)
        want = oracle.dequantize(oracle.quantize(x, scales, zps, out_dtype=I8), scales.astype(F16), zps)
        compare(name, got, want, ~np.isnan(x))

    # The object model with buffer offsets, a null ZeroPointTensor bound to None and a padded output.
    begin("om_quantize_offsets_nullzp_padded_output")
    T = dml.TensorDataType
    sizes = (2, 3, 5)
    in_desc = dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=sizes)
    scale_desc = dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=sizes, strides=(0, 1, 0))
    out_desc = dml.BufferTensorDesc(data_type=T.INT8, sizes=sizes, strides=(18, 6, 1))
    desc = dml.ElementWiseQuantizeLinearOperatorDesc(
        input_tensor=in_desc, scale_tensor=scale_desc, output_tensor=out_desc
    )
    compiled = compile_and_initialize(device, desc)
    x = float_input(rng, sizes, F32)
    scale = rng.uniform(0.1, 2, 3).astype(F32)
    in_buffer = device.create_buffer(16 + in_desc.total_tensor_size_in_bytes)
    in_buffer.write(x, 16)
    scale_buffer = device.create_buffer(32 + scale_desc.total_tensor_size_in_bytes)
    scale_buffer.write(scale, 32)
    out_buffer = device.create_buffer(48 + out_desc.total_tensor_size_in_bytes)
    inputs = [
        dml.BufferBinding(in_buffer, 16, in_desc.total_tensor_size_in_bytes),
        dml.BufferBinding(scale_buffer, 32, scale_desc.total_tensor_size_in_bytes),
        None,
    ]
    dispatch(device, compiled, inputs, [dml.BufferBinding(out_buffer, 48, out_desc.total_tensor_size_in_bytes)])
    raw = out_buffer.read(np.int8, out_desc.total_tensor_size_in_bytes, 48)
    got = np.lib.stride_tricks.as_strided(raw, shape=sizes, strides=(18, 6, 1)).copy()
    compare(
        "om_quantize_offsets_nullzp_padded_output",
        got,
        oracle.quantize(x, scale, None, axis=1, out_dtype=I8),
        ~np.isnan(x),
    )

    return LOG.summary()


if __name__ == "__main__":
    sys.exit(main(run_all))
