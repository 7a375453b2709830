"""Run opencl/top_k.cl and opencl/cumulative.cl on Oclgrind's simulated device: TOP_K, TOP_K1 in both
AxisDirections (a middle K, and K the whole axis: every element held), CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT
in each of their four forms (INCREASING or DECREASING, inclusive or exclusive), each element type of the operator's
table among FLOAT32, FLOAT16, INT8, INT32 and INT64, along the innermost axis (KEPT_RANK 1, the sequence
contiguous) and the outermost (the sequence strided), packed and strided (the input's rows padded and bound at a
byte offset), through the object model (tests/helpers/structured_runs.py) with each buffer exactly as large as its
binding (no slack). Results are compared with top_k_cumulative_cases.py's references (TOP_K's values bit for bit and
indices exactly, integer tallies exactly, float tallies within the documented bound). Under the uninitialised pass
(OCLGRIND_UNINITIALIZED=1) cumulative.cl's output is left unwritten, so a read of it or a store of a value never
loaded is reported. top_k.cl's outputs are filled there too: it reads back the places it has written itself (its
insertion), and Oclgrind 21.10's uninitialised plugin keeps no record of a kernel's own stores to global memory (it
reported every such read, of a place written a few lines before by the same work-item, as uninitialised); the
memory pass checks that no read reaches past the places written (the outputs' sentinel bytes and the results).

Started by test_top_k_cumulative_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind
(tests/conftest.py's ``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the
kernel each ran and the mismatches.

``--short-input`` is this script's own negative control: TOP_K1 of a packed FLOAT32 input (every element read)
with an input buffer one element shorter than dmlpy is told, which Oclgrind must report as an invalid read in
``top_k``.

    python oclgrind_top_k_cumulative_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control]
        [--short-input]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.device.movement.cases import padded_strides
from tests.device.reduction.top_k_cumulative_cases import (
    T,
    cumulative_desc,
    tally_mismatch,
    tally_values,
    tied_values,
    top_k_desc,
    top_k_mismatch,
)
from tests.helpers.oclgrind_sweep import NegativeControl, Sweep, Variant, dispatch_short, kernel_names, sweep_main

SHAPE = (3, 4, 6)
AXES = {"inner": 2, "outer": 0}
LAYOUTS = ("packed", "strided")
OFFSET = 32
"""A strided variant binds its input at this byte offset."""
WIDTHS = (T.FLOAT32, T.FLOAT16, T.INT8, T.INT32, T.INT64)
TOP_K = {
    "TOP_K": (dml.TopKOperatorDesc, True, "mid"),
    "TOP_K1_DECREASING_ALL": (dml.TopK1OperatorDesc, True, "all"),
    "TOP_K1_INCREASING": (dml.TopK1OperatorDesc, False, "mid"),
}
"""Each TOP_K variant's operator, whether it selects the largest, and its K (``mid``: half the axis; ``all``)."""
TALLIES = {
    f"{name}_{direction}{'_EXCLUSIVE' if exclusive else ''}": (operator, direction == "DECREASING", exclusive)
    for name, operator in (("SUM", dml.CumulativeSummationOperatorDesc), ("PRODUCT", dml.CumulativeProductOperatorDesc))
    for direction in ("INCREASING", "DECREASING")
    for exclusive in (False, True)
}
"""Each cumulative variant's operator, whether it runs backwards (DECREASING) and whether it is exclusive."""
OPERATORS = [*TOP_K, *TALLIES]


def types_of(name: str) -> list[Any]:
    operator = TOP_K[name][0] if name in TOP_K else TALLIES[name][0]
    held = operator.SUPPORT.rows[-1].data_types["InputTensor"]
    return [data_type for data_type in WIDTHS if data_type in held]


def every_variant() -> list[str]:
    """Every ``operator type axis layout`` label, in the order the sweep runs them."""
    return [
        f"{name} {data_type.name} {axis} {layout}"
        for name in OPERATORS
        for data_type in types_of(name)
        for axis in AXES
        for layout in LAYOUTS
    ]


def sampled_variants() -> list[str]:
    """One variant per operator form, the type, axis and layout taking turns: the default run's cheap share."""
    sample = []
    for k, name in enumerate(OPERATORS):
        types = types_of(name)
        axis = list(AXES)[k % len(AXES)]
        layout = LAYOUTS[k // len(AXES) % len(LAYOUTS)]
        sample.append(f"{name} {types[k % len(types)].name} {axis} {layout}")
    return sample


def variant_of(label: str) -> Variant:
    """The label's descriptor, its input and the check of its outputs; TOP_K's outputs filled in either pass (see
    the module's docstring)."""
    name, type_name, axis_name, layout = label.split()
    data_type, axis = T[type_name], AXES[axis_name]
    strides = padded_strides(SHAPE, 2) if layout == "strided" else None
    seed = 100 + OPERATORS.index(name) * 7 + int(data_type)
    offsets = {"input_tensor": OFFSET} if layout == "strided" else {}
    if name in TOP_K:
        operator, largest, k_name = TOP_K[name]
        k = SHAPE[axis] if k_name == "all" else SHAPE[axis] // 2
        index_type = T.UINT64 if data_type == T.INT64 else T.UINT32
        x = tied_values(data_type, SHAPE, seed)
        desc = top_k_desc(operator, data_type, index_type, SHAPE, axis, k, largest, strides)
        return Variant(
            desc,
            {"input_tensor": x},
            lambda got: top_k_mismatch(got, x, axis, k, largest),
            offsets,
            filled=True,
        )
    operator, reverse, exclusive = TALLIES[name]
    product = operator is dml.CumulativeProductOperatorDesc
    x = tally_values(data_type, product, SHAPE, seed)
    desc = cumulative_desc(operator, data_type, SHAPE, axis, reverse, exclusive, (strides, None))
    return Variant(
        desc,
        {"input_tensor": x},
        lambda got: tally_mismatch(got["output_tensor"], x, axis, reverse, exclusive, product),
        offsets,
    )


def short_input(device: Any) -> None:
    """The negative control: TOP_K1 reading an input buffer one element shorter than its binding claims."""
    variant = variant_of("TOP_K1_INCREASING FLOAT32 inner packed")
    dispatch_short(device, variant.desc, variant.inputs, "input_tensor")


if __name__ == "__main__":
    sys.exit(
        sweep_main(
            Sweep(every_variant, sampled_variants, variant_of, kernel_names),
            "one variant per operator form (the default test's share), not every one",
            NegativeControl(
                "--short-input", "the top_k.cl negative control: an input buffer one element short", short_input
            ),
        )
    )
