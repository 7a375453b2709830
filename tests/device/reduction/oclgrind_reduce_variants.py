"""Run opencl/reduce.cl on Oclgrind's simulated device: every FUNCTION it compiles (REDUCE's twelve, and the ARGMIN
and ARGMAX operators with AxisDirection DECREASING, LAST_INDEX 1), each element type of the function's table among
FLOAT32, FLOAT16, INT8, INT32 and INT64, three axis sets on a (2, 3, 4, 5) input (``all``: KEPT_RANK 0; ``inner``:
KEPT_RANK 1, REDUCED_RANK 1; ``split``, axes 1 and 3: KEPT_RANK 2, REDUCED_RANK 2, the reduced dimensions apart),
packed and strided (the input's rows padded and bound at a byte offset), through the object model
(tests/helpers/structured_runs.py) with each buffer exactly as large as its binding (no slack: an access past a
tensor is an access past its buffer). Results are compared with tests/device/reduction/cases.py's references
(integers and indices exactly, floats within the documented bound). Under the uninitialised pass
(OCLGRIND_UNINITIALIZED=1) the output buffer is left unwritten, so a read of it or a store of a value never loaded
is reported; the memory pass fills it with sentinel bytes and checks that none outside its elements changed.

Started by test_reduce_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the kernels each ran, the
-D defines each compiled (KEPT_RANK, REDUCED_RANK) and the mismatches.

``--short-input`` is this script's own negative control: SUM over every axis (FLOAT32, packed: every element read)
with an input buffer one element shorter than dmlpy is told, which Oclgrind must report as an invalid read in
``reduce``.

    python oclgrind_reduce_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-input]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyopencl as cl

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from dmlpy.runtime.buffer import Buffer
from tests.device.movement.cases import padded_strides, tensor
from tests.device.reduction.cases import F, T, arg_reference, mismatch, values
from tests.helpers.object_model import compile_and_initialize, dispatch
from tests.helpers.oclgrind_driver import VariantLog, main
from tests.helpers.structured_runs import run_structured

SHAPE = (2, 3, 4, 5)
AXES = {"all": (0, 1, 2, 3), "inner": (3,), "split": (1, 3)}
"""KEPT_RANK 0 (REDUCED_RANK 1 packed); KEPT_RANK 1 and REDUCED_RANK 1; KEPT_RANK 2 and REDUCED_RANK 2 (axes 1 and 3
are not adjacent, so neither part coalesces). Strided, the padded rows keep more dimensions apart."""
LAYOUTS = ("packed", "strided")
OFFSET = 32
"""A strided variant binds its input at this byte offset."""
WIDTHS = (T.FLOAT32, T.FLOAT16, T.INT8, T.INT32, T.INT64)
"""The element types swept: both float storages and the integer widths the tables hold (8, 32, 64 bits)."""
OPERATORS = {"ARGMIN_LAST": dml.ArgMinOperatorDesc, "ARGMAX_LAST": dml.ArgMaxOperatorDesc}
"""The ARGMIN and ARGMAX operators, DECREASING: the LAST_INDEX build REDUCE never compiles."""


def types_of(name: str) -> list[Any]:
    """The swept types the function's table (the operator's, for ARGMIN_LAST and ARGMAX_LAST) holds, newest row."""
    table = OPERATORS[name].SUPPORT if name in OPERATORS else dml.ReduceOperatorDesc.TABLES[F[name]]
    held = table.rows[-1].data_types["InputTensor"]
    return [data_type for data_type in WIDTHS if data_type in held]


FUNCTIONS = [*(function.name for function in F), *OPERATORS]


def every_variant() -> list[str]:
    """Every ``function type axes layout`` label, in the order the sweep runs them."""
    return [
        f"{name} {data_type.name} {axes} {layout}"
        for name in FUNCTIONS
        for data_type in types_of(name)
        for axes in AXES
        for layout in LAYOUTS
    ]


def sampled_variants() -> list[str]:
    """One variant per function, the type, axis set and layout taking turns (so that every type the sweep has, every
    axis set and both layouts appear): the default run's cheap share."""
    sample = []
    for k, name in enumerate(FUNCTIONS):
        types = types_of(name)
        axes = list(AXES)[k % len(AXES)]
        layout = LAYOUTS[k // len(AXES) % len(LAYOUTS)]
        sample.append(f"{name} {types[k % len(types)].name} {axes} {layout}")
    return sample


def case_of(label: str) -> tuple[Any, Any, tuple[int, ...], Any]:
    """The label's descriptor, its input, its axes and the expected output (None: ``mismatch`` judges it)."""
    name, type_name, axes_name, layout = label.split()
    data_type, axes = T[type_name], AXES[axes_name]
    strides = padded_strides(SHAPE, 2) if layout == "strided" else None
    out_sizes = tuple(1 if d in axes else s for d, s in enumerate(SHAPE))
    function = F[name.removesuffix("_LAST")]
    x = values(data_type, function, 100 + FUNCTIONS.index(name) * 7 + int(data_type), SHAPE)
    if name in OPERATORS:
        desc = OPERATORS[name](
            input_tensor=tensor(data_type, SHAPE, strides),
            output_tensor=tensor(T.INT64, out_sizes),  # a 64-bit OUTPUT_T, where REDUCE's ARG stores UINT32
            axes=axes,
            axis_direction="DECREASING",
        )
        return desc, x, axes, arg_reference(x, axes, function == F.ARGMAX, last=True)
    index = function in (F.ARGMIN, F.ARGMAX)
    desc = dml.ReduceOperatorDesc(
        function=function,
        input_tensor=tensor(data_type, SHAPE, strides),
        output_tensor=tensor(T.UINT32 if index else data_type, out_sizes),
        axes=axes,
    )
    return desc, x, axes, None


def compiled_defines(device: Any, desc: Any) -> dict[str, str]:
    """The -D defines of the kernel ``desc`` runs (dmlpy's program cache makes this compile free)."""
    compiled = device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)
    (step,) = compiled.plan.steps
    return {"kernel": step.lowered.kernel.kernel_name, **dict(step.lowered.kernel.defines)}


def run_variant(device: Any, label: str, log: VariantLog, fill_output: bool) -> dict[str, str]:
    log.begin(label)
    desc, x, axes, expected = case_of(label)
    desc.validate_on(device.feature_level)
    offsets = {"input_tensor": OFFSET} if label.endswith("strided") else {}
    try:
        got = run_structured(device, desc, {"input_tensor": x}, offsets=offsets, slack=0, fill_output=fill_output)
    except AssertionError as error:  # bytes outside the output changed
        log.mismatch(f"{label}: {error}")
        return compiled_defines(device, desc)
    result = got["output_tensor"]
    if expected is not None:
        wrong = np.flatnonzero(result.reshape(-1) != expected.reshape(-1))
        problem = f"wrong at elements {wrong[:8].tolist()} ({wrong.size} in all)" if wrong.size else None
    else:
        problem = mismatch(desc.function, x, axes, result)
    if problem is not None:
        log.mismatch(f"{label}: {problem}")
    return compiled_defines(device, desc)


def short_input(device: Any) -> None:
    """The negative control: SUM over every axis reading an input buffer one element shorter than its binding claims
    (a dmlpy Buffer told the full size, so the binding checks pass and only Oclgrind can see the read)."""
    desc, x, _, _ = case_of("SUM FLOAT32 all packed")
    compiled = compile_and_initialize(device, desc)
    total = desc.input_tensor.desc.total_tensor_size_in_bytes
    flags = cl.mem_flags
    short = x.reshape(-1)[:-1].copy()
    memory = cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=short)
    lying = Buffer(device, memory, total)
    out_total = desc.output_tensor.desc.total_tensor_size_in_bytes
    output = device.create_buffer(out_total)
    dispatch(device, compiled, [dml.BufferBinding(lying, 0, total)], [dml.BufferBinding(output, 0, out_total)])


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any] | None:
    if args.short_input:
        short_input(device)
        return {"short_input": True}
    # The uninitialised pass leaves the output unwritten; the memory pass fills it to check the bytes around it.
    fill_output = os.environ.get("OCLGRIND_UNINITIALIZED") != "1"
    log = VariantLog()
    kernels = {
        label: run_variant(device, label, log, fill_output)
        for label in (sampled_variants() if args.sample else every_variant())
    }
    return {**log.summary(), "kernels": kernels, "launch_profile": device.launch_profile.name}


if __name__ == "__main__":
    sys.exit(
        main(
            run_all,
            flags=[
                ("--sample", "one variant per function (the default test's share), not every one"),
                ("--short-input", "the reduce.cl negative control: an input buffer one element short"),
            ],
        )
    )
