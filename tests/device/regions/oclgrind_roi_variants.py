"""Run opencl/roi.cl on Oclgrind's simulated device: both kernels and every reduction and interpolation it compiles
(ROI_ALIGN1 AVERAGE bilinear with UINT32 indices; ROI_ALIGN1 MAX nearest, AlignRegionsToCorners, pixel offsets 0;
ROI_ALIGN MAX bilinear with UINT64 indices; ROI_POOLING), FLOAT32 and FLOAT16, ten regions of every kind
(tests/device/regions/cases.py's: past the input, inverted, empty, wholly outside; ROI_POOLING's last BatchID past
BatchCount), packed and strided (rows padded, bound at byte offsets), through the object model
(tests/helpers/structured_runs.py) with each buffer exactly as large as its binding. Results are compared with
cases.py's references (ROI_POOLING bit for bit, the ROI_ALIGNs within ALIGN_BOUND). Under the uninitialised pass
(OCLGRIND_UNINITIALIZED=1) the outputs are left unwritten.

Started by test_roi_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``.

``--short-input``: this script's negative control, ROI_ALIGN1 (FLOAT32, packed) over an input buffer one element
shorter than dmlpy is told, which Oclgrind must report as an invalid read in ``roi_align``.

    python oclgrind_roi_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-input]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.device.regions.cases import Align, T, align_case, align_mismatch, pooling_case
from tests.helpers.oclgrind_sweep import NegativeControl, Sweep, Variant, dispatch_short, kernel_defines, sweep_main

FUNCTIONS = {
    "ALIGN1_AVERAGE": (dml.RoiAlign1OperatorDesc, Align(outside=2.5, scale_x=0.75), T.UINT32),
    "ALIGN1_MAX_NEAREST": (
        dml.RoiAlign1OperatorDesc,
        Align("MAX", "NEAREST_NEIGHBOR", input_offset=0.0, output_offset=0.0, minimum=2, maximum=3, corners=True),
        T.UINT32,
    ),
    "ALIGN_MAX": (dml.RoiAlignOperatorDesc, Align("MAX", scale_y=0.5, minimum=1, maximum=3), T.UINT64),
    "POOLING": (dml.RoiPoolingOperatorDesc, None, None),
}
TYPES = (T.FLOAT32, T.FLOAT16)
LAYOUTS = ("packed", "strided")
GAPS = {"input_tensor": 3, "roi_tensor": 2, "batch_indices_tensor": 1, "output_tensor": 1}
OFFSETS = {"input_tensor": 48, "roi_tensor": 16, "batch_indices_tensor": 64, "output_tensor": 32}
SIZES = (2, 3, 7, 9)


def every_variant() -> list[str]:
    return [f"{name} {data_type.name} {layout}" for name in FUNCTIONS for data_type in TYPES for layout in LAYOUTS]


def sampled_variants() -> list[str]:
    """One variant per function, the type and layout taking turns."""
    return [f"{name} {TYPES[k % 2].name} {LAYOUTS[k // 2 % 2]}" for k, name in enumerate(FUNCTIONS)]


def variant_of(label: str) -> Variant:
    name, type_name, layout = label.split()
    strided = layout == "strided"
    desc_class, align, index_type = FUNCTIONS[name]
    gaps = GAPS if strided else None
    if align is None:
        case = pooling_case(T[type_name], SIZES, (2, 3), 0.5, count=10, gaps=gaps)

        def exact(got: dict[str, Any]) -> str | None:
            wrong = np.flatnonzero(got["output_tensor"] != case.expected)
            return f"wrong at elements {wrong[:8].tolist()}" if wrong.size else None

        problem = exact
    else:
        case = align_case(desc_class, T[type_name], SIZES, (3, 4), align, count=10, index_type=index_type, gaps=gaps)

        def problem(got: dict[str, Any]) -> str | None:
            return align_mismatch(case, got["output_tensor"], case.extra["align"].outside)

    offsets = {slot: OFFSETS[slot] for slot in (*case.inputs, "output_tensor")} if strided else {}
    return Variant(case.desc, case.inputs, problem, offsets)


def short_input(device: Any) -> None:
    variant = variant_of("ALIGN1_AVERAGE FLOAT32 packed")
    dispatch_short(device, variant.desc, variant.inputs, "input_tensor")


if __name__ == "__main__":
    sys.exit(
        sweep_main(
            Sweep(every_variant, sampled_variants, variant_of, kernel_defines),
            "one variant per function (the default test's share), not every one",
            NegativeControl(
                "--short-input", "the roi.cl negative control: an input buffer one element short", short_input
            ),
        )
    )
