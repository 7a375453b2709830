"""Run every kernel variant dmlpy generates for ELEMENT_WISE_ROUND on Oclgrind's simulated device.

Started by test_oclgrind.py in a subprocess whose environment makes Oclgrind the only OpenCL platform and turns
its checks on; Oclgrind writes its reports to the file named by OCLGRIND_LOG. Each variant runs through the
object model with buffers exactly as large as the binding needs (offset + TotalTensorSizeInBytes), so any
access past a tensor is an access past its buffer, which Oclgrind reports. Prints one JSON line:
``OCLGRIND_SUMMARY {...}`` with the variants run, the kernel specs covered and any wrong results.

    python oclgrind_variants.py [--dml-round]    # --dml-round: also dml.round on NumPy views (host pointers)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np
import pyopencl as cl

import dmlpy as dml
from dmlpy.modes import resolve_mode
from dmlpy.ops.element_wise_round import ELEMENTS_PER_ITEM, VECTOR_WIDTH

MODES = list(dml.RoundingMode)
DTYPES = {dml.TensorDataType.FLOAT32: np.float32, dml.TensorDataType.FLOAT16: np.float16}


def expected_round(x: np.ndarray, mode: dml.RoundingMode) -> np.ndarray:
    a = x.astype(np.float64)
    if mode == dml.RoundingMode.HALVES_TO_NEAREST_EVEN:
        r = np.rint(a)
    elif mode == dml.RoundingMode.TOWARD_ZERO:
        r = np.trunc(a)
    else:
        r = np.copysign(np.floor(np.abs(a) + 0.5), a)  # exact in float64 for float32/float16 inputs
    return r.astype(x.dtype)


def packed(sizes: tuple[int, ...]) -> tuple[int, ...]:
    strides = [1] * len(sizes)
    for d in range(len(sizes) - 2, -1, -1):
        strides[d] = strides[d + 1] * sizes[d + 1]
    return tuple(strides)


def padded(sizes: tuple[int, ...], pad: int = 1, order: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """Strides with ``pad`` unused elements after every dimension (innermost last in ``order``)."""
    order = order if order is not None else tuple(range(len(sizes)))
    strides = [0] * len(sizes)
    reach = 1
    for d in reversed(order):
        strides[d] = reach + pad
        reach += (sizes[d] - 1) * strides[d]
    return tuple(strides)


def rank_sizes(rank: int) -> tuple[int, ...]:
    """Sizes (all at least 2, so nothing coalesces away) whose element count is not a multiple of 16."""
    return tuple(2 if d < min(3, rank - 1) else 3 for d in range(rank))


def variants() -> list[dict[str, Any]]:
    """Layouts per data type and mode: packed (vector kernel; counts below, at and above VECTOR_WIDTH), strided
    ranks 1 to 8 (padding, broadcast, permutation), in place, binding offsets."""
    cases: list[dict[str, Any]] = []
    for count in (1, VECTOR_WIDTH - 1, VECTOR_WIDTH, 2 * VECTOR_WIDTH + 3):
        cases.append({"sizes": (count,), "in": None, "out": None, "in_off": 0, "out_off": 16, "in_place": False})
    cases.append({"sizes": (1, 3, 1, 7), "in": None, "out": None, "in_off": 32, "out_off": 32, "in_place": True})
    for rank in range(1, 9):
        sizes = rank_sizes(rank)
        cases.append({"sizes": sizes, "in": padded(sizes), "out": None, "in_off": 16, "out_off": 48, "in_place": False})
        broadcast = list(padded(sizes, 2))
        broadcast[0] = 0
        cases.append({"sizes": sizes, "in": tuple(broadcast), "out": padded(sizes, 1), "in_off": 0, "out_off": 0,
                      "in_place": False})  # fmt: skip
        cases.append({"sizes": sizes, "in": padded(sizes), "out": padded(sizes), "in_off": 16, "out_off": 16,
                      "in_place": True})  # fmt: skip
        order = tuple(reversed(range(rank)))
        cases.append({"sizes": sizes, "in": None, "out": padded(sizes, 0, order), "in_off": 0, "out_off": 16,
                      "in_place": False})  # fmt: skip
    # Strided, fewer elements than one work-item handles, and a count one past it.
    for count in (ELEMENTS_PER_ITEM - 3, ELEMENTS_PER_ITEM + 1):
        cases.append({"sizes": (count,), "in": (2,), "out": None, "in_off": 0, "out_off": 0, "in_place": False})
    return cases


def run_variant(device: Any, data_type: dml.TensorDataType, mode: dml.RoundingMode, case: dict[str, Any],
                rng: np.random.Generator) -> tuple[Any, int]:  # fmt: skip
    dtype = np.dtype(DTYPES[data_type])
    in_desc = dml.BufferTensorDesc(data_type=data_type, sizes=case["sizes"], strides=case["in"])
    out_desc = dml.BufferTensorDesc(data_type=data_type, sizes=case["sizes"], strides=case["out"])
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=in_desc, output_tensor=out_desc, rounding_mode=mode)
    compiled = device.compile_operator(device.create_operator(desc))
    recorder = device.create_command_recorder()
    initializer = device.create_operator_initializer([compiled])
    recorder.record_dispatch(device.queue, initializer, device.create_binding_table(initializer)).wait()

    in_total, out_total = in_desc.total_tensor_size_in_bytes, out_desc.total_tensor_size_in_bytes
    span = in_total // dtype.itemsize
    values = (rng.integers(-40, 40, span) / 4.0).astype(dtype)
    host = np.zeros(case["in_off"] + in_total, np.uint8)
    host[case["in_off"] : case["in_off"] + values.nbytes] = values.view(np.uint8)  # the 4-byte tail stays 0
    source = device.upload(host)
    assert source.size == case["in_off"] + in_total
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
    wrong = int(np.count_nonzero(got.view(np.uint8) != expected_round(x, mode).view(np.uint8)))
    return compiled.lowered.kernel, wrong


def run_dml_round(device: Any, rng: np.random.Generator) -> int:
    """dml.round on NumPy arrays: packed, tail, views, broadcasts, in place (the host-pointer path)."""
    wrong = 0
    for dtype in (np.float32, np.float16):
        for mode in ("half_to_even", "toward_zero", "half_away_from_zero"):
            base = (rng.integers(-40, 40, (5, 6, 7)) / 4.0).astype(dtype)
            arrays = [
                base[0, 0],
                base,
                base[:, ::2, 1:],
                base.transpose(2, 0, 1),
                np.broadcast_to(base[:, :1], base.shape),
            ]
            for x in arrays:
                wrong += int(
                    np.count_nonzero(
                        dml.round(x, mode, device=device) != expected_round(np.asarray(x), resolve_mode(mode))
                    )
                )
            work = base[::2, 1:].copy()
            expected = expected_round(work, resolve_mode(mode))
            dml.round(work, mode, out=work, device=device)
            wrong += int(np.count_nonzero(work != expected))
    return wrong


NEGATIVE_CONTROL = """
__kernel void broken(__global const float *input, __global float *output)
{
    float never_set;
    const size_t i = get_global_id(0);
    output[i + 1] = input[i + 1];          /* the last work-item reads and writes one past the end */
    if (i == 0 && never_set > 0.0f)        /* control flow on an uninitialised value */
        output[0] = 2.0f;
}
"""


def negative_control(device: Any) -> None:
    """A kernel with an out-of-bounds read and write and an uninitialised value, to prove the harness sees them."""
    program = cl.Program(device.context, NEGATIVE_CONTROL).build()
    flags = cl.mem_flags
    source = cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=np.ones(4, np.float32))
    target = cl.Buffer(device.context, flags.READ_WRITE, 16)
    program.broken(device.queue, (4,), None, source, target)
    device.queue.finish()
    print("OCLGRIND_SUMMARY " + json.dumps({"negative_control": True}), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dml-round", action="store_true")
    parser.add_argument("--negative-control", action="store_true", help="run a kernel with known defects")
    args = parser.parse_args()
    platforms = [p for p in cl.get_platforms() if p.name == "Oclgrind"]
    if not platforms:
        print("no Oclgrind platform; set OCL_ICD_VENDORS to a folder with oclgrind.icd", file=sys.stderr)
        return 3
    device = dml.create_device(cl_device=platforms[0].get_devices()[0])
    if args.negative_control:
        negative_control(device)
        return 0
    rng = np.random.default_rng(0)
    specs: set[Any] = set()
    runs, wrong = 0, 0
    failures: list[str] = []
    for data_type in DTYPES:
        for mode in MODES:
            for case in variants():
                spec, bad = run_variant(device, data_type, mode, case, rng)
                specs.add(spec)
                runs += 1
                wrong += bad
                if bad:
                    failures.append(f"{data_type.name} {mode.name} {case}")
    extra = run_dml_round(device, rng) if args.dml_round else 0
    summary = {
        "variants": runs,
        "kernel_specs": len(specs),
        "specs": sorted(" ".join(f"{k}={v}" for k, v in spec.defines) for spec in specs),
        "wrong_bytes": wrong,
        "dml_round_wrong": extra,
        "failures": failures[:10],
    }
    print("OCLGRIND_SUMMARY " + json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
