"""Run opencl/pooling.cl on Oclgrind's simulated device: every FUNCTION it compiles (AVERAGE with IncludePadding 0
and 1, LP with P 1, 2 and 3, MAX without and with OutputIndicesTensor, MAX_UNPOOLING, QUANTIZED_LINEAR_AVERAGE_POOLING
(INT8 to UINT8, per-channel scales and zero points; the global window without zero points)), the element types of each
table among FLOAT32, FLOAT16, INT8, UINT16 and INT64 (and UINT64 indices), three windows (``asym``: 4-D, strides 2
and 1, asymmetric padding with windows cut by it; ``dilated``: 5-D, dilations 2, every padding kind; ``global``:
the whole 8 x 8 plane), packed and strided (rows padded, bound at byte offsets), through the object model
(tests/helpers/structured_runs.py) with each buffer exactly as large as its binding. Results are compared with
tests/device/pooling/cases.py's references (MAX and its indices, MAX_UNPOOLING bit for bit, floats within the
documented bound). Under the uninitialised pass (OCLGRIND_UNINITIALIZED=1) the outputs are left unwritten.

Started by test_pooling_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``.

``--short-input``: this script's negative control, AVERAGE's global window (FLOAT32, packed) over an input buffer
one element shorter than dmlpy is told, which Oclgrind must report as an invalid read in ``pooling``.

    python oclgrind_pooling_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-input]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.device.movement.cases import padded_strides, random_bits, tensor
from tests.device.pooling.cases import AVERAGE, LP, MAX, T, Window, mismatch, pooling_case
from tests.device.pooling.quantized_cases import PARAMETERS, QUANTIZED, quantized_case
from tests.helpers.oclgrind_sweep import NegativeControl, Sweep, Variant, dispatch_short, sweep_main

FUNCTIONS = {
    "AVERAGE": (AVERAGE[1], {"include_padding": False}),
    "AVERAGE_PADDED": (AVERAGE[0], {"include_padding": True}),
    "LP1": (LP[0], {"p": 1}),
    "LP2": (LP[1], {"p": 2}),
    "LP3": (LP[1], {"p": 3}),
    "MAX": (MAX[0], {}),
    "MAX_INDICES": (MAX[2], {}),
    "UNPOOL": (dml.MaxUnpoolingOperatorDesc, {}),
    "QUANTIZED": (QUANTIZED, {"include_padding": True}),
}
WINDOWS = {
    "asym": ((2, 3, 7, 6), Window((3, 2), (2, 1), (1, 0), (2, 1))),
    "dilated": ((1, 2, 5, 4, 7), Window((2, 2, 3), (1, 2, 1), (0, 1, 2), (1, 0, 1), (2, 1, 2))),
    "global": ((2, 3, 8, 8), Window((8, 8))),
}
LAYOUTS = ("packed", "strided")
WIDTHS = (T.FLOAT32, T.FLOAT16, T.INT8, T.UINT16, T.INT64)
GAPS = {"input_tensor": 3, "output_tensor": 1, "output_indices_tensor": 2, "indices_tensor": 1}
OFFSETS = {"input_tensor": 48, "output_tensor": 16, "output_indices_tensor": 32, "indices_tensor": 64}
QUANTIZED_GAPS = {**GAPS, "input_scale_tensor": 1, "output_zero_point_tensor": 2}
QUANTIZED_OFFSETS = {**OFFSETS, **dict.fromkeys(PARAMETERS, 32)}


def types_of(name: str) -> list[Any]:
    held = FUNCTIONS[name][0].SUPPORT.rows[-1].data_types["InputTensor"]
    return [data_type for data_type in WIDTHS if data_type in held]


def windows_of(name: str) -> list[str]:
    """MAX_UNPOOLING has no window (its table takes 4-D tensors): one shape, ``asym``'s."""
    return ["asym"] if name == "UNPOOL" else list(WINDOWS)


def every_variant() -> list[str]:
    return [
        f"{name} {data_type.name} {window} {layout}"
        for name in FUNCTIONS
        for data_type in types_of(name)
        for window in windows_of(name)
        for layout in LAYOUTS
    ]


def sampled_variants() -> list[str]:
    """One variant per function, the type, window and layout taking turns."""
    sample = []
    for k, name in enumerate(FUNCTIONS):
        types, windows = types_of(name), windows_of(name)
        sample.append(f"{name} {types[k % len(types)].name} {windows[k % len(windows)]} {LAYOUTS[k // 3 % 2]}")
    return sample


def _unpooling(data_type: Any, strided: bool) -> Variant:
    sizes, out_sizes = (2, 3, 3, 2), (2, 3, 6, 5)

    def described(element: Any, shape: Any, slot: str) -> Any:
        return tensor(element, shape, padded_strides(shape, GAPS[slot]) if strided else None)

    desc = dml.MaxUnpoolingOperatorDesc(
        input_tensor=described(data_type, sizes, "input_tensor"),
        indices_tensor=described(T.UINT64, sizes, "indices_tensor"),
        output_tensor=described(data_type, out_sizes, "output_tensor"),
    )
    x = random_bits(data_type, sizes, 3)
    indices = np.random.default_rng(4).permutation(int(np.prod(out_sizes)))[: x.size].astype(np.uint64)
    indices[-1] = 10**6  # past the output: writes nothing
    indices = indices.reshape(sizes)
    expected = np.zeros(out_sizes, x.dtype)
    expected.flat[indices.ravel()[:-1]] = x.ravel()[:-1]
    width = f"u{x.dtype.itemsize}"

    def problem(got: dict[str, Any]) -> str | None:
        wrong = np.flatnonzero(got["output_tensor"].view(width) != expected.view(width))
        return f"wrong at elements {wrong[:8].tolist()}" if wrong.size else None

    offsets = {slot: OFFSETS[slot] for slot in ("input_tensor", "indices_tensor", "output_tensor")} if strided else {}
    return Variant(desc, {"input_tensor": x, "indices_tensor": indices}, problem, offsets)


def _quantized(data_type: Any, window_name: str, strided: bool) -> Variant:
    """QUANTIZED_LINEAR_AVERAGE_POOLING into UINT8, per-channel parameters (strided: rows padded, at byte offsets);
    the global window without zero points (their NULL slots never read)."""
    sizes, window = WINDOWS[window_name]
    case = quantized_case(
        (data_type, T.UINT8),
        sizes,
        window,
        include_padding=True,
        zero_points=window_name != "global",
        gaps=QUANTIZED_GAPS if strided else None,
    )
    offsets = {slot: QUANTIZED_OFFSETS[slot] for slot in (*case.inputs, "output_tensor")} if strided else {}
    return Variant(case.desc, case.inputs, case.mismatch, offsets)


def variant_of(label: str) -> Variant:
    name, type_name, window_name, layout = label.split()
    strided = layout == "strided"
    if name == "UNPOOL":
        return _unpooling(T[type_name], strided)
    if name == "QUANTIZED":
        return _quantized(T[type_name], window_name, strided)
    desc_class, options = FUNCTIONS[name]
    sizes, window = WINDOWS[window_name]
    index_type = T.UINT64 if name == "MAX_INDICES" else None
    case = pooling_case(
        desc_class, T[type_name], sizes, window, gaps=GAPS if strided else None, index_type=index_type, **options
    )
    offsets = {slot: OFFSETS[slot] for slot in (*case.expected, "input_tensor")} if strided else {}
    return Variant(case.desc, case.inputs, lambda got: mismatch(case, got), offsets)


def record(device: Any, desc: Any) -> dict[str, str]:
    """The last step's kernel (MAX_UNPOOLING's scatter, after its fill) and its -D defines."""
    compiled = device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)
    step = compiled.plan.steps[-1]
    return {"kernel": step.lowered.kernel.kernel_name, **dict(step.lowered.kernel.defines)}


def short_input(device: Any) -> None:
    variant = variant_of("AVERAGE FLOAT32 global packed")
    dispatch_short(device, variant.desc, variant.inputs, "input_tensor")


if __name__ == "__main__":
    sys.exit(
        sweep_main(
            Sweep(every_variant, sampled_variants, variant_of, record),
            "one variant per function (the default test's share), not every one",
            NegativeControl(
                "--short-input", "the pooling.cl negative control: an input buffer one element short", short_input
            ),
        )
    )
