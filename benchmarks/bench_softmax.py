"""SOFTMAX1 and LOG_SOFTMAX1 over rows of 1024 (issue 47): the kernel against a copy of its bytes, and the whole
call through dmlpy.onnx against onnxruntime, on one or more OpenCL devices.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_softmax.py --devices 0,1           # (16384, 1024) float32, PoCL and Intel
    .venv/bin/python benchmarks/bench_softmax.py --quick                 # (64, 1024): a smoke run
    .venv/bin/python benchmarks/compare_revisions.py HEAD~1 WORKTREE --bench bench_softmax.py -- --devices 0,1

Per device and operator (FLOAT32 and FLOAT16 SOFTMAX1, FLOAT32 LOG_SOFTMAX1, along the last axis):

    kernel       the dispatch's own time on a profiling queue (bench_engine.Bound), median of 15, taking turns with
                 the copy kernel of the same bytes (bench_round.py's: reads the input's bytes, writes as many)
    copy/kernel  the kernel's speed against memory: 1 is a kernel as fast as moving its bytes once
    onnx         FLOAT32 SOFTMAX1 only: ``rep.run([x])`` of a one-node Softmax model through dmlpy.onnx against
                 onnxruntime's ``session.run`` (bench_onnx_ops.measured: the same model, inputs and threads as the
                 issue's benchmark row), medians taking turns; ort/dml above 1 means dmlpy is faster

The JSON (``--json``) has compare_revisions.py's rows: per case ``seconds`` of ``kernel``, ``copy_kernel`` and
``end_to_end`` (the onnx call), so two revisions can be measured side by side.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import Bound
from bench_movement import runtime_label
from bench_onnx_ops import ROW, Model, measured
from bench_round import Dml, event_timings, write_results

CASES = (("SOFTMAX", np.float32), ("LOG_SOFTMAX", np.float32), ("SOFTMAX", np.float16))


def desc_of(dml: Any, operation: str, dtype: type, rows: int) -> Any:
    data_type = dml.TensorDataType.FLOAT32 if dtype is np.float32 else dml.TensorDataType.FLOAT16
    tensor = dml.BufferTensorDesc(data_type=data_type, sizes=(rows, ROW))
    desc_class = dml.ActivationSoftmax1OperatorDesc if operation == "SOFTMAX" else dml.ActivationLogSoftmax1OperatorDesc
    return desc_class(input_tensor=tensor, output_tensor=tensor, axes=(1,))


def rows_of(runtime: Dml, rows: int, quick: bool, ort_options: Any) -> list[dict[str, Any]]:
    label = runtime_label(runtime)
    results = []
    for operation, dtype in CASES:
        x = (np.random.default_rng(47).standard_normal((rows, ROW)) * 2).astype(dtype)
        bound = Bound(runtime, desc_of(runtime.dml, operation, dtype, rows), [x])
        _, copy_events = runtime.copy_kernel(x.nbytes // 4, 4)
        timing = event_timings({"kernel": bound.events, "copy": copy_events}, quick)
        seconds = {"kernel": timing["kernel"].seconds, "copy_kernel": timing["copy"].seconds}
        if operation == "SOFTMAX" and dtype is np.float32:
            model = Model("Softmax", [("Softmax", ["x"], ["y"], {"axis": -1})], exact=False)
            onnx = measured(runtime, model, rows * ROW, quick, ort_options)
            seconds |= {"end_to_end": onnx["dmlpy_s"], "onnxruntime": onnx["onnxruntime_s"]}
        row = {"dtype": np.dtype(dtype).name, "size": f"{rows}x{ROW}", "layout": label, "mode": operation}
        results.append(row | {"seconds": seconds})
        onnx_text = ""
        if "end_to_end" in seconds:
            ratio = seconds["onnxruntime"] / seconds["end_to_end"]
            onnx_text = f"  onnx {seconds['end_to_end'] * 1e3:8.2f} ms, ort {seconds['onnxruntime'] * 1e3:7.2f} ms"
            onnx_text += f", ort/dml {ratio:5.2f}"
        print(
            f"{label:8} {operation:12} {row['dtype']:8} kernel {seconds['kernel'] * 1e3:8.2f} ms  copy "
            f"{seconds['copy_kernel'] * 1e3:7.2f} ms  copy/kernel {seconds['copy_kernel'] / seconds['kernel']:5.2f}"
            + onnx_text,
            flush=True,
        )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=16384, help="rows of 1024 (default 16384: 16M elements)")
    parser.add_argument("--devices", help="indices from `dmlpy devices`, comma-separated (default: the default one)")
    parser.add_argument("--quick", action="store_true", help="64 rows and few repeats: a smoke run")
    parser.add_argument("--json", type=Path, help="output file (default benchmarks/results/softmax-<time>.json)")
    args = parser.parse_args(argv)
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # as bench_onnx_ops.py
    indices: list[int | None] = [None] if args.devices is None else [int(i) for i in args.devices.split(",")]
    rows = 64 if args.quick else args.rows
    results = [row for index in indices for row in rows_of(Dml(index), rows, args.quick, options)]
    path = write_results(args.json, "softmax", {"results": results}, indent=1)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
