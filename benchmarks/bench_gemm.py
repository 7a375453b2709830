"""GEMM float32 (issue 45) at M = N = K = 1024 and at a transformer's feed-forward shape (tokens x 768 by 768 x 3072,
128 tokens), against onnxruntime's CPU provider (MLAS) and NumPy (its BLAS) on the same inputs, on one or more
OpenCL devices side by side, in one run.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_gemm.py --devices 0,1     # PoCL and Intel's CPU runtime
    .venv/bin/python benchmarks/bench_gemm.py --quick           # a smoke run: 64 x 64 x 64 and 16 x 48 x 64

Per case and device, through the object model on pre-bound device buffers (bench_engine.Bound), the device's
default launch profile:

    kernel      the dispatch's own time on a profiling queue (median), and its GFLOP/s (2 M N K flops)
    peak        the kernel's GFLOP/s over the machine's float32 peak: cores x 32 flops a cycle (two 8-wide FMA
                units: AVX2 on Zen 3) x the clock /proc/cpuinfo reports; where onnxruntime is far ahead, this says
                how far the kernel is from what the cores can do
    numpy, onnxruntime   their wall times over the dispatch's (record_dispatch + wait), all taking turns
                (bench_round.measure_together): > 1 means dmlpy is faster; the issue's target is
                onnxruntime/dispatch >= 0.5. NumPy is np.matmul into a preallocated output; onnxruntime one MatMul
                node (opset 18), IO binding to a preallocated output, 2 intra-op threads (the machine's cores)

Each result is checked against float64 NumPy's first: within gamma_(K+2) sum |a||b| (docs/operators/gemm.md)
for dmlpy, 1e-4 of it for the peers (their blocked sums have their own bounds). Timings are never asserted;
tests/device/matrix/test_bench_gemm_smoke.py runs ``--quick``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import Bound
from bench_math import run_meta
from bench_movement import runtime_label
from bench_round import Dml, budget_for, event_timings, measure_together, onnxruntime_model, write_results

TARGET = 0.5
"""The issue's target: dmlpy's dispatch at least half as fast as onnxruntime's."""
FLOPS_PER_CYCLE = 32
"""float32 flops a core completes a cycle at most: two FMA units of 8 lanes (AVX2 on Zen 3), 2 flops an FMA."""
CASES = {"1024 x 1024 x 1024": (1024, 1024, 1024), "128 tokens x 768 x 3072": (128, 768, 3072)}
QUICK_CASES = {"64 x 64 x 64": (64, 64, 64), "16 tokens x 48 x 64": (16, 48, 64)}


def peak_gflops() -> float:
    """The machine's float32 peak: its cores x FLOPS_PER_CYCLE x the clock in /proc/cpuinfo (0 where unknown)."""
    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
    except OSError:
        return 0.0
    clocks = [float(line.split(":")[1]) for line in lines if line.startswith("cpu MHz")]
    return (os.cpu_count() or 1) * FLOPS_PER_CYCLE * (max(clocks) if clocks else 0.0) / 1e3


def error_over_allowed(got: np.ndarray, exact: np.ndarray, magnitude: np.ndarray, k: int, scale: float) -> float:
    """``got``'s worst distance from ``exact`` over ``scale`` x gamma_(K+2) x sum |a||b|; above 1 is wrong."""
    u = 2.0**-24
    allowed = scale * (k + 2) * u / (1 - (k + 2) * u) * magnitude
    return float(np.max(np.abs(got.astype(np.float64) - exact) / allowed))


def onnxruntime_call(
    a: np.ndarray, b: np.ndarray, exact: np.ndarray, magnitude: np.ndarray
) -> tuple[Callable[[], object] | None, str | None]:
    """onnxruntime's MatMul on (a, b), IO binding to a preallocated output; None and why where not installed."""
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper
    except ImportError:
        return None, "not installed"
    (m, k), n = a.shape, b.shape[1]
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["y"])],
        "gemm",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, a.shape),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, b.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (m, n))],
    )  # fmt: skip
    options = ort.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    # Its worker threads otherwise spin after each run, taking the cores from the dispatch measured next.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    model = onnxruntime_model(graph, opset=18).SerializeToString()
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    binding = session.io_binding()
    binding.bind_cpu_input("a", a)
    binding.bind_cpu_input("b", b)
    result = np.empty((m, n), np.float32)
    binding.bind_output("y", "cpu", 0, result.dtype, [m, n], result.ctypes.data)
    session.run_with_iobinding(binding)
    assert error_over_allowed(result, exact, magnitude, k, 1e4) <= 1, "onnxruntime's MatMul is beyond the tolerance"
    return (lambda keep=(a, b, result): session.run_with_iobinding(binding)), None


def case_rows(runtimes: list[Dml], name: str, shape: tuple[int, int, int], quick: bool) -> list[dict[str, Any]]:
    m, k, n = shape
    rng = np.random.default_rng(m + k + n)
    a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    magnitude = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    flops = 2.0 * m * n * k
    walls: dict[str, Callable[[], object]] = {}
    kernels, ratios = [], []
    for i, dml_ in enumerate(runtimes):
        tensor = dml_.dml.TensorDesc
        desc = dml_.dml.GemmOperatorDesc(
            a_tensor=tensor(desc=dml_.dml.BufferTensorDesc(data_type="FLOAT32", sizes=(m, k))),
            b_tensor=tensor(desc=dml_.dml.BufferTensorDesc(data_type="FLOAT32", sizes=(k, n))),
            output_tensor=tensor(desc=dml_.dml.BufferTensorDesc(data_type="FLOAT32", sizes=(m, n))),
            trans_a="NONE", trans_b="NONE", alpha=1.0, beta=0.0,
        )  # fmt: skip
        bound = Bound(dml_, desc, [a, b, None])
        bound.events().wait()
        ratio = error_over_allowed(bound.buffers[0].read(np.float32, (m, n)), exact, magnitude, k, 1.0)
        if ratio > 1:
            print(f"{name}: dmlpy's result on {dml_.device.name} is {ratio:.3g}x its bound from float64 NumPy's")
        ratios.append(ratio)
        kernels.append(event_timings({"kernel": bound.events}, quick)["kernel"].seconds)
        walls[f"{i}:dispatch"] = bound.wall
    out = np.empty((m, n), np.float32)
    np.matmul(a, b, out=out)
    assert error_over_allowed(out, exact, magnitude, k, 1e4) <= 1, "NumPy's matmul is beyond the tolerance"
    walls["numpy"] = lambda: np.matmul(a, b, out=out)
    ort, why_not = onnxruntime_call(a, b, exact, magnitude)
    if ort is not None:
        walls["onnxruntime"] = ort
    wall = measure_together(walls, budget_for(a.nbytes + b.nbytes, quick))
    peak = peak_gflops()
    rows = []
    for i, (dml_, kernel, ratio) in enumerate(zip(runtimes, kernels, ratios, strict=True)):
        dispatch = wall[f"{i}:dispatch"].seconds
        peers = {p: wall[p].seconds if p in wall else None for p in ("numpy", "onnxruntime")}
        rows.append(
            {
                "case": name,
                "shape_mkn": [m, k, n],
                "device": dml_.device.name,
                "error_over_allowed": ratio,
                "kernel_s": kernel,
                "kernel_gflops": flops / kernel / 1e9,
                "peak_gflops": peak,
                "kernel_over_peak": flops / kernel / 1e9 / peak if peak else None,
                "dispatch_s": dispatch,
                "dispatch_gflops": flops / dispatch / 1e9,
                "numpy_s": peers["numpy"],
                "onnxruntime_s": peers["onnxruntime"],
                "onnxruntime_missing": why_not,
                **{f"{p}_gflops": None if s is None else flops / s / 1e9 for p, s in peers.items()},
                **{f"{p}_over_dispatch": None if s is None else s / dispatch for p, s in peers.items()},
            }
        )
    return rows


def print_row(row: dict[str, Any], label: str) -> None:
    ort = row["onnxruntime_over_dispatch"]
    mark = "" if ort is None or ort >= TARGET else "  < target"
    peak = "-" if row["kernel_over_peak"] is None else f"{row['kernel_over_peak']:.2f}"
    ort_rate = "-" if ort is None else f"{row['onnxruntime_gflops']:6.1f}"
    print(
        f"{row['case']:24} {label:6} kernel {row['kernel_s'] * 1e3:8.2f} ms {row['kernel_gflops']:6.1f} GFLOP/s "
        f"(of peak {peak})  dispatch {row['dispatch_gflops']:6.1f}  numpy {row['numpy_gflops']:6.1f}  "
        f"onnxruntime {ort_rate} GFLOP/s  "
        f"onnxruntime/dispatch {'-' if ort is None else f'{ort:.2f}x'}{mark}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", help="indices from `dmlpy devices`, comma-separated (default: the default one)")
    parser.add_argument("--quick", action="store_true", help="tiny shapes and few repeats: a smoke run")
    parser.add_argument("--json", type=Path, help="output file (default benchmarks/results/gemm-<time>.json)")
    args = parser.parse_args(argv)
    indices: list[int | None] = [None] if args.devices is None else [int(i) for i in args.devices.split(",")]
    runtimes = [Dml(index) for index in indices]
    cases = QUICK_CASES if args.quick else CASES
    metas = [run_meta(dml_, 0) for dml_ in runtimes]
    labels = [runtime_label(dml_) for dml_ in runtimes]
    print(f"machine peak (float32): {peak_gflops():.0f} GFLOP/s", flush=True)
    rows = []
    for name, shape in cases.items():
        for row, label in zip(case_rows(runtimes, name, shape, args.quick), labels, strict=True):
            rows.append(row)
            print_row(row, label)
    met = sum(
        row["onnxruntime_over_dispatch"] is not None and row["onnxruntime_over_dispatch"] >= TARGET for row in rows
    )
    print(f"\nonnxruntime/dispatch >= {TARGET} (the issue's target): {met} of {len(rows)} rows", flush=True)
    path = write_results(args.json, "gemm", {"meta": metas, "rows": rows}, indent=1)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
