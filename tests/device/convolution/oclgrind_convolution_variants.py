"""Run the convolutions' plans on Oclgrind's simulated device: opencl/convolution.cl's unfold, the filter's packing
copy, gemm.cl's contraction (GEMM for CONVOLUTION, MATRIX_MULTIPLY_INTEGER for CONVOLUTION_INTEGER, operator 4 for
QUANTIZED_LINEAR_CONVOLUTION) and the staged output's copy. CONVOLUTION: FLOAT32 and FLOAT16, both modes, FORWARD and
BACKWARD, over 1-D, 2-D (groups, strides, asymmetric padding, OutputPadding, RELU fused) and 3-D windows, a
depth-wise one (depthwise.cl's direct ``depthwise`` kernel, one launch), one with two output channels a group
(im2col) and a pointwise one (the input read as it is, no unfold); the integer convolutions: every INT8/UINT8
pair, zero points and scales per output channel, one value or absent, 1-D, 2-D and depth-wise (the direct kernel's
integer sums and requantization). Each packed and strided (rows
padded, every tensor bound at a byte offset), through the object model (tests/helpers/oclgrind_sweep.py) with each
buffer exactly as large as its binding. Results are compared with cases.py's references (integers exactly, floats
within its bounds).

Started by test_convolution_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind. Prints one line
``OCLGRIND_SUMMARY {json}``: the variants run, each one's kernels and contraction operator, and the mismatches.
``--short-input``: the pointwise CONVOLUTION with the input's buffer one element shorter than dmlpy is told, which
Oclgrind must report as an invalid read in ``contraction``.

    python oclgrind_convolution_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-input]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.device.convolution.cases import RELU, Case, Shape, convolution_case, integer_case, past_bound
from tests.helpers.oclgrind_driver import main
from tests.helpers.oclgrind_sweep import Sweep, Variant, dispatch_short, offsets_at, run_sweep, without_zero_fill

T = dml.TensorDataType
BYTES = ("INT8", "UINT8")
MODES = ("CROSS_CORRELATION", "CONVOLUTION")
DIRECTIONS = ("forward", "backward")
LAYOUTS = ("packed", "strided")
OFFSET = 16
"""A strided variant binds every tensor at this byte offset."""
GAPS = {"input_tensor": 3, "filter_tensor": 1, "bias_tensor": 2, "output_tensor": 2}
SHAPES = {
    "1d": Shape((2, 2, 9), (3,), 3, strides=(2,), dilations=(2,), start=(2,), end=(1,)),
    "2d": Shape((1, 4, 5, 6), (3, 2), 4, strides=(2, 1), start=(1, 0), end=(0, 1), output_padding=(1, 0), groups=2),
    "3d": Shape((1, 2, 3, 4, 3), (2, 2, 2), 2, strides=(1, 2, 1), start=(1, 0, 1), end=(0, 1, 0)),
    "depthwise": Shape((1, 3, 5, 11), (3, 3), 3, start=(1, 1), end=(1, 1), groups=3),
    "multiplier": Shape((1, 3, 5, 5), (3, 3), 6, start=(1, 1), end=(1, 1), groups=3),
}
"""CONVOLUTION's windows, each under both directions: "depthwise" runs depthwise.cl's direct kernel (rows of 11
outputs: under the "cpu" profile a full 8-output block, its interior loads, and a partial one), "multiplier" (two
output channels a group) im2col."""
POINTWISE = Shape((2, 4, 3, 5), (1, 1), 3)
"""A FORWARD 1 x 1 filter: the contraction reads the input itself."""
WIDE = Shape((1, 2, 3, 21), (9, 8), 2, start=(4, 3), end=(4, 4))
"""A FORWARD window the "cpu" profile's contraction reads through (gemm_window.h): rows of 21 outputs, so that tiles
of 16 columns lie in one row (padded at either end) or straddle two; 72 filter elements, past the 64 a tile keeps
recipes for; K 144, past a 128-deep block."""
WIDE_STRIDE_2 = Shape((1, 3, 9, 40), (3, 3), 2, strides=(2, 2), start=(1, 1), end=(1, 1))
"""Rows of 20 outputs at stride 2: the first tile's 16 columns read whole runs of the input with a step of 2."""
FORWARD_SHAPES = {"pointwise": POINTWISE, "wide": WIDE, "wide2": WIDE_STRIDE_2}
"""The FORWARD-only windows: the contraction reads the input itself or through the window."""
INTEGER_SHAPES = {
    "1d": Shape((2, 3, 11), (3,), 6, strides=(2,), dilations=(2,), start=(2,), end=(1,), groups=3),
    "2d": Shape((1, 4, 5, 6), (3, 3), 4, strides=(1, 2), start=(1, 1), end=(2, 0), groups=2),
    "depthwise": SHAPES["depthwise"],
    "3x3": Shape((1, 2, 3, 17), (3, 3), 5, start=(1, 1), end=(1, 1)),
}
"""The integer convolutions' windows: "depthwise" runs depthwise.cl's direct kernel, its integer sums; "3x3" the
unfold's stride-1 rows of bytes (the plain copy between padded ends) and a contraction of partial tiles (M 5, N 51:
the integer panel's folded zero points on rows and columns past the tile's), small enough that every variant's
"gpu" uninitialised pass stays inside the suite's 600 s on a loaded machine."""
PARAMETERS = ("channel", "one", "none")
"""The integer convolutions' filter zero point (and scale) per output channel, one value, or no zero points."""
CONTRACTION_OPERATOR = {"CONV": "0", "CI": "1", "QLC": "4"}
"""gemm.cl's OPERATOR each label's contraction runs."""


def every_variant() -> list[str]:
    conv = [
        f"CONV {t} {mode} {direction} {shape} {layout}"
        for t in ("FLOAT32", "FLOAT16")
        for mode in MODES
        for direction in DIRECTIONS
        for shape in SHAPES
        for layout in LAYOUTS
    ]
    pointwise = [
        f"CONV {t} CROSS_CORRELATION forward {shape} {layout}"
        for shape in FORWARD_SHAPES
        for t in ("FLOAT32", "FLOAT16")
        for layout in LAYOUTS
    ]
    integer = [
        f"{op} {a} {b} {p} {shape} {layout}"
        for op in ("CI", "QLC")
        for a in BYTES
        for b in BYTES
        for p in PARAMETERS
        for shape in INTEGER_SHAPES
        for layout in LAYOUTS
    ]
    return [*conv, *pointwise, *integer]


def sampled_variants() -> list[str]:
    """Four of CONVOLUTION (both directions and modes, FLOAT16, 3-D, the wide window), one of each integer operator
    and a depth-wise QUANTIZED_LINEAR_CONVOLUTION: every contraction operator, the integer depth-wise kernel, both
    layouts; the default passes take every other one, so the "cpu" one runs both FORWARD windows read through."""
    return [
        "CONV FLOAT32 CROSS_CORRELATION forward wide strided",
        "CONV FLOAT32 CROSS_CORRELATION backward 2d strided",
        "CONV FLOAT16 CONVOLUTION forward 3d packed",
        "CONV FLOAT32 CROSS_CORRELATION forward pointwise packed",
        "CI UINT8 INT8 channel 2d strided",
        "QLC INT8 UINT8 one 1d packed",
        "QLC UINT8 INT8 channel depthwise strided",
    ]


def case_of(label: str) -> Case:
    words = label.split()
    gaps = GAPS if words[-1] == "strided" else None
    if words[0] == "CONV":
        data_type, mode, direction, shape_name = T[words[1]], words[2], words[3], words[4]
        shape = FORWARD_SHAPES.get(shape_name) or SHAPES[shape_name]
        fused = RELU if every_variant().index(label) % 2 else None
        return convolution_case(data_type, shape._replace(backward=direction == "backward"), mode=mode,
                                fused=fused, gaps=gaps)  # fmt: skip
    operator = "CONVOLUTION_INTEGER" if words[0] == "CI" else "QUANTIZED_LINEAR_CONVOLUTION"
    output_type = T.UINT8 if words[1] == words[2] else T.INT8
    return integer_case(operator, T[words[1]], T[words[2]], INTEGER_SHAPES[words[4]], per_channel=words[3] == "channel",
                        zero_points=words[3] != "none", output_type=output_type, gaps=gaps)  # fmt: skip


def variant_of(label: str) -> Variant:
    case = case_of(label)

    def problem(got: dict[str, Any]) -> str | None:
        wrong = past_bound(got["output_tensor"], case.expected, case.allowed)
        return f"past the bound at elements {wrong[:8].tolist()} ({wrong.size} in all)" if wrong.size else None

    offsets = offsets_at(case.desc, OFFSET) if label.endswith("strided") else {}
    return Variant(case.desc, case.inputs, problem, offsets)


def record(device: Any, desc: Any) -> dict[str, Any]:
    """The kernels of the plan's steps in order, the contraction's gemm.cl OPERATOR (None: no contraction, the
    depth-wise kernel) and IMPLICIT (its panel read through the window), and the launch profile."""
    compiled = device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)
    steps = [step.lowered.kernel for step in compiled.plan.steps]
    contractions = [dict(kernel.defines) for kernel in steps if kernel.kernel_name == "contraction"]
    return {
        "kernels": [kernel.kernel_name for kernel in steps],
        "OPERATOR": contractions[0]["OPERATOR"] if contractions else None,
        "IMPLICIT": contractions[0].get("IMPLICIT") == "1" if contractions else False,
        "profile": device.launch_profile.name,
    }


def short_input(device: Any) -> None:
    """The negative control: the pointwise plan, one launch with no temporary (tests/helpers' ``dispatch_short``
    binds none), whose contraction reads the input as it is, from a buffer one element short."""
    case = case_of("CONV FLOAT32 CROSS_CORRELATION forward pointwise packed")
    dispatch_short(device, case.desc, case.inputs, "input_tensor")


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any]:
    if args.short_input:
        short_input(device)
        return {"short_input": True}
    if os.environ.get("OCLGRIND_UNINITIALIZED") == "1":
        without_zero_fill(device, keep=True)  # variants share the device
    return run_sweep(device, Sweep(every_variant, sampled_variants, variant_of, record), args.sample)


if __name__ == "__main__":
    sys.exit(
        main(
            run_all,
            flags=[
                ("--sample", "three CONVOLUTION variants and one of each integer operator, not every one"),
                ("--short-input", "the negative control: the pointwise plan's input buffer one element short"),
            ],
        )
    )
