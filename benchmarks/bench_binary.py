"""DirectML's binary arithmetic operators (issue 31, group 3: ADD, SUBTRACT, MULTIPLY, DIVIDE, MIN, MAX, MEAN,
DIFFERENCE_SQUARE) alone on packed FLOAT32 and INT32 tensors, and a fused float chain of five unary and binary
operators, side by side with copy kernels of their bytes, NumPy and onnxruntime, in one run.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_binary.py --json /tmp/binary.json    # 16M elements, a minute or two
    .venv/bin/python benchmarks/bench_binary.py --quick                    # a smoke run: 64K elements, seconds

Each operator alone, per type, through the object model on pre-bound device buffers (bench_engine.Bound), on
dmlpy's default device and launch profile:

    kernel      the dispatch's own time on a profiling queue, median of 15, taking turns with the copy kernel
    copy        the copy kernel (32-bit words) of the operator's bytes: 1.5 times an input's words, so that it reads
                and writes as many bytes as the operator (two inputs read, one output written); copy / kernel is
                the operator's speed against memory (the issue's target: >= 0.9 for memory-bound operators)
    numpy       NumPy's function into a preallocated array (``out=``), wall time against the dispatch's own
                (record_dispatch + wait), the two taking turns

Two chains (bench_math.py's chain machinery: fused vs node by node, the copy kernel of its input and output bytes,
NumPy, onnxruntime's CPU provider where installed)::

    five_ops        FLOAT32 x -> Multiply(x, 0.5) = m -> Add(m, 1) -> Max(., x) -> Min(., 900) -> Subtract(., m)
    qdq_add_relu6   INT8 -> DequantizeLinear -> Add (bias) -> Clip (ReLU6) -> QuantizeLinear -> INT8, at 4x the
                    size (64M elements for the default 16M): the issue's target, fused >= 0.8x the copy kernel

Timings are never asserted by the test suite; tests/device/artefacts/test_bench_binary_smoke.py runs ``--quick``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import Bound
from bench_math import chain_rows, run_meta
from bench_round import (
    Dml,
    budget_for,
    event_timings,
    measure_together,
    parse_size,
    print_memory_bound_count,
    write_results,
)

from dmlpy.ops.element_wise_arithmetic import ARITHMETIC_OPERATORS

NUMPY: dict[str, Callable[..., Any]] = {
    "ADD": np.add,
    "SUBTRACT": np.subtract,
    "MULTIPLY": np.multiply,
    "DIVIDE": np.divide,
    "MIN": np.fmin,
    "MAX": np.fmax,
}
"""NumPy's ufunc of each operator where it has one (MEAN and DIFFERENCE_SQUARE take two NumPy calls: not timed;
integer DIVIDE is no NumPy ufunc of one type)."""


def operands(dtype: np.dtype[Any], n: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    rng = np.random.default_rng(33)
    if dtype.kind == "f":
        return rng.uniform(-1000, 1000, n).astype(dtype), rng.uniform(0.5, 1000, n).astype(dtype)
    return rng.integers(-(1 << 20), 1 << 20, n, dtype=dtype), rng.integers(1, 1 << 10, n, dtype=dtype)


def operator_row(
    dml_: Dml, desc_class: Any, a: np.ndarray[Any, Any], b: np.ndarray[Any, Any], copy_events: Any, quick: bool
) -> dict[str, Any]:
    n = a.size
    packed = dml_.dml.BufferTensorDesc(data_type="FLOAT32" if a.dtype.kind == "f" else "INT32", sizes=(n,))
    bound = Bound(dml_, desc_class(a_tensor=packed, b_tensor=packed, output_tensor=packed), [a, b])
    events = event_timings({"kernel": bound.events, "copy": copy_events}, quick)
    kernel, copy = events["kernel"].seconds, events["copy"].seconds
    name = desc_class.OPERATOR_TYPE.name.removeprefix("ELEMENT_WISE_")
    ufunc = NUMPY.get(name) if not (name == "DIVIDE" and a.dtype.kind != "f") else None
    out = np.empty_like(a)
    walls: dict[str, Callable[[], object]] = {"dispatch": bound.wall}
    if ufunc is not None:
        walls["numpy"] = lambda: ufunc(a, b, out=out)
    wall = measure_together(walls, budget_for(3 * a.nbytes, quick))
    numpy_s = wall["numpy"].seconds if "numpy" in wall else None
    return {
        "operator": desc_class.OPERATOR_TYPE.name,
        "dtype": a.dtype.name,
        "elements": n,
        "kernel_s": kernel,
        "copy_s": copy,
        "copy_over_kernel": copy / kernel,
        "dispatch_s": wall["dispatch"].seconds,
        "numpy_s": numpy_s,
        "numpy_over_dispatch": None if numpy_s is None else numpy_s / wall["dispatch"].seconds,
    }


def operator_rows(dml_: Dml, n: int, quick: bool) -> list[dict[str, Any]]:
    rows = []
    for dtype in (np.dtype(np.float32), np.dtype(np.int32)):
        a, b = operands(dtype, n)
        _, copy_events = dml_.copy_kernel(3 * n // 2, 4)
        for desc_class in ARITHMETIC_OPERATORS:
            row = operator_row(dml_, desc_class, a, b, copy_events, quick)
            rows.append(row)
            ratio = row["numpy_over_dispatch"]
            print(
                f"{row['operator']:32} {dtype.name:8} kernel {row['kernel_s'] * 1e3:8.2f} ms  "
                f"copy {row['copy_s'] * 1e3:7.2f} ms  copy/kernel {row['copy_over_kernel']:5.2f}  "
                f"numpy/dispatch {'-' if ratio is None else f'{ratio:.2f}x'}",
                flush=True,
            )
    print_memory_bound_count(rows)
    return rows


def five_ops(dml: Any, n: int) -> tuple[Any, list[np.ndarray[Any, Any]], Callable[[], object], Any]:
    """x -> Multiply(x, 0.5) = m -> Add(m, 1) -> Max(., x) -> Min(., 900) -> Subtract(., m) -> y, FLOAT32, x in
    [0, 1000): five memory-bound operators, so the chain measures fusion itself (graph desc, its inputs, NumPy's
    chain, the ONNX model's nodes and initializers), as bench_math's chains."""
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    x = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=(n,)))
    m = dml.graph.multiply(x, 0.5)
    y = dml.graph.subtract(dml.graph.min(dml.graph.max(dml.graph.add(m, 1.0), x), 900.0), m)
    data = np.random.default_rng(5).uniform(0, 1000, n).astype(np.float32)
    half, temporary, out = np.empty_like(data), np.empty_like(data), np.empty_like(data)

    def numpy_chain() -> None:
        np.multiply(data, np.float32(0.5), out=half)
        np.add(half, np.float32(1), out=temporary)
        np.fmax(temporary, data, out=temporary)
        np.fmin(temporary, np.float32(900), out=temporary)
        np.subtract(temporary, half, out=out)

    onnx_nodes = [
        ("Mul", ["x", "half"], "m", {}),
        ("Add", ["m", "one"], "a", {}),
        ("Max", ["a", "x"], "b", {}),
        ("Min", ["b", "top"], "c", {}),
        ("Sub", ["c", "m"], "y", {}),
    ]
    constants = {"half": np.float32(0.5), "one": np.float32(1), "top": np.float32(900)}
    return g.desc_for([y]), [data], numpy_chain, (onnx_nodes, constants)


def qdq_add_relu6(dml: Any, n: int) -> tuple[Any, list[np.ndarray[Any, Any]], Callable[[], object], Any]:
    """INT8 -> DequantizeLinear (scale 1/20, zero point 3) -> Add (bias 0.25) -> Clip (ReLU6: 0 to 6) ->
    QuantizeLinear (scale 6/255, zero point -128) -> INT8, per-tensor scales and zero points: the issue's realistic
    quantized chain (graph desc, inputs, NumPy's chain, the ONNX model), as bench_math's chains."""
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    x = g.input(dml.BufferTensorDesc(data_type="INT8", sizes=(n,)))
    scalar = {
        name: g.input(dml.BufferTensorDesc(data_type=data_type, sizes=(n,), strides=(0,)))
        for name, data_type in (("s1", "FLOAT32"), ("z1", "INT8"), ("s2", "FLOAT32"), ("z2", "INT8"))
    }
    real = dml.graph.add(dml.graph.dequantize_linear(x, scalar["s1"], scalar["z1"]), 0.25)
    y = dml.graph.quantize_linear(dml.graph.clip(real, 0.0, 6.0), scalar["s2"], scalar["z2"])
    values = {"s1": np.float32(0.05), "z1": np.int8(3), "s2": np.float32(6 / 255), "z2": np.int8(-128)}
    data = np.random.default_rng(6).integers(-128, 128, n, dtype=np.int8)
    temporary, out = np.empty(n, np.float32), np.empty(n, np.int8)

    def numpy_chain() -> None:
        np.subtract(data, values["z1"], out=temporary, dtype=np.float32)
        np.multiply(temporary, values["s1"], out=temporary)
        np.add(temporary, np.float32(0.25), out=temporary)
        np.clip(temporary, np.float32(0), np.float32(6), out=temporary)
        np.divide(temporary, values["s2"], out=temporary)
        np.rint(temporary, out=temporary)
        np.add(temporary, values["z2"], out=temporary)
        np.clip(temporary, -128, 127, out=temporary)
        np.copyto(out, temporary, casting="unsafe")

    onnx_nodes = [
        ("DequantizeLinear", ["x", "s1", "z1"], "r", {}),
        ("Add", ["r", "bias"], "a", {}),
        ("Clip", ["a", "low", "high"], "c", {}),
        ("QuantizeLinear", ["c", "s2", "z2"], "y", {}),
    ]
    constants = {**values, "bias": np.float32(0.25), "low": np.float32(0), "high": np.float32(6)}
    return g.desc_for([y]), [data, *(np.array([v]) for v in values.values())], numpy_chain, (onnx_nodes, constants)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="16M", help="elements (K and M are powers of two); default 16M")
    parser.add_argument("--quick", action="store_true", help="64K elements and few repeats: a smoke run")
    parser.add_argument("--json", type=Path, help="output file (default benchmarks/results/binary-<time>.json)")
    args = parser.parse_args(argv)
    n = parse_size("64K" if args.quick else args.size)
    dml_ = Dml(None)
    meta = run_meta(dml_, n)
    operators = operator_rows(dml_, n, args.quick)
    print()
    chains = chain_rows(dml_, n, args.quick, {"five_ops": five_ops})
    chains += chain_rows(dml_, 4 * n, args.quick, {"qdq_add_relu6": qdq_add_relu6})
    path = write_results(args.json, "binary", {"meta": meta, "operators": operators, "chains": chains}, indent=1)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
