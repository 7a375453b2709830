"""Run the resampling operators on Oclgrind's simulated device: opencl/resample.cl in each of its kinds (NEAREST
rounding halves up (RESAMPLE1), down and up (RESAMPLE2's RoundingDirection), LINEAR plain (RESAMPLE2) and antialiased
(RESAMPLE3)) at every data type of the tables, UPSAMPLE_2D at both modes and VALUE_SCALE_2D (the element-wise
template's scale-bias copy, once per channel) at both float types, packed and strided, through the object model
(tests/helpers/structured_runs.py) with each buffer exactly as large as its binding; the strided variants bind
every tensor at a byte offset. Each case scales one dimension up and one down with offsets that put coordinates
past both edges, so the clamped taps at the borders run. Results are checked against cases.py's reference:
nearest bit for bit, linear within its bound. Under the uninitialised pass the output buffers are left unwritten.

Started by test_resample_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the kernels each ran
(``resample``, or VALUE_SCALE_2D's ``elementwise`` steps), and the mismatches.

``--short-input`` is this script's own negative control: RESAMPLE1 NEAREST, FLOAT32, packed, upsampling (the last
output element reads the input's last) with an input buffer one element shorter than dmlpy is told.

    python oclgrind_resample_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-input]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import numpy as np

import dmlpy as dml
from tests.device.movement.cases import padded_strides
from tests.device.resample.cases import NUMPY_DTYPE, T, check_linear, resample_reference, tensor, values
from tests.helpers.oclgrind_sweep import (
    NegativeControl,
    Sweep,
    Variant,
    bit_problem,
    dispatch_short,
    kernel_names,
    offsets_at,
    sweep_main,
)

LAYOUTS = ("packed", "strided")
OFFSET = 16
FLOAT_TYPES = (T.FLOAT32, T.FLOAT16)
RESAMPLE_TYPES = (T.FLOAT32, T.FLOAT16, T.INT8, T.UINT8)
KINDS = {
    "NEAREST half_up": ("NEAREST_NEIGHBOR", "half_up"),
    "NEAREST down": ("NEAREST_NEIGHBOR", "down"),
    "NEAREST up": ("NEAREST_NEIGHBOR", "up"),
    "LINEAR": ("LINEAR", "down"),
    "LINEAR antialiased": ("LINEAR", "down"),
}
"""resample.cl's kinds: interpolation and the reference's rounding."""
IN_SIZES, OUT_SIZES = (2, 5, 4), (2, 3, 7)
SCALES, OFFSETS = (1.0, 0.5, 1.75), ((0.5, 1.0, -0.5), (-0.5, 0.0, 1.0))


def every_variant() -> list[str]:
    """Every ``operator type layout`` label, in the order the sweep runs them."""
    classes = [(kind, RESAMPLE_TYPES) for kind in KINDS]
    classes += [("UPSAMPLE_2D NEAREST", FLOAT_TYPES), ("UPSAMPLE_2D LINEAR", FLOAT_TYPES)]
    classes += [("VALUE_SCALE_2D", FLOAT_TYPES)]
    return [f"{name} {t.name} {layout}" for name, types in classes for t in types for layout in LAYOUTS]


def sampled_variants() -> list[str]:
    """One variant per class, the type and layout taking turns: the default run's cheap share."""
    classes: dict[str, list[str]] = {}
    for label in every_variant():
        classes.setdefault(label.rsplit(" ", 2)[0], []).append(label)
    # Labels run type by type, packed then strided: class k takes type k (modulo its types), layout k // 2.
    return [labels[k % (len(labels) // 2) * 2 + k // 2 % 2] for k, labels in enumerate(classes.values())]


def _strides(layout: str, sizes: tuple[int, ...], gap: int) -> tuple[int, ...] | None:
    return padded_strides(sizes, gap) if layout == "strided" else None


def _resample(kind: str, data_type: Any, layout: str) -> Variant:
    mode, rounding = KINDS[kind]
    operator = dml.Resample1OperatorDesc if rounding == "half_up" else dml.Resample2OperatorDesc
    fields: dict[str, Any] = {"scales": SCALES, "input_pixel_offsets": OFFSETS[0], "output_pixel_offsets": OFFSETS[1]}
    if kind.endswith("antialiased"):
        operator = dml.Resample3OperatorDesc
        fields["antialiased"] = True
    if operator is not dml.Resample1OperatorDesc:
        fields["rounding_direction"] = "INCREASING" if rounding == "up" else "DECREASING"
    desc = operator(
        input_tensor=tensor(data_type, IN_SIZES, _strides(layout, IN_SIZES, 3)),
        output_tensor=tensor(data_type, OUT_SIZES, _strides(layout, OUT_SIZES, 1)),
        interpolation_mode=mode,
        **fields,
    )
    x = values(data_type, IN_SIZES, int(data_type))
    exact, bound = resample_reference(
        x, OUT_SIZES, SCALES, *OFFSETS, linear=mode == "LINEAR", rounding=rounding, antialiased="anti" in kind
    )
    return _variant(desc, x, exact, bound if mode == "LINEAR" else None, data_type, layout)


def _upsample(mode: str, data_type: Any, layout: str) -> Variant:
    in_sizes = (1, 2, 3, 2)
    out_sizes = (1, 2, 6, 6)
    desc = dml.Upsample2DOperatorDesc(
        input_tensor=tensor(data_type, in_sizes, _strides(layout, in_sizes, 2)),
        output_tensor=tensor(data_type, out_sizes, _strides(layout, out_sizes, 1)),
        scale_size={"Width": 3, "Height": 2},
        interpolation_mode=mode,
    )
    x = values(data_type, in_sizes, 3)
    linear = mode == "LINEAR"
    exact, bound = resample_reference(x, out_sizes, (1, 1, 2, 3), (0.5,) * 4, (-0.5,) * 4, linear=linear)
    return _variant(desc, x, exact, bound if linear else None, data_type, layout)


def _value_scale(data_type: Any, layout: str) -> Variant:
    sizes = (2, 3, 2, 3)
    bias = (0.5, -1.0, 2.0)
    desc = dml.ValueScale2DOperatorDesc(
        input_tensor=tensor(data_type, sizes, _strides(layout, sizes, 2)),
        output_tensor=tensor(data_type, sizes, _strides(layout, sizes, 1)),
        scale=0.25,
        bias=bias,
    )
    x = values(data_type, sizes, 4)
    expected = (x.astype(np.float32) * np.float32(0.25) + np.float32(bias).reshape(1, 3, 1, 1)).astype(x.dtype)
    return _variant(desc, x, expected, None, data_type, layout)


def _variant(desc: Any, x: Any, exact: Any, bound: Any, data_type: Any, layout: str) -> Variant:
    def problem(got: dict[str, Any]) -> str | None:
        if bound is None:
            return bit_problem(got, {"output_tensor": np.asarray(exact, dtype=NUMPY_DTYPE[data_type])})
        try:
            check_linear(got["output_tensor"], exact, bound, data_type)
        except AssertionError as error:
            return f"output_tensor: {error}"
        return None

    offsets = offsets_at(desc, OFFSET) if layout == "strided" else {}
    return Variant(desc, {"input_tensor": x}, problem, offsets)


def variant_of(label: str) -> Variant:
    *name, type_name, layout = label.split()
    data_type = T[type_name]
    if name[0] == "UPSAMPLE_2D":
        return _upsample("NEAREST_NEIGHBOR" if name[1] == "NEAREST" else "LINEAR", data_type, layout)
    if name[0] == "VALUE_SCALE_2D":
        return _value_scale(data_type, layout)
    return _resample(" ".join(name), data_type, layout)


def short_input(device: Any) -> None:
    """The negative control: RESAMPLE1 NEAREST reading an input buffer one element shorter than its binding says."""
    desc = dml.Resample1OperatorDesc(
        input_tensor=tensor(T.FLOAT32, (4,)),
        output_tensor=tensor(T.FLOAT32, (8,)),
        interpolation_mode="NEAREST_NEIGHBOR",
        scales=(2.0,),
        input_pixel_offsets=(0.5,),
        output_pixel_offsets=(-0.5,),
    )
    dispatch_short(device, desc, {"input_tensor": values(T.FLOAT32, (4,), 1)}, "input_tensor")


if __name__ == "__main__":
    sys.exit(
        sweep_main(
            Sweep(every_variant, sampled_variants, variant_of, kernel_names),
            "one variant per class (the default test's share), not every one",
            NegativeControl(
                "--short-input", "the resample negative control: an input buffer one element short", short_input
            ),
        )
    )
