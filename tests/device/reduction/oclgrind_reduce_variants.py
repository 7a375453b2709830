"""Run opencl/reduce.cl on Oclgrind's simulated device: every FUNCTION it compiles (REDUCE's twelve, and the ARGMIN
and ARGMAX operators with AxisDirection DECREASING, LAST_INDEX 1), each element type of the function's table among
FLOAT32, FLOAT16, INT8, INT32 and INT64, three axis sets on a (2, 3, 4, 5) input (``all``: KEPT_RANK 0; ``inner``:
KEPT_RANK 1, REDUCED_RANK 1; ``split``, axes 1 and 3: KEPT_RANK 2, REDUCED_RANK 2, the reduced dimensions apart) and
three on inputs of their own for the float vector walks (``lanes``: LANES_WALK with a tail, LOG_SUM_EXP's two passes
too; ``bands``: BANDS_WALK, a whole band and a short one; ``chunks``: one group of 8192, which the floats reduce in two
launches, reduce_split.py's partial over two chunks and reduce_combine; ``rows``: 16 columns of 64 rows, which the
floats reduce in two launches too, ROWS_WALK over two chunks of rows and reduce_combine),
packed and strided (the input's rows padded and bound at a byte offset), through the object model
(tests/helpers/structured_runs.py) with each buffer exactly as large as its binding (no slack: an access past a
tensor is an access past its buffer). Results are compared with tests/device/reduction/cases.py's references
(integers and indices exactly, floats within the documented bound). Under the uninitialised pass
(OCLGRIND_UNINITIALIZED=1) the output buffer is left unwritten, so a read of it or a store of a value never loaded
is reported; the memory pass fills it with sentinel bytes and checks that none outside its elements changed.

Started by test_reduce_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the kernels each ran, the
-D defines each compiled (KEPT_RANK, REDUCED_RANK) and the mismatches.

``--short-input`` is this script's own negative control: SUM over every axis (FLOAT32, packed: every element read,
eight a step by LANES_WALK) with an input buffer one element shorter than dmlpy is told, which Oclgrind must report
as an invalid read (of 4 bytes: one of the eight loads) in ``reduce``.

    python oclgrind_reduce_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-input]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.device.movement.cases import padded_strides, tensor
from tests.device.reduction.cases import F, T, arg_reference, mismatch, values
from tests.helpers.oclgrind_driver import main
from tests.helpers.oclgrind_sweep import Sweep, Variant, dispatch_short, kernel_defines, run_sweep, without_zero_fill

SPLIT = "reduce+reduce_combine"
"""What ``plan_defines`` names a split reduction's two kernels."""

SHAPE = (2, 3, 4, 5)
AXES = {
    "all": (0, 1, 2, 3),
    "inner": (3,),
    "split": (1, 3),
    "lanes": (1,),
    "bands": (0,),
    "chunks": (1,),
    "rows": (0,),
}
"""KEPT_RANK 0 (REDUCED_RANK 1 packed: the floats' LANES_WALK over 120 elements); KEPT_RANK 1 and REDUCED_RANK 1;
KEPT_RANK 2 and REDUCED_RANK 2 (axes 1 and 3 are not adjacent, so neither part coalesces); on SHAPES' own inputs,
the floats' LANES_WALK along a contiguous axis of 19 (two vectors and a tail of 3) and BANDS_WALK down the rows of 11
x 75 (a band of 64 and a short one of 11: a vector and 3 groups one by one), and the floats' split reduction
(dmlpy/kernels/reduce_split.py) of one
group of 8192 in two chunks of 4096, the integers' SCALAR_WALK over it, and its rows plan (ROWS_WALK) of 16 columns of
64 rows in two chunks of 32 rows, two vectors a row. Strided, the padded rows keep more dimensions
apart."""
SHAPES = {"lanes": (3, 19), "bands": (11, 75), "chunks": (1, 8192), "rows": (64, 16)}
"""The axis sets with an input of their own (SHAPE otherwise)."""
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


SAMPLED_WALKS = ("LOG_SUM_EXP FLOAT32 lanes packed", "MAX FLOAT16 bands strided", "L2 FLOAT16 rows strided")
"""Vector walks the turns below leave out, added to the sample: LOG_SUM_EXP's two passes on LANES_WALK (its terms
eight lanes at a time), an extreme's BANDS_WALK, and a sum's ROWS_WALK (its squares' errors, halves eight a load)."""


def sampled_variants() -> list[str]:
    """One variant per function, the type, axis set and layout taking turns (so that every type the sweep has, every
    axis set and both layouts appear), then SAMPLED_WALKS: the default run's cheap share."""
    sample = []
    for k, name in enumerate(FUNCTIONS):
        types = types_of(name)
        axes = list(AXES)[k % len(AXES)]
        layout = LAYOUTS[k // len(AXES) % len(LAYOUTS)]
        sample.append(f"{name} {types[k % len(types)].name} {axes} {layout}")
    return [*sample, *SAMPLED_WALKS]


def case_of(label: str) -> tuple[Any, Any, tuple[int, ...], Any]:
    """The label's descriptor, its input, its axes and the expected output (None: ``mismatch`` judges it)."""
    name, type_name, axes_name, layout = label.split()
    data_type, axes, shape = T[type_name], AXES[axes_name], SHAPES.get(axes_name, SHAPE)
    strides = padded_strides(shape, 2) if layout == "strided" else None
    out_sizes = tuple(1 if d in axes else s for d, s in enumerate(shape))
    function = F[name.removesuffix("_LAST")]
    x = values(data_type, function, 100 + FUNCTIONS.index(name) * 7 + int(data_type), shape)
    if name in OPERATORS:
        desc = OPERATORS[name](
            input_tensor=tensor(data_type, shape, strides),
            output_tensor=tensor(T.INT64, out_sizes),  # a 64-bit OUTPUT_T, where REDUCE's ARG stores UINT32
            axes=axes,
            axis_direction="DECREASING",
        )
        return desc, x, axes, arg_reference(x, axes, function == F.ARGMAX, last=True)
    index = function in (F.ARGMIN, F.ARGMAX)
    desc = dml.ReduceOperatorDesc(
        function=function,
        input_tensor=tensor(data_type, shape, strides),
        output_tensor=tensor(T.UINT32 if index else data_type, out_sizes),
        axes=axes,
    )
    return desc, x, axes, None


def variant_of(label: str) -> Variant:
    desc, x, axes, expected = case_of(label)

    def problem(got: dict[str, Any]) -> str | None:
        result = got["output_tensor"]
        if expected is None:
            return mismatch(desc.function, x, axes, result)
        wrong = np.flatnonzero(result.reshape(-1) != expected.reshape(-1))
        return f"wrong at elements {wrong[:8].tolist()} ({wrong.size} in all)" if wrong.size else None

    offsets = {"input_tensor": OFFSET} if label.endswith("strided") else {}
    return Variant(desc, {"input_tensor": x}, problem, offsets)


def plan_defines(device: Any, desc: Any) -> dict[str, str]:
    """The kernel ``desc``'s plan runs and its -D defines; a split reduction's partial launch's, named SPLIT."""
    plan = desc.plan(device.launch_profile)
    if len(plan.steps) == 1:
        return kernel_defines(device, desc)
    kernels = "+".join(step.lowered.kernel.kernel_name for step in plan.steps)
    return {"kernel": kernels, **dict(plan.steps[0].lowered.kernel.defines)}


def short_input(device: Any) -> None:
    """The negative control: SUM over every axis reading an input buffer one element shorter than its binding
    claims."""
    desc, x, _, _ = case_of("SUM FLOAT32 all packed")
    dispatch_short(device, desc, {"input_tensor": x}, "input_tensor")


def run_all(device: Any, args: Any) -> dict[str, Any]:
    """The sweep (or the negative control); under the uninitialised pass on buffers without create_buffer's zero
    fill, each kept to the end (``without_zero_fill``): a split reduction's records are written by its partial
    launch and read by its combine."""
    if args.short_input:
        short_input(device)
        return {"short_input": True}
    if os.environ.get("OCLGRIND_UNINITIALIZED") == "1":
        without_zero_fill(device, keep=True)
    return run_sweep(device, Sweep(every_variant, sampled_variants, variant_of, plan_defines), args.sample)


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
