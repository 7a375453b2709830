"""Run the operators that compute with opencl/float_math.h, float_trig.h and float_pow.h on Oclgrind's simulated device:
the fifteen unary math operators but SQRT and RECIP, POW and CONSTANT_POW, at FLOAT32 and FLOAT16, packed (an odd
count) and strided (padded rows in, a transposed output), through the object model (tests/helpers/structured_runs.py)
with each buffer exactly as large as its binding, so that an access past a tensor is an access past its buffer. Under
the uninitialised pass (OCLGRIND_UNINITIALIZED=1) the output buffers are left unwritten, so a select that reads a
value never computed, or a store of one, is reported. Results are checked against the float64 references (the
operator table's MATH_FUNCTIONS, NumPy's power) within each operator's FLOAT32_ULPS, or one half ULP at FLOAT16.

Started by test_transcendental_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the kernels each ran (the
element-wise template, ``elementwise``), and the mismatches.

    python oclgrind_transcendental_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from dmlpy.ops._base import OperatorDescBase
from tests.device.unary_math.sweeps import float32_sweep
from tests.helpers.oclgrind_sweep import Arrays, Sweep, Variant, kernel_names, sweep_main
from tests.helpers.operators import MATH_FUNCTIONS, descriptor, row_of, unary_descriptor
from tests.helpers.ulps import ulp_error

T = dml.TensorDataType
OPERATORS: dict[str, type[OperatorDescBase]] = {
    **{
        desc.OPERATOR_TYPE.name.removeprefix("ELEMENT_WISE_"): desc
        for desc in MATH_FUNCTIONS
        if desc not in (dml.ElementWiseSqrtOperatorDesc, dml.ElementWiseRecipOperatorDesc)
    },
    "POW": dml.ElementWisePowOperatorDesc,
    "CONSTANT_POW": dml.ElementWiseConstantPowOperatorDesc,
}
"""The variant classes by name: every operator whose float arithmetic is those headers' functions."""
TYPES = {"float32": (T.FLOAT32, np.float32), "float16": (T.FLOAT16, np.float16)}
LAYOUTS = ("packed", "strided")
PACKED_SIZES, STRIDED_SIZES = (37,), (5, 7)
STRIDES = {"input_tensor": (9, 1), "exponent_tensor": (1, 6), "output_tensor": (1, 5)}
"""The strided variant's tensors: rows padded to 9 elements, an exponent read down its columns, a transposed output."""
CONSTANT_EXPONENT = -2.5


def every_variant() -> list[str]:
    """Every ``operator type layout`` label, in the order the sweep runs them."""
    return [f"{name} {type_} {layout}" for name in OPERATORS for type_ in TYPES for layout in LAYOUTS]


def sampled_variants() -> list[str]:
    """One variant per operator, the type and layout taking turns so that each pair appears: the default share."""
    types = list(TYPES)
    return [f"{name} {types[k % 2]} {LAYOUTS[k // 2 % 2]}" for k, name in enumerate(OPERATORS)]


def values(desc: type[OperatorDescBase], count: int, dtype: Any) -> np.ndarray:
    """``count`` inputs of ``desc``'s sweep (bases on [-4, 4] for the powers), in ``dtype``."""
    if desc in MATH_FUNCTIONS:
        return float32_sweep(desc, count, seed=47).astype(dtype)
    return np.random.default_rng(47).uniform(-4.0, 4.0, count).astype(dtype)


def reference(desc: Any, inputs: Arrays) -> np.ndarray:
    """The float64 result of ``desc`` on ``inputs``."""
    x = inputs["input_tensor"].astype(np.float64)
    if isinstance(desc, dml.ElementWisePowOperatorDesc):
        return np.power(x, inputs["exponent_tensor"].astype(np.float64))
    if isinstance(desc, dml.ElementWiseConstantPowOperatorDesc):
        return np.power(x, CONSTANT_EXPONENT)
    return MATH_FUNCTIONS[type(desc)](x)


def within_bound(desc: Any, inputs: Arrays, bound: float) -> Callable[[Arrays], str | None]:
    def problem(got: Arrays) -> str | None:
        with np.errstate(all="ignore"):
            error = ulp_error(got["output_tensor"], reference(desc, inputs))
        wrong = np.flatnonzero(error.reshape(-1) > bound)
        return None if wrong.size == 0 else f"{wrong.size} results beyond {bound} ULPs, first at {wrong[:8].tolist()}"

    return problem


def variant_of(label: str) -> Variant:
    name, type_, layout = label.split()
    desc_class, (data_type, dtype) = OPERATORS[name], TYPES[type_]
    sizes = PACKED_SIZES if layout == "packed" else STRIDED_SIZES
    strides = {} if layout == "packed" else STRIDES
    count = int(np.prod(sizes))
    inputs = {"input_tensor": values(desc_class, count, dtype).reshape(sizes)}
    if desc_class is dml.ElementWisePowOperatorDesc:
        exponents = np.round(np.random.default_rng(48).uniform(-3.0, 3.0, count) * 2) / 2  # halves: integral ones too
        inputs["exponent_tensor"] = exponents.astype(dtype).reshape(sizes)
        slots = ("input_tensor", "exponent_tensor", "output_tensor")
        desc = descriptor(
            row_of(desc_class), sizes, dict.fromkeys(slots, data_type), {slot: strides.get(slot) for slot in slots}
        )
    else:
        options = {"exponent": CONSTANT_EXPONENT} if desc_class is dml.ElementWiseConstantPowOperatorDesc else {}
        desc = unary_descriptor(
            desc_class,
            sizes,
            data_type,
            input_strides=strides.get("input_tensor"),
            output_strides=strides.get("output_tensor"),
            **options,
        )
    bound = float(desc_class.FLOAT32_ULPS) if data_type == T.FLOAT32 else 1.0
    return Variant(desc, inputs, within_bound(desc, inputs, bound))


if __name__ == "__main__":
    sys.exit(
        sweep_main(
            Sweep(every_variant, sampled_variants, variant_of, kernel_names),
            "one variant per operator (the default test's share), not every one",
        )
    )
