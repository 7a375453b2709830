"""Run DMLPY_EXT_ELEMENT_WISE_ROUND's kernel variants (opencl/ext_round.cl) on Oclgrind's simulated device.

Started by test_oclgrind_ext.py in a subprocess whose environment makes Oclgrind an OpenCL platform and turns
its checks on (reports go to OCLGRIND_LOG). Each variant runs through the object model with buffers exactly
as large as the binding needs (offset + TotalTensorSizeInBytes), so an access past a tensor is an access past
its buffer, which Oclgrind reports. Results are compared with the bit oracle (oracle.py, next to this file).
Prints one line ``OCLGRIND_SUMMARY {json}``.

    python oclgrind_ext_variants.py [--negative-control]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import ml_dtypes
import numpy as np
import pyopencl as cl
from oracle import format_of, mismatches, round_values  # the script's folder is on sys.path

import dmlpy as dml
from dmlpy.extensions import ExtRoundingMode, ExtTensorDataType
from dmlpy.extensions.operators import ExtElementWiseRoundOperatorDesc

STORAGE = {
    "float32": (dml.TensorDataType.FLOAT32, np.dtype(np.float32)),
    "float16": (dml.TensorDataType.FLOAT16, np.dtype(np.float16)),
    "float64": (dml.TensorDataType.FLOAT64, np.dtype(np.float64)),
    "bfloat16": (ExtTensorDataType.BFLOAT16, np.dtype(ml_dtypes.bfloat16)),
    "int8": (dml.TensorDataType.INT8, np.dtype(np.int8)),
    "int32": (dml.TensorDataType.INT32, np.dtype(np.int32)),
    "uint64": (dml.TensorDataType.UINT64, np.dtype(np.uint64)),
}
FLOAT_MODES = ("NEAREST_TOWARD_EVEN", "NEAREST_UPWARD", "NEAREST_DOWNWARD", "TOWARD_INFINITY", "DOWN")
INTEGER_MODES = ("NEAREST_TOWARD_ZERO",)


def packed(sizes: tuple[int, ...]) -> tuple[int, ...]:
    strides = [1] * len(sizes)
    for d in range(len(sizes) - 2, -1, -1):
        strides[d] = strides[d + 1] * sizes[d + 1]
    return tuple(strides)


def padded(sizes: tuple[int, ...], pad: int = 1) -> tuple[int, ...]:
    strides = [1] * len(sizes)
    for d in range(len(sizes) - 2, -1, -1):
        strides[d] = strides[d + 1] * sizes[d + 1] + pad
    return tuple(strides)


def reversed_layout(sizes: tuple[int, ...]) -> tuple[int, ...]:
    """Column-major strides: the first dimension fastest."""
    strides, reach = [0] * len(sizes), 1
    for d in range(len(sizes)):
        strides[d] = reach
        reach *= sizes[d]
    return tuple(strides)


def layouts() -> list[dict[str, Any]]:
    """Odd tiny packed counts (below, at and past one work-item's 16 elements), strided, broadcast, permuted,
    in place and binding offsets; ranks 1 to 8."""
    cases: list[dict[str, Any]] = []
    for count in (1, 3, 17):
        cases.append({"sizes": (count,), "in": None, "out": None, "in_off": 0, "out_off": 16, "in_place": False})
    s3 = (2, 3, 5)
    cases.append(
        {"sizes": s3, "in": padded(s3, 2), "out": padded(s3, 1), "in_off": 32, "out_off": 16, "in_place": False}
    )
    cases.append({"sizes": (3, 7), "in": (0, 1), "out": None, "in_off": 0, "out_off": 0, "in_place": False})
    cases.append({"sizes": (5, 3), "in": (1, 0), "out": reversed_layout((5, 3)), "in_off": 16, "out_off": 0,
                  "in_place": False})  # fmt: skip
    s4 = (2, 1, 3, 3)
    cases.append({"sizes": s4, "in": padded(s4), "out": padded(s4), "in_off": 16, "out_off": 16, "in_place": True})
    s8 = (2, 2, 2, 2, 2, 2, 2, 3)
    cases.append({"sizes": s8, "in": None, "out": reversed_layout(s8), "in_off": 0, "out_off": 48, "in_place": False})
    return cases


def values_for(dtype: np.dtype[Any], count: int, rng: np.random.Generator) -> np.ndarray:
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(int(info.min), int(info.max), count, dtype=dtype, endpoint=True)
    values = (rng.integers(-40, 41, count) / 4.0).astype(dtype)
    fmt = format_of(dtype)
    specials = np.array(
        [0, fmt.sign_bit, fmt.exponent_mask << fmt.mantissa_bits, (fmt.exponent_mask << fmt.mantissa_bits) | 1, 1],
        dtype=np.uint64,
    ).astype(fmt.bits_dtype)
    picks = rng.random(count) < 0.25
    values.view(fmt.bits_dtype)[picks] = specials[rng.integers(0, specials.size, int(picks.sum()))]
    return values


def run_variant(
    device: Any, storage: str, mode: str, case: dict[str, Any], rng: np.random.Generator
) -> tuple[Any, int]:
    data_type, dtype = STORAGE[storage]
    in_desc = dml.BufferTensorDesc(data_type=data_type, sizes=case["sizes"], strides=case["in"])
    out_desc = dml.BufferTensorDesc(data_type=data_type, sizes=case["sizes"], strides=case["out"])
    desc = ExtElementWiseRoundOperatorDesc(
        input_tensor=in_desc, output_tensor=out_desc, rounding_mode=ExtRoundingMode[mode]
    )
    compiled = device.compile_operator(device.create_operator(desc))
    recorder = device.create_command_recorder()
    initializer = device.create_operator_initializer([compiled])
    recorder.record_dispatch(device.queue, initializer, device.create_binding_table(initializer)).wait()

    in_total, out_total = in_desc.total_tensor_size_in_bytes, out_desc.total_tensor_size_in_bytes
    values = values_for(dtype, in_total // dtype.itemsize, rng)
    host = np.zeros(case["in_off"] + in_total, np.uint8)
    host[case["in_off"] : case["in_off"] + values.nbytes] = values.view(np.uint8)
    source = device.upload(host)
    if case["in_place"]:
        target, out_off = source, case["in_off"]
    else:
        target, out_off = device.create_buffer(case["out_off"] + out_total), case["out_off"]
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(source, case["in_off"], in_total)])
    table.bind_outputs([dml.BufferBinding(target, out_off, out_total)])
    recorder.record_dispatch(device.queue, compiled, table).wait()

    grid = np.indices(case["sizes"]).reshape(len(case["sizes"]), -1)
    in_index = (np.asarray(in_desc.effective_strides)[:, None] * grid).sum(axis=0)
    out_index = (np.asarray(out_desc.effective_strides)[:, None] * grid).sum(axis=0)
    x = host[case["in_off"] :].view(dtype)[in_index]
    got = target.read(np.uint8, target.size)[out_off:].view(dtype)[out_index]
    wrong = int(np.count_nonzero(got != x)) if dtype.kind in "iu" else int(mismatches(got, round_values(x, mode)).size)
    return compiled.lowered.kernel, wrong


NEGATIVE_CONTROL = """
__kernel void broken(__global const float *input, __global float *output)
{
    const size_t i = get_global_id(0);
    output[i + 1] = input[i + 1];   /* the last work-item reads and writes one past the end */
}
"""


def negative_control(device: Any) -> None:
    program = cl.Program(device.context, NEGATIVE_CONTROL).build()
    flags = cl.mem_flags
    source = cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=np.ones(4, np.float32))
    target = cl.Buffer(device.context, flags.READ_WRITE, 16)
    program.broken(device.queue, (4,), None, source, target)
    device.queue.finish()
    print("OCLGRIND_SUMMARY " + json.dumps({"negative_control": True}), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--negative-control", action="store_true", help="run a kernel with a known defect")
    args = parser.parse_args()
    platforms = [p for p in cl.get_platforms() if p.name == "Oclgrind"]
    if not platforms:
        print("no Oclgrind platform; set OCL_ICD_VENDORS to a folder with oclgrind.icd", file=sys.stderr)
        return 3
    device = dml.create_device(cl_device=platforms[0].get_devices()[0], extensions=True)
    if args.negative_control:
        negative_control(device)
        return 0
    rng = np.random.default_rng(0)
    specs: set[Any] = set()
    runs, wrong = 0, 0
    failures: list[str] = []
    for storage, (_, dtype) in STORAGE.items():
        for mode in INTEGER_MODES if dtype.kind in "iu" else FLOAT_MODES:
            for case in layouts():
                spec, bad = run_variant(device, storage, mode, case, rng)
                specs.add(spec)
                runs += 1
                wrong += bad
                if bad:
                    failures.append(f"{storage} {mode} {case}: {bad} wrong")
    summary = {
        "variants": runs,
        "kernel_specs": len(specs),
        "specs": sorted(" ".join(f"{k}={v}" for k, v in spec.defines) for spec in specs),
        "wrong": wrong,
        "failures": failures[:10],
    }
    print("OCLGRIND_SUMMARY " + json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
