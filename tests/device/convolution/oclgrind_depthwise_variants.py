"""Run depthwise.cl's row blocks (the "cpu" profile's fast path of the float depth-wise CONVOLUTION: blocks of 8
outputs along a row over private rows padded with zeros) on Oclgrind's simulated device: FLOAT32, FORWARD, both
modes, every filter size and row stride it takes (3 x 3 and 5 x 5, strides 1 and 2, a 3 x 5 filter over rows
narrower than a block, a row dilation), a bias or RELU fused, packed and strided (rows padded, every tensor bound at
a byte offset), through the object model (tests/helpers/oclgrind_sweep.py) with each buffer exactly as large as its
binding, the results against cases.py's float64 reference within its bound. Under the "gpu" profile the same
layers run the general kernel. oclgrind_convolution_variants.py's "depthwise" shape covers the other data types, the
BACKWARD direction and the integer sums.

Started by test_depthwise_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind. Prints one line
``OCLGRIND_SUMMARY {json}``: the variants run, each one's kernels and defines, and the mismatches.

    python oclgrind_depthwise_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.device.convolution.cases import RELU, Shape, convolution_case, past_bound
from tests.helpers.oclgrind_driver import main
from tests.helpers.oclgrind_sweep import Sweep, Variant, offsets_at, run_sweep, without_zero_fill

T = dml.TensorDataType
MODES = ("CROSS_CORRELATION", "CONVOLUTION")
LAYOUTS = ("packed", "strided")
OFFSET = 16
"""A strided variant binds every tensor at this byte offset."""
GAPS = {"input_tensor": 3, "filter_tensor": 1, "bias_tensor": 2, "output_tensor": 2}
SHAPES = {
    "3x3/1": Shape((1, 2, 4, 19), (3, 3), 2, start=(1, 1), end=(1, 1), groups=2),
    "3x3/2": Shape((1, 2, 5, 22), (3, 3), 2, strides=(2, 2), start=(1, 1), end=(1, 1), groups=2),
    "5x5/1": Shape((1, 2, 11, 17), (5, 5), 2, dilations=(2, 1), start=(2, 2), end=(2, 2), groups=2),
    "5x5/2": Shape((1, 2, 5, 20), (5, 5), 2, strides=(1, 2), start=(2, 2), end=(2, 1), groups=2),
    "3x5-narrow": Shape((1, 2, 3, 5), (3, 5), 2, start=(0, 3), end=(1, 0), groups=2),
    "3x3-d3": Shape((2, 2, 7, 9), (3, 3), 2, dilations=(3, 1), start=(3, 1), end=(3, 1), groups=2),
}
"""Rows of 19, 11, 17, 10, 4 and 9 outputs: whole blocks and partial ones; at stride 2 the second load of a block's
last filter element reaches the padded row's last element; the padded rows kept from row to row (a slot per input
row modulo the filter's rows; "5x5/1": seven rows of outputs under a row dilation of 2), and none kept under a row
dilation of 3 ("3x3-d3", two batches)."""


def every_variant() -> list[str]:
    return [f"{mode} {shape} {layout}" for mode in MODES for shape in SHAPES for layout in LAYOUTS]


def sampled_variants() -> list[str]:
    """Each filter size and stride once, both modes and layouts."""
    return [
        "CROSS_CORRELATION 3x3/1 strided",
        "CONVOLUTION 3x3/2 packed",
        "CROSS_CORRELATION 5x5/2 strided",
        "CONVOLUTION 3x5-narrow strided",
    ]


def variant_of(label: str) -> Variant:
    mode, shape, layout = label.split()
    fused = RELU if every_variant().index(label) % 2 else None
    case = convolution_case(
        T.FLOAT32, SHAPES[shape], mode=mode, fused=fused, gaps=GAPS if layout == "strided" else None
    )

    def problem(got: dict[str, Any]) -> str | None:
        wrong = past_bound(got["output_tensor"], case.expected, case.allowed)
        return f"past the bound at elements {wrong[:8].tolist()} ({wrong.size} in all)" if wrong.size else None

    offsets = offsets_at(case.desc, OFFSET) if layout == "strided" else {}
    return Variant(case.desc, case.inputs, problem, offsets)


def record(device: Any, desc: Any) -> dict[str, Any]:
    """The plan's kernels, the launch profile, and the fast path's DEPTHWISE_KW define (None: the general kernel)."""
    compiled = device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)
    steps = [step.lowered.kernel for step in compiled.plan.steps]
    return {
        "kernels": [kernel.kernel_name for kernel in steps],
        "profile": device.launch_profile.name,
        "DEPTHWISE_KW": dict(steps[0].defines).get("DEPTHWISE_KW"),
    }


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any]:
    if os.environ.get("OCLGRIND_UNINITIALIZED") == "1":
        without_zero_fill(device, keep=True)  # variants share the device
    return run_sweep(device, Sweep(every_variant, sampled_variants, variant_of, record), args.sample)


if __name__ == "__main__":
    sys.exit(main(run_all, flags=[("--sample", "one variant of each filter size and stride, not every one")]))
