"""The reductions (issue 44: REDUCE, ARGMAX) on a (4096, 4096) tensor, 16M elements, each against a read of its
input's bytes, the copy kernel of them, NumPy and onnxruntime's CPU provider on the same inputs, on one or more
OpenCL devices side by side, in one run.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_reduce.py --json /tmp/reduce.json     # (4096, 4096), default device
    .venv/bin/python benchmarks/bench_reduce.py --devices 0,1               # PoCL and Intel's CPU runtime
    .venv/bin/python benchmarks/bench_reduce.py --quick                     # a smoke run: (256, 256)
    .venv/bin/python benchmarks/bench_reduce.py --only FLOAT16,outer        # the cases whose names hold a word
    .venv/bin/python benchmarks/bench_reduce.py --outer --only outer         # every outer-axis case

Cases, FLOAT32 but the last, keepdims (the reduced axes kept with size 1):

    SUM, AVERAGE, MAX, ARGMAX, LOG_SUM_EXP over the innermost axis (axis 1): 4096 groups of 4096 contiguous elements
    SUM over the outer axis (axis 0): 4096 groups, each a column (a step of 4096 elements)
    --outer adds MAX, ARGMAX and FLOAT16 SUM over the outer axis, and SUM over the outer axis of (16, 1M): 1M groups
    of 16 elements, a step of 1M (the name says "16 rows")
    L2 over both axes: one group of 16M elements
    SUM over the innermost axis, FLOAT16

Per case and device, through the object model on pre-bound device buffers (bench_engine.Bound), the device's
default launch profile:

    kernel      the dispatch's own time on a profiling queue, median of 15, taking turns with the two baselines
    GB/s        the input's bytes over the kernel time (the output, 4096 elements or one, is left out)
    read        the baseline, "a read of the input": a kernel reading the input's bytes 32 a work-item (vload8 of
                32-bit words), folding them by XOR and storing only where the fold equals a key (so the loads cannot
                be dropped; the store is never read), so its traffic is the input's bytes alone. read / kernel is
                the operator's speed against memory: the issue's target >= 0.8. (One word a work-item with a
                conditional store ran at copy-kernel speed, 9-16 ms for 64 MB, where this takes 3.0-3.3.)
    copy        the copy kernel (bench_round.py's, 32-bit words) over the input's bytes: it reads them and writes
                as many, so copy / kernel of a reduction at memory speed is above 1; kept for comparison with the
                movement operators' figures
    numpy, onnxruntime   their wall times over the dispatch's (record_dispatch + wait on the first device), all
                taking turns (bench_round.measure_together): > 1 means dmlpy is faster. NumPy writes into
                preallocated outputs (np.sum, np.mean, np.max, np.argmax with out=, FLOAT16 sums with dtype=float32
                as dmlpy tallies them; LOG_SUM_EXP as max, subtract,
                exp, sum, log into preallocated arrays; L2 as sqrt(np.vdot)); onnxruntime (opset 18, the axes an
                input, keepdims=1, IO binding to a preallocated output) where it is installed and has the kernel

Each result is checked against float64 NumPy's before it is timed: indices and MAX exactly, sums within a relative
tolerance of the sum of the terms' magnitudes. NumPy's and onnxruntime's must pass; dmlpy's distance over the
tolerance is kept in its row (error_over_allowed) and printed where above 1. Timings are never asserted by the test
suite; tests/device/artefacts/test_bench_reduce_smoke.py runs ``--quick``.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import Bound
from bench_math import run_meta
from bench_movement import runtime_label
from bench_round import Dml, budget_for, event_timings, measure_together, onnxruntime_model, parse_size, write_results

TARGET = 0.8
"""The issue's target: a reduction's kernel at least this fraction of the speed of a read of its input."""
READ_KERNEL = """
__kernel void read256(__global const uint *restrict src, __global uint *restrict found, const uint key)
{
    const uint8 v = vload8(get_global_id(0), src);
    const uint4 a = v.lo ^ v.hi;
    const uint2 b = a.lo ^ a.hi;
    if ((b.x ^ b.y) == key)
        found[0] = (uint)get_global_id(0);
}
"""
KEY = 0xFFFFFFFF
"""read256's key. Its store only keeps the loads from being dropped: whether it ever happens does not matter."""
TOLERANCE = {"dmlpy": 1e-5, "peer": 1e-3}
"""|got - exact| over the case's scale: dmlpy's sums are compensated (within a few units of float32's roundoff,
docs/operators/reduction.md); NumPy's and onnxruntime's float32 accumulations are not."""

Shape = tuple[int, ...]
ONNX_TYPES = {np.dtype(np.float32): 1, np.dtype(np.float16): 10, np.dtype(np.int64): 7}
"""TensorProto's element types."""


@dataclass(frozen=True)
class Case:
    """One reduction: its descriptor's builder, the input, the float64 result and the scale its error is measured
    against, NumPy's preallocated call and the ONNX node (operator, attributes, constant inputs by name)."""

    name: str
    desc: Callable[[Any], Any]
    x: np.ndarray
    exact: np.ndarray
    scale: np.ndarray
    out: np.ndarray
    numpy_call: Callable[[], object]
    onnx: tuple[str, dict[str, Any], dict[str, np.ndarray]]


def tensor(dml: Any, data_type: str, sizes: Shape) -> Any:
    return dml.TensorDesc(desc=dml.BufferTensorDesc(data_type=data_type, sizes=tuple(sizes)))


def kept(shape: Shape, axes: tuple[int, ...]) -> Shape:
    return tuple(1 if d in axes else size for d, size in enumerate(shape))


def reference(function: str, x: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The exact result in float64 and the scale of its rounding error: the sum of the terms' magnitudes (over n for
    AVERAGE), |result| for L2 and LOG_SUM_EXP (at least 1), nothing for MAX and ARGMAX."""
    x64, keep = x.astype(np.float64), {"axis": axes, "keepdims": True}
    if function == "ARGMAX":
        return np.argmax(x, axis=axes[0], keepdims=True), np.zeros(1)
    if function == "MAX":
        return x64.max(**keep), np.zeros(1)
    if function in ("SUM", "AVERAGE"):
        summed = np.abs(x64).sum(**keep)
        return (x64.sum(**keep), summed) if function == "SUM" else (x64.mean(**keep), summed / x64.size * summed.size)
    if function == "L2":
        exact = np.sqrt((x64 * x64).sum(**keep))
        return exact, exact
    top = x64.max(**keep)
    exact = np.log(np.exp(x64 - top).sum(**keep)) + top  # LOG_SUM_EXP
    return exact, np.maximum(np.abs(exact), 1.0)


def numpy_call(function: str, x: np.ndarray, axes: tuple[int, ...], out: np.ndarray) -> Callable[[], object]:
    """NumPy's fastest way to ``out`` that allocates nothing big."""
    keep: dict[str, Any] = {"axis": axes, "keepdims": True, "out": out}
    if function == "ARGMAX":
        return lambda: np.argmax(x, axis=axes[0], keepdims=True, out=out)
    if function == "L2":
        flat = x.reshape(-1)
        return lambda: out.fill(np.sqrt(np.vdot(flat, flat)))
    if function == "LOG_SUM_EXP":
        top, shifted = np.empty_like(out), np.empty_like(x)

        def log_sum_exp() -> None:
            np.max(x, axis=axes, keepdims=True, out=top)
            np.exp(np.subtract(x, top, out=shifted), out=shifted)
            np.log(np.sum(shifted, axis=axes, keepdims=True, out=out), out=out)
            np.add(out, top, out=out)

        return log_sum_exp
    reduce = {"SUM": np.sum, "AVERAGE": np.mean, "MAX": np.max}[function]
    if x.dtype == np.float16 and function != "MAX":
        # In float32, as dmlpy sums halves: NumPy's own float16 tally down 4096 rows misses the peers' tolerance.
        keep["dtype"] = np.float32
    return lambda: reduce(x, **keep)


def reduce_case(function: str, axes: tuple[int, ...], shape: Shape, dtype: type = np.float32) -> Case:
    x = np.random.default_rng(len(function) + sum(axes)).standard_normal(shape).astype(dtype)
    out_shape = kept(shape, axes)
    index = function == "ARGMAX"
    out = np.empty(out_shape, np.int64 if index else dtype)
    data_type = "FLOAT16" if dtype == np.float16 else "FLOAT32"

    def desc(dml: Any) -> Any:
        source = tensor(dml, data_type, shape)
        if index:
            target = tensor(dml, "INT64", out_shape)
            return dml.ArgMaxOperatorDesc(
                input_tensor=source, output_tensor=target, axes=axes, axis_direction="INCREASING"
            )
        target = tensor(dml, data_type, out_shape)
        return dml.ReduceOperatorDesc(
            function=dml.ReduceFunction[function], input_tensor=source, output_tensor=target, axes=axes
        )

    onnx_op = {"SUM": "ReduceSum", "AVERAGE": "ReduceMean", "MAX": "ReduceMax", "L2": "ReduceL2"}
    if index:
        onnx: tuple[str, dict[str, Any], dict[str, np.ndarray]] = ("ArgMax", {"axis": axes[0], "keepdims": 1}, {})
    else:
        op = onnx_op.get(function, "ReduceLogSumExp")
        onnx = (op, {"keepdims": 1}, {"axes": np.array(axes, np.int64)})
    where = "both axes" if len(axes) == 2 else ("innermost" if axes == (1,) else "outer")
    rows = "" if shape[0] == shape[1] else f" {shape[0]} rows"
    name = f"{function} {where}{rows}" + (" FLOAT16" if dtype == np.float16 else "")
    exact, scale = reference(function, x, axes)
    return Case(name, desc, x, exact, scale, out, numpy_call(function, x, axes, out), onnx)


def cases(shape: Shape, more_outer: bool = False) -> list[Case]:
    inner, outer = (1,), (0,)
    extra = [
        reduce_case("MAX", outer, shape),
        reduce_case("ARGMAX", outer, shape),
        reduce_case("SUM", outer, shape, np.float16),
        reduce_case("SUM", outer, (16, shape[0] * shape[1] // 16)),
    ]
    return [
        reduce_case("SUM", inner, shape),
        reduce_case("SUM", outer, shape),
        *(extra if more_outer else []),
        reduce_case("AVERAGE", inner, shape),
        reduce_case("MAX", inner, shape),
        reduce_case("ARGMAX", inner, shape),
        reduce_case("LOG_SUM_EXP", inner, shape),
        reduce_case("L2", (0, 1), shape),
        reduce_case("SUM", inner, shape, np.float16),
    ]


def error_over_allowed(case: Case, got: np.ndarray, who: str) -> float:
    """``got``'s worst distance from the float64 result over the distance allowed: none for indices and MAX, else
    TOLERANCE of the scale (and a FLOAT16 output's own rounding). Above 1 is a wrong result."""
    assert got.shape == case.exact.shape, f"{case.name}: {who}'s result has shape {got.shape}"
    allowed = TOLERANCE["dmlpy" if who == "dmlpy" else "peer"] * case.scale
    if case.x.dtype == np.float16:
        allowed = allowed + 2.0**-10 * np.abs(case.exact)
    error = np.abs(got.astype(np.float64) - case.exact)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.max(np.where(error == 0, 0.0, error / allowed)))


def check_peer(case: Case, got: np.ndarray, who: str) -> None:
    assert error_over_allowed(case, got, who) <= 1, f"{case.name}: {who}'s result is beyond the tolerance"


def onnxruntime_call(case: Case) -> tuple[Callable[[], object] | None, str | None]:
    """onnxruntime's CPU provider on the case's one node (opset 18), IO binding to a preallocated output; None and
    why where it is not installed or has no kernel for the node."""
    try:
        import onnxruntime as ort
        from onnx import helper, numpy_helper
    except ImportError:
        return None, "not installed"
    op, attributes, constants = case.onnx
    node = helper.make_node(op, ["x", *constants], ["y"], **attributes)
    graph = helper.make_graph(
        [node],
        case.name,
        [helper.make_tensor_value_info("x", ONNX_TYPES[case.x.dtype], case.x.shape)],
        [helper.make_tensor_value_info("y", ONNX_TYPES[case.out.dtype], case.out.shape)],
        initializer=[numpy_helper.from_array(value, name) for name, value in constants.items()],
    )
    options = ort.SessionOptions()
    # Its worker threads otherwise spin after each run, taking the cores from the dispatch measured next.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    model = onnxruntime_model(graph, opset=18).SerializeToString()
    try:
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime's own NOT_IMPLEMENTED for a type it has no kernel for
        return None, str(error).splitlines()[0][:160]
    binding = session.io_binding()
    binding.bind_cpu_input("x", case.x)
    result = np.empty_like(case.out)
    binding.bind_output("y", "cpu", 0, result.dtype, list(result.shape), result.ctypes.data)
    session.run_with_iobinding(binding)
    check_peer(case, result, "onnxruntime")
    # onnxruntime writes through the raw pointer: the closure keeps the arrays alive.
    return (lambda keep=(case.x, result): session.run_with_iobinding(binding)), None


def read_kernel(dml_: Dml, x: np.ndarray) -> Callable[[], Any]:
    """read256 over ``x``'s bytes on ``dml_``'s profiling queue: the enqueue, returning its event."""
    cl = dml_.cl
    context = dml_.device.context
    kernel = cl.Kernel(cl.Program(context, READ_KERNEL).build(), "read256")
    flags = cl.mem_flags
    src = cl.Buffer(context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=x)
    found = cl.Buffer(context, flags.READ_WRITE, 4)
    kernel.set_args(src, found, np.uint32(KEY))
    buffers = (src, found)  # the kernel does not keep its arguments alive: the closure must
    return lambda keep=buffers: cl.enqueue_nd_range_kernel(dml_.profiled.queue, kernel, (x.nbytes // 32,), None)


def checked_bound(dml_: Dml, case: Case) -> tuple[Bound, float]:
    """The case compiled and bound once on ``dml_``'s device, and its output's error_over_allowed. A wrong result
    is printed and kept in the row, not fatal: the run still times the case (the L2 of 16M elements was found
    4.7e-5 from float64 NumPy's, where reduction.md's bound allows about 1e-7)."""
    bound = Bound(dml_, case.desc(dml_.dml), [case.x])
    bound.events().wait()  # Bound.buffers are the profiled queue's outputs
    ratio = error_over_allowed(case, bound.buffers[0].read(case.out.dtype, case.out.shape), "dmlpy")
    if ratio > 1:
        print(f"{case.name}: dmlpy's result on {dml_.device.name} is {ratio:.3g}x the tolerance from float64 NumPy's")
    return bound, ratio


def case_rows(runtimes: list[Dml], case: Case, quick: bool) -> list[dict[str, Any]]:
    """One case on every device: the kernel and the two baselines taking turns per device, then every device's
    dispatch, NumPy and onnxruntime taking turns."""
    nbytes = case.x.nbytes
    walls: dict[str, Callable[[], object]] = {}
    events, ratios = [], []
    for i, dml_ in enumerate(runtimes):
        bound, ratio = checked_bound(dml_, case)
        ratios.append(ratio)
        _, copy_events = dml_.copy_kernel(nbytes // 4, 4)
        enqueues = {"kernel": bound.events, "read": read_kernel(dml_, case.x), "copy": copy_events}
        events.append(event_timings(enqueues, quick))
        walls[f"{i}:dispatch"] = bound.wall
    case.numpy_call()
    check_peer(case, case.out, "numpy")
    walls["numpy"] = case.numpy_call
    ort, why_not = onnxruntime_call(case)
    if ort is not None:
        walls["onnxruntime"] = ort
    wall = measure_together(walls, budget_for(nbytes, quick))
    rows = []
    for i, (dml_, timing, ratio) in enumerate(zip(runtimes, events, ratios, strict=True)):
        kernel, dispatch = timing["kernel"].seconds, wall[f"{i}:dispatch"].seconds
        peers = {p: wall[p].seconds if p in wall else None for p in ("numpy", "onnxruntime")}
        rows.append(
            {
                "case": case.name,
                "device": dml_.device.name,
                "groups": case.out.size,
                "error_over_allowed": ratio,
                "input_bytes": nbytes,
                "kernel_s": kernel,
                "gbps": nbytes / kernel / 1e9,
                "read_s": timing["read"].seconds,
                "read_over_kernel": timing["read"].seconds / kernel,
                "copy_s": timing["copy"].seconds,
                "copy_over_kernel": timing["copy"].seconds / kernel,
                "dispatch_s": dispatch,
                "numpy_s": peers["numpy"],
                "onnxruntime_s": peers["onnxruntime"],
                "onnxruntime_missing": why_not,
                **{f"{p}_over_dispatch": None if s is None else s / dispatch for p, s in peers.items()},
            }
        )
    return rows


def print_row(row: dict[str, Any], label: str) -> None:
    ort = row["onnxruntime_over_dispatch"]
    mark = "" if row["read_over_kernel"] >= TARGET else "  < target"
    print(
        f"{row['case']:22} {label:6} kernel {row['kernel_s'] * 1e3:8.2f} ms {row['gbps']:6.1f} GB/s  "
        f"read {row['read_s'] * 1e3:6.2f} ms  read/kernel {row['read_over_kernel']:5.2f}  "
        f"copy/kernel {row['copy_over_kernel']:5.2f}  numpy/dispatch {row['numpy_over_dispatch']:6.2f}x  "
        f"onnxruntime/dispatch {'-' if ort is None else f'{ort:.2f}x'}{mark}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="16M", help="elements of the square input (K and M: powers of two)")
    parser.add_argument("--devices", help="indices from `dmlpy devices`, comma-separated (default: the default one)")
    parser.add_argument("--quick", action="store_true", help="(256, 256) and few repeats: a smoke run")
    parser.add_argument("--json", type=Path, help="output file (default benchmarks/results/reduce-<time>.json)")
    parser.add_argument("--only", help="comma-separated words: run only the cases whose name holds one (FLOAT16,outer)")
    parser.add_argument(
        "--outer", action="store_true", help="also MAX, ARGMAX, FLOAT16 SUM over axis 0; SUM over it of (16, N/16)"
    )
    args = parser.parse_args(argv)
    n = parse_size("64K" if args.quick else args.size)
    side = math.isqrt(n)
    if side * side != n:
        parser.error(f"--size: {n} elements are not a square (S, S) input")
    indices: list[int | None] = [None] if args.devices is None else [int(i) for i in args.devices.split(",")]
    runtimes = [Dml(index) for index in indices]
    metas = [run_meta(dml_, n) for dml_ in runtimes]
    labels = [runtime_label(dml_) for dml_ in runtimes]
    rows = []
    words = [] if args.only is None else args.only.split(",")
    for case in [c for c in cases((side, side), args.outer) if not words or any(word in c.name for word in words)]:
        for row, label in zip(case_rows(runtimes, case, args.quick), labels, strict=True):
            rows.append(row)
            print_row(row, label)
    met = sum(row["read_over_kernel"] >= TARGET for row in rows)
    print(f"\nread/kernel >= {TARGET} (the issue's target): {met} of {len(rows)} rows", flush=True)
    path = write_results(args.json, "reduce", {"meta": metas, "shape": (side, side), "rows": rows}, indent=1)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
