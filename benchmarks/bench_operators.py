"""Every operator of dmlpy's table that the other benchmarks leave out (issue 31's speed point: CAST, POW and
CONSTANT_POW, the comparisons and logic, IS_NAN and IS_INFINITY, the signs, clamps and their gradients, the bit
operators, MODULUS, IF, ATAN_YX, QUANTIZED_LINEAR_ADD, ADD1, IDENTITY, CEIL, FLOOR, the activations, the softmax
family along an axis, the extensions), each alone on packed tensors at FLOAT32 and its natural integer type, against a
copy kernel of its bytes.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_operators.py --json /tmp/operators.json     # 16M elements, about 7 minutes
    .venv/bin/python benchmarks/bench_operators.py --only CAST,ELEMENT_WISE_POW    # some operators
    .venv/bin/python benchmarks/bench_operators.py --quick                        # a smoke run: 64K elements

Each row is one operator at one set of tensor types, through the object model on pre-bound device buffers
(bench_engine.Bound), on dmlpy's default device and launch profile, built by the operator test table's own
``descriptor`` from the row's first case with a FLOAT32 tensor (tests/helpers/operators.py; the softmax family's
along its last axis), and from that case with its FLOAT32 tensors made INT32, where the operator takes INT32, as
the natural integer row; an operator with no FLOAT32 case (the logical operators, the shifts, QUANTIZED_LINEAR_ADD)
runs its own integer case, and CAST the issue's six pairs. Scales and zero points are per-tensor (0 strides), as
in a quantized network.

    kernel      the dispatch's own time on a profiling queue (bench_graph.dispatch_events), median of 15, taking turns
                with the copy kernel
    copy        the copy kernel (bench_round.py's, 32-bit words) over the operator's bytes: it reads and writes
                half of what the operator's tensors hold each (its inputs' bytes plus its output's), so that both
                move as many; copy / kernel is the operator's speed against memory (the issue's target: >= 0.9
                for the memory-bound operators)
    per core    elements per second per compute unit of the kernel time: the bound of an operator that
                computation bounds
    in cache    the kernel's time per element at the full size over its time per element at a 16th of the size
                (1M elements: its tensors in the last-level cache), launched in turn with the two others: near 1,
                memory's speed plays no part and computation bounds the operator. Read for rows below 0.9 only:
                a memory-bound kernel's 1M launch is short enough for launch costs to blur it

Operators with rows elsewhere: ELSEWHERE. Timings are never asserted by the test suite;
tests/device/artefacts/test_bench_operators_smoke.py runs ``--quick``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # the repository root, for tests.helpers, after PYTHONPATH
from bench_engine import Bound
from bench_math import run_meta
from bench_round import Dml, event_timings, parse_size, print_memory_bound_count, write_results

from dmlpy.errors import DmlError
from dmlpy.ops import (
    OPERATORS,
    DequantizeOperatorDesc,
    ElementWiseDequantizeLinearOperatorDesc,
    ElementWiseQuantizeLinearOperatorDesc,
    ElementWiseRoundOperatorDesc,
    QuantizeOperatorDesc,
)
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops.depth_space import DEPTH_SPACE_OPERATORS
from dmlpy.ops.element_wise_arithmetic import ARITHMETIC_OPERATORS
from dmlpy.ops.element_wise_math import MATH_OPERATORS
from dmlpy.ops.gemm import GemmOperatorDesc
from dmlpy.ops.join_split import JoinOperatorDesc, SplitOperatorDesc
from dmlpy.ops.matrix_multiply_integer import INTEGER_MATRIX_OPERATORS
from dmlpy.ops.padding import PADDING_OPERATORS
from dmlpy.ops.reduction import REDUCTION_OPERATORS
from dmlpy.ops.scalar_union import ScalarUnion
from dmlpy.ops.slice import SLICE_OPERATORS
from dmlpy.ops.tile import TileOperatorDesc
from tests.helpers.dtypes import DATA_TYPE
from tests.helpers.operators import descriptor, row_of
from tests.helpers.row_model import Case, OperatorRow, PerRank

_STRUCTURED_RUNNING = [desc for desc in OPERATORS.values() if desc.runs() and issubclass(desc, StructuredDesc)]
"""The operators that are not element-wise and run: measured by their families' benchmarks, or not yet."""

ELSEWHERE: dict[type[OperatorDescBase], str] = {
    **dict.fromkeys(_STRUCTURED_RUNNING, "not measured yet: the families' benchmarks cover movement, REDUCE, GEMM"),
    **dict.fromkeys((GemmOperatorDesc, *INTEGER_MATRIX_OPERATORS), "bench_gemm.py"),
    **dict.fromkeys((*SLICE_OPERATORS, JoinOperatorDesc, SplitOperatorDesc, *PADDING_OPERATORS), "bench_movement.py"),
    **dict.fromkeys((TileOperatorDesc, *DEPTH_SPACE_OPERATORS), "bench_movement.py"),
    **dict.fromkeys(REDUCTION_OPERATORS, "bench_reduce.py"),
    **dict.fromkeys(MATH_OPERATORS, "bench_math.py"),
    **dict.fromkeys(ARITHMETIC_OPERATORS, "bench_binary.py"),
    ElementWiseRoundOperatorDesc: "bench_round.py (--extras operators: 64M), bench_engine.py",
    ElementWiseQuantizeLinearOperatorDesc: "bench_round.py (--extras operators: 64M), bench_engine.py",
    ElementWiseDequantizeLinearOperatorDesc: "bench_round.py (--extras operators: 64M), bench_engine.py",
    QuantizeOperatorDesc: "bench_quantize4.py",
    DequantizeOperatorDesc: "bench_quantize4.py",
    **{desc: "none: dmlpy validates it and does not run it yet" for desc in OPERATORS.values() if not desc.runs()},
}
"""The operators whose rows other scripts measure, and where (the operators dmlpy does not run yet: nowhere)."""

ROW_LENGTH = 1024
"""Elements of each group the softmax family reduces (its last axis): a classifier's row of logits."""

F32, F16, I32, I8, U8, U32 = (np.dtype(t) for t in ("f4", "f2", "i4", "i1", "u1", "u4"))
CAST_PAIRS = ((F32, I32), (I32, F32), (F32, F16), (F16, F32), (I8, F32), (F32, I8))
"""CAST's natural pairs (the issue's): float32 <-> int32, float32 <-> float16, int8 <-> float32."""
SHIFTS = ("ELEMENT_WISE_BIT_SHIFT_LEFT", "ELEMENT_WISE_BIT_SHIFT_RIGHT")
"""Operators whose test cases are 8- and 64-bit only: their row here is UINT32."""


def along_last_axis(case: Case) -> bool:
    """Whether ``case`` reduces the last axis or names none (an element-wise operator; the older softmax forms,
    which reduce the last)."""
    axes = case.options.get("axes")
    return not isinstance(axes, PerRank) or axes.name == "last"


def retyped(case: Case, old: np.dtype[Any], new: np.dtype[Any]) -> Case:
    """``case`` with its tensors of ``old`` made ``new``, and typed bounds (CLIP1's MinMaxDataType, Min and Max)
    made ``new`` too, truncated."""
    options = dict(case.options)
    if options.get("min_max_data_type") == DATA_TYPE[old]:
        options["min_max_data_type"] = DATA_TYPE[new]
        for bound in ("min", "max"):
            value = options[bound].read_as(DATA_TYPE[old], bound)
            options[bound] = ScalarUnion.of(int(value), DATA_TYPE[new])
    return Case({name: new if dtype == old else dtype for name, dtype in case.dtypes.items()}, options)


def cases(dml_: Dml, row: OperatorRow) -> Iterator[Case]:
    """The row's first case with a FLOAT32 tensor and that case at INT32 where the operator takes it; an
    operator's first case where none has a FLOAT32 tensor (at UINT32 for the shifts); CAST's pairs."""
    if row.desc.OPERATOR_TYPE.name == "CAST":
        yield from (Case({"input_tensor": a, "output_tensor": b}) for a, b in CAST_PAIRS)
        return
    float32 = next((c for c in row.cases if F32 in c.dtypes.values() and along_last_axis(c)), None)
    if float32 is None:  # an operator on integers only: its first case, the shifts at 32 bits
        first = row.cases[0]
        yield retyped(first, first.dtypes[row.first], U32) if row.desc.OPERATOR_TYPE.name in SHIFTS else first
        return
    yield float32
    integer = retyped(float32, F32, I32)
    if accepted(dml_, row, integer):
        yield integer


def sizes_of(row: OperatorRow, n: int) -> tuple[int, ...]:
    return (n,) if row.reduction is None else (n // ROW_LENGTH, ROW_LENGTH)


def build(row: OperatorRow, case: Case, sizes: tuple[int, ...]) -> OperatorDescBase:
    """``case`` on packed tensors of ``sizes``, scales and zero points per tensor (0 strides)."""
    per_tensor = (0,) * len(sizes)
    strides = {name: per_tensor for name in case.dtypes if "scale" in name or "zero_point" in name}
    return descriptor(row, sizes, case.dtypes, strides, **case.options)


def accepted(dml_: Dml, row: OperatorRow, case: Case) -> bool:
    """Whether the device creates the operator at ``case``'s types (its support table allows them)."""
    try:
        dml_.device.create_operator(build(row, case, (64,)))
    except DmlError:
        return False
    return True


def domain(name: str, field: str, dtype: np.dtype[Any]) -> tuple[float, float]:
    """Where the values of operator ``name``'s tensor ``field`` lie (both ends included for integers): where its
    result is an ordinary number (no NaN, no infinity, no division by zero, shifts within the width, a condition
    or a logical value 0 or 1), so that no row times a special case instead of the operator."""
    integer = dtype.kind in "iu"
    if field == "condition_tensor" or (name.startswith("ELEMENT_WISE_LOGICAL_") and dtype == U8):
        return (0, 1)
    if field == "b_tensor" and name in SHIFTS:
        return (0, 8 * dtype.itemsize - 1)
    if "scale" in field:
        return (0.01, 0.1)
    if "zero_point" in field:
        return (-8 if dtype.kind == "i" else 0, 8)
    if "POW" in name:  # a positive float base: a negative one to a fractional power is NaN
        if field == "exponent_tensor":
            return (0, 8) if integer else (-3.0, 3.0)
        return (-8, 8) if integer else (0.5, 4.0)
    if field == "b_tensor" and "MODULUS" in name:
        return (1, 1 << 10) if integer else (0.5, 1000.0)
    if integer:
        info = np.iinfo(dtype)
        return (max(int(info.min), -(1 << 20)), min(int(info.max), 1 << 20))
    return (-8.0, 8.0)


def operand(name: str, field: str, dtype: np.dtype[Any], count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` values of ``domain``, uniformly."""
    low, high = domain(name, field, dtype)
    if dtype.kind == "f":
        return rng.uniform(low, high, count).astype(dtype)
    return rng.integers(int(low), int(high), count, dtype=dtype, endpoint=True)


def label(case: Case, row: OperatorRow) -> str:
    """``float32 -> int32``, ``uint8, float32, float32 -> float32``: the inputs' types (scales and zero points
    aside), then the output's."""
    data = [f for f in row.desc.INPUTS if f in case.dtypes and "scale" not in f and "zero_point" not in f]
    inputs = ", ".join(case.dtypes[f].name for f in data)
    return f"{inputs} -> {case.dtypes[row.output].name}"


def bound(dml_: Dml, row: OperatorRow, case: Case, sizes: tuple[int, ...]) -> tuple[Bound, int]:
    """``case`` bound to device buffers holding ``operand``'s values, and the bytes its tensors hold."""
    desc = build(row, case, sizes)
    rng = np.random.default_rng(31)
    arrays: list[np.ndarray | None] = []
    for field, tensor in zip(desc.input_fields(), desc.input_tensors(), strict=True):
        if tensor is None:
            arrays.append(None)
            continue
        dtype = case.dtypes[field]
        count = -(-tensor.desc.total_tensor_size_in_bytes // dtype.itemsize)
        arrays.append(operand(row.desc.OPERATOR_TYPE.name, field, dtype, count, rng))
    tensors = [t for t in (*desc.input_tensors(), *desc.output_tensors()) if t is not None]
    return Bound(dml_, desc, arrays), sum(t.desc.total_tensor_size_in_bytes for t in tensors)


def operator_row(dml_: Dml, row: OperatorRow, case: Case, n: int, quick: bool) -> dict[str, Any]:
    """One case at ``n`` elements: its kernel, the copy kernel of its bytes and its kernel at a 16th of the size
    (in cache) taking turns."""
    sizes = sizes_of(row, n)
    operator, nbytes = bound(dml_, row, case, sizes)
    small, _ = bound(dml_, row, case, sizes_of(row, n // 16))
    _, copy_events = dml_.copy_kernel(nbytes // 8, 4)
    events = event_timings({"kernel": operator.events, "copy": copy_events, "small": small.events}, quick)
    del operator, small
    kernel, copy, in_cache = (events[name].seconds for name in ("kernel", "copy", "small"))
    return {
        "operator": str(row.desc.OPERATOR_TYPE.c_name),
        "types": label(case, row),
        "elements": n,
        "bytes": nbytes,
        "kernel_s": kernel,
        "copy_s": copy,
        "copy_over_kernel": copy / kernel,
        "elements_per_s_per_core": n / kernel / dml_.device.cl_device.max_compute_units,
        "in_cache_s": in_cache,
        "in_cache_gain": (kernel / n) / (in_cache / (n // 16)),
    }


def measured(only: set[str] | None) -> list[OperatorRow]:
    """The table's operators that no other script measures (``only``: those of these C names or names)."""
    rows = [row_of(desc) for desc in OPERATORS.values() if desc not in ELSEWHERE]
    if only is None:
        return rows
    return [r for r in rows if only & {r.name, r.desc.OPERATOR_TYPE.name, str(r.desc.OPERATOR_TYPE.c_name)}]


def operator_rows(dml_: Dml, n: int, only: set[str] | None, quick: bool) -> list[dict[str, Any]]:
    results = []
    for row in measured(only):
        for case in cases(dml_, row):
            result = operator_row(dml_, row, case, n, quick)
            results.append(result)
            print(
                f"{result['operator'].removeprefix('DML_OPERATOR_'):42} {result['types']:34} "
                f"kernel {result['kernel_s'] * 1e3:8.2f} ms  copy {result['copy_s'] * 1e3:7.2f} ms  "
                f"copy/kernel {result['copy_over_kernel']:5.2f}  "
                f"{result['elements_per_s_per_core'] / 1e6:7.0f} M/s/core  in cache {result['in_cache_gain']:4.2f}x",
                flush=True,
            )
    print_memory_bound_count(results)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="16M", help="elements (K and M are powers of two); default 16M")
    parser.add_argument("--only", help="comma-separated operator names (CAST, ACTIVATION_ELU, ...): those only")
    parser.add_argument("--quick", action="store_true", help="64K elements and few repeats: a smoke run")
    parser.add_argument("--json", type=Path, help="output file (default benchmarks/results/operators-<time>.json)")
    args = parser.parse_args(argv)
    n = parse_size("64K" if args.quick else args.size)
    if n % (16 * ROW_LENGTH):
        parser.error(f"--size: {n} elements is no multiple of {16 * ROW_LENGTH} (16 softmax rows of {ROW_LENGTH})")
    dml_ = Dml(None, extensions=True)
    meta = run_meta(dml_, n)
    only = None if args.only is None else set(args.only.split(","))
    rows = operator_rows(dml_, n, only, args.quick)
    elsewhere = {str(d.OPERATOR_TYPE.c_name): script for d, script in ELSEWHERE.items()}
    path = write_results(args.json, "operators", {"meta": meta, "operators": rows, "elsewhere": elsewhere}, indent=1)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
