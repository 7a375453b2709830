"""Run the indexing operators on Oclgrind's simulated device (opencl/indexing.cl's gather, scatter and one_hot, and
the scatters' Identity copy before them): GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1, SCATTER_ELEMENTS,
SCATTER_ND and ONE_HOT, each element width (8, 16, 32 and 64 bits: one data type each) and index type (UINT32,
INT32, INT64, UINT64), packed and strided, through the object model (tests/helpers/structured_runs.py) with each
buffer exactly as large as its binding (no slack: an access past a tensor is an access past its buffer); the strided
variants pad every tensor's rows and bind each at a byte offset. Every variant's indices hold negative ones (signed
types) and ones outside their dimension (past the end, before -size, the type's extremes): a gather reads the
nearest element, a scatter writes nothing, ONE_HOT's sequence is OffValue, and none may touch memory outside its
tensors. Results are compared bit for bit with tests/device/indexing/cases.py's onnx.reference results. Under the
uninitialised pass (OCLGRIND_UNINITIALIZED=1) the output buffer is left unwritten, so a read of it or a store of a
value never loaded is reported (a scatter's elements come from its Identity copy); the memory pass fills it with
sentinel bytes and checks that none outside its elements changed.

Started by test_indexing_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the kernels each ran
(``gather``, ``scatter``, ``one_hot``, the Identity copy ``elementwise``) and the mismatches.

``--short-input`` is this script's own negative control: GATHER (INT64, packed: an index past the end reads the
input's last row) with an input buffer one element shorter than dmlpy is told, which Oclgrind must report as an
invalid read in ``gather``.

    python oclgrind_indexing_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-input]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.device.indexing.cases import (
    gather_case,
    gather_elements_case,
    gather_nd_case,
    one_hot_case,
    scatter_elements_case,
    scatter_nd_case,
)
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

T = dml.TensorDataType
WIDTHS = {8: T.INT8, 16: T.FLOAT16, 32: T.FLOAT32, 64: T.INT64}
"""One data type per element width: the kernels move bits, so the width is what varies their code."""
INDEX_TYPES = (T.UINT32, T.INT32, T.INT64, T.UINT64)
"""Every index type of the tables (FL 3_0 on): INDEX_T and INDEX_SIGNED, the ways an index resolves."""
LAYOUTS = ("packed", "strided")
OFFSET = 16
"""A strided variant binds every tensor at this byte offset."""
SLOTS = ("input_tensor", "indices_tensor", "updates_tensor", "values_tensor", "output_tensor")
"""Every tensor slot of the operators: a strided variant pads the rows of each its operator has."""
OPERATORS = {
    "GATHER": lambda dt, it, padded: gather_case(dt, it, padded, outside=True),
    "GATHER_ELEMENTS": lambda dt, it, padded: gather_elements_case(dt, it, 2, padded, outside=True),
    "GATHER_ND": lambda dt, it, padded: gather_nd_case(dt, it, 0, padded, outside=True),
    "GATHER_ND1": lambda dt, it, padded: gather_nd_case(dt, it, 1, padded, outside=True),
    "SCATTER_ELEMENTS": lambda dt, it, padded: scatter_elements_case(dt, it, padded, outside=True),
    "SCATTER_ND": lambda dt, it, padded: scatter_nd_case(dt, it, padded, outside=True),
    "ONE_HOT": lambda dt, it, padded: one_hot_case(dt, it, 1, padded, outside=True),
}
"""Each operator's case (cases.py), indices outside their dimensions among them."""
KERNELS = {"SCATTER_ELEMENTS": ["elementwise", "scatter"], "SCATTER_ND": ["elementwise", "scatter"]}
"""The kernels a plan runs, in order, where it is not the one indexing.cl kernel its name says (the scatters copy
InputTensor first)."""


def kernels_expected(operator: str) -> list[str]:
    return KERNELS.get(operator, ["one_hot" if operator == "ONE_HOT" else "gather"])


def every_variant() -> list[str]:
    """Every ``operator width index-type layout`` label, in the order the sweep runs them."""
    return [
        f"{op} {width} {index_type.name} {layout}"
        for op in OPERATORS
        for width in WIDTHS
        for index_type in INDEX_TYPES
        for layout in LAYOUTS
    ]


def sampled_variants() -> list[str]:
    """One variant per operator, the width, index type and layout taking turns so that each of them appears: the
    default run's cheap share."""
    widths = list(WIDTHS)
    return [
        f"{op} {widths[k % 4]} {INDEX_TYPES[3 * k % 4].name} {LAYOUTS[k // 4 % 2]}" for k, op in enumerate(OPERATORS)
    ]


def variant_of(label: str) -> Variant:
    operator, width, index_name, layout = label.split()
    strided = layout == "strided"
    desc, inputs, expected = OPERATORS[operator](WIDTHS[int(width)], T[index_name], SLOTS if strided else ())
    offsets = offsets_at(desc, OFFSET) if strided else {}
    return Variant(desc, inputs, lambda got: bit_problem(got, {"output_tensor": expected}), offsets)


def short_input(device: Any) -> None:
    """The negative control: GATHER reading an input buffer one element shorter than its binding claims."""
    variant = variant_of("GATHER 64 INT64 packed")
    dispatch_short(device, variant.desc, variant.inputs, "input_tensor")


if __name__ == "__main__":
    sys.exit(
        sweep_main(
            Sweep(every_variant, sampled_variants, variant_of, kernel_names),
            "one variant per operator (the default test's share), not every one",
            NegativeControl(
                "--short-input", "the indexing negative control: an input buffer one element short", short_input
            ),
        )
    )
