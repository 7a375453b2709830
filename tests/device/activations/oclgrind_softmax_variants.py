"""Run opencl/softmax.cl on Oclgrind's simulated device: SOFTMAX1, LOG_SOFTMAX1 and HARDMAX1 (the older forms run
the same kernel), FLOAT32 and FLOAT16, in four layouts of a (5, 19) tensor: ``rows`` (the last axis, packed: the
ROWS path, two whole lanes of eight and a tail of three), ``padded`` (the last axis, each row followed by three
unused elements and the tensors bound at a byte offset: the ROWS path through the rows' starts), ``short`` (rows of
5, the last axis of a (19, 5) tensor: the ROWS path with no whole lane) and ``columns`` (axis 0: the walk through
strides, ROWS 0), through the object model (tests/helpers/structured_runs.py) with each buffer exactly as large as its
binding (no slack). Results are compared with the rows' references (tests/helpers/rows_softmax.py): SOFTMAX and
LOG_SOFTMAX within the operator's FLOAT32_ULPS (1 at FLOAT16), HARDMAX exactly. Under the uninitialised pass
(OCLGRIND_UNINITIALIZED=1) the output is left unwritten: SOFTMAX at FLOAT32 reads back the terms it kept in its
output (softmax.cl's KEEP_TERMS), which Oclgrind 21.10's uninitialised plugin does not record as written (as
oclgrind_top_k_cumulative_variants.py says of top_k.cl), so those variants are filled in either pass; the memory pass
checks that no read reaches past the places written.

Started by test_softmax_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the kernel and -D defines
each ran and the mismatches.

``--short-input`` is this script's own negative control: SOFTMAX1 of packed FLOAT32 rows with an input buffer one
element shorter than dmlpy is told, which Oclgrind must report as an invalid read in ``softmax``.

    python oclgrind_softmax_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-input]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.device.movement.cases import padded_strides
from tests.helpers.dtypes import DATA_TYPE
from tests.helpers.oclgrind_sweep import (
    Arrays,
    NegativeControl,
    Sweep,
    Variant,
    dispatch_short,
    kernel_defines,
    sweep_main,
)
from tests.helpers.operators import row_of
from tests.helpers.row_model import F16, F32, Case
from tests.helpers.rows_softmax import FIRST, LAST, softmax_values
from tests.helpers.ulps import within_ulps

OPERATORS = {
    "SOFTMAX1": dml.ActivationSoftmax1OperatorDesc,
    "LOG_SOFTMAX1": dml.ActivationLogSoftmax1OperatorDesc,
    "HARDMAX1": dml.ActivationHardmax1OperatorDesc,
}
TYPES = {"FLOAT32": F32, "FLOAT16": F16}
LAYOUTS = {"rows": ((5, 19), 1), "padded": ((5, 19), 1), "short": ((19, 5), 1), "columns": ((5, 19), 0)}
"""Each layout's Sizes and the axis reduced."""
GAP = 3
"""Unused elements after each row of a padded variant."""
OFFSET = 32
"""A padded variant binds both tensors at this byte offset."""


def every_variant() -> list[str]:
    """Every ``operator type layout`` label, in the order the sweep runs them."""
    return [f"{name} {type_name} {layout}" for name in OPERATORS for type_name in TYPES for layout in LAYOUTS]


def sampled_variants() -> list[str]:
    """One variant per operator and layout, the type taking turns: the default run's cheap share."""
    types = list(TYPES)
    labels = [(name, layout) for name in OPERATORS for layout in LAYOUTS]
    return [f"{name} {types[k % len(types)]} {layout}" for k, (name, layout) in enumerate(labels)]


def keeps_terms(label: str) -> bool:
    """Whether the label runs softmax.cl's KEEP_TERMS (SOFTMAX at FLOAT32 on the ROWS path): it reads its output."""
    name, type_name, layout = label.split()
    return name == "SOFTMAX1" and type_name == "FLOAT32" and layout != "columns"


def variant_of(label: str) -> Variant:
    name, type_name, layout = label.split()
    desc_class, dtype = OPERATORS[name], TYPES[type_name]
    sizes, axis = LAYOUTS[layout]
    strides = padded_strides(sizes, GAP) if layout == "padded" else None
    tensor = dml.BufferTensorDesc(data_type=DATA_TYPE[dtype], sizes=sizes, strides=strides)
    desc = desc_class(input_tensor=tensor, output_tensor=tensor, axes=(axis,))
    x = softmax_values(dtype, int(np.prod(sizes)), np.random.default_rng(list(OPERATORS).index(name) + 7)).reshape(
        sizes
    )
    row = row_of(desc_class)
    case = Case({"input_tensor": dtype, "output_tensor": dtype}, {"axes": FIRST if axis == 0 else LAST})
    want = row.reference_in_shape({"input_tensor": x}, case)
    bound = row.ulps(dtype, case)

    def problem(got: Arrays) -> str | None:
        result = got["output_tensor"]
        wrong = within_ulps(result, want, bound) if bound else np.flatnonzero(result != want.astype(dtype))
        return f"{wrong.size} results wrong, first at {wrong[:8].tolist()}" if wrong.size else None

    offsets = {"input_tensor": OFFSET, "output_tensor": OFFSET} if layout == "padded" else {}
    return Variant(desc, {"input_tensor": x}, problem, offsets, filled=keeps_terms(label))


def short_input(device: Any) -> None:
    """The negative control: SOFTMAX1 reading an input buffer one element shorter than its binding claims."""
    variant = variant_of("SOFTMAX1 FLOAT32 rows")
    dispatch_short(device, variant.desc, variant.inputs, "input_tensor")


if __name__ == "__main__":
    sys.exit(
        sweep_main(
            Sweep(every_variant, sampled_variants, variant_of, kernel_defines),
            "one variant per operator and layout (the default test's share), not every one",
            NegativeControl(
                "--short-input", "the softmax.cl negative control: an input buffer one element short", short_input
            ),
        )
    )
