"""bench_onnx_ops.py's models on one device under two launch shapes side by side in one process (issue 47):
``lanes_across_work_items`` as the device sets it and flipped, taking turns with onnxruntime.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_launch_shapes.py --device 1                 # Intel's runtime, every model
    .venv/bin/python benchmarks/bench_launch_shapes.py --device 0 --models Relu,Exp
    .venv/bin/python benchmarks/bench_launch_shapes.py --device 1 --quick         # 64K elements: a smoke run

Two dmlpy devices on one OpenCL device: "shape" has the device's own launch profile, "other" the same profile with
``LaunchProfile.lanes_across_work_items`` flipped (on Intel's runtime: PACKED_RUN elements a work-item in work-groups
of one, what dmlpy did before the flag; on PoCL: one element a work-item). Every other line of code is the same in
both, so the columns differ by the shape of the kernels alone; each model's results must be the same bits under both
(the shape never changes a result). The three calls (onnxruntime's ``session.run``, ``rep.run`` on each device) take
turns sample by sample (bench_round.measure_together), medians; ratios are onnxruntime's time over the column's.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_onnx_ops import ROW, input_names, inputs, models, onnx_model
from bench_round import Budget, budget_for, measure_together, parse_size, write_results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", type=int, required=True, help="an index from `dmlpy devices`")
    parser.add_argument("--size", default="16M", help="elements (K and M: powers of two; a multiple of 1024)")
    parser.add_argument("--models", help="the models to run, comma-separated names (default: every one)")
    parser.add_argument("--quick", action="store_true", help="64K elements and few repeats: a smoke run")
    parser.add_argument("--json", type=Path, help="output file (default benchmarks/results/launch-shapes-<time>.json)")
    args = parser.parse_args(argv)
    import onnxruntime as ort

    import dmlpy as dml
    from dmlpy.onnx import backend
    from dmlpy.runtime.platforms import device_by_index

    n = parse_size("64K" if args.quick else args.size)
    cl_device = device_by_index(args.device).cl_device
    shape_device = dml.create_device(cl_device=cl_device)
    other_device = dml.create_device(cl_device=cl_device)
    own = shape_device.launch_profile
    other_device.launch_profile = dataclasses.replace(own, lanes_across_work_items=not own.lanes_across_work_items)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    chosen = models(n) if args.models is None else [m for m in models(n) if m.name in args.models.split(",")]
    print(f"{shape_device.name}: 'shape' lanes_across_work_items={own.lanes_across_work_items}, 'other' the opposite")
    print(f"{'model':15} {'ort ms':>9} {'shape ms':>9} {'ort/sh':>6} {'other ms':>9} {'ort/ot':>6} {'sh/ot':>6}")
    rows: list[dict[str, Any]] = []
    for model in chosen:
        elements = model.elements or n
        tensor_shape = (elements,) if model.elements else (elements // ROW, ROW)
        arrays = inputs(model, tensor_shape, np.random.default_rng(47))
        serialized = onnx_model(model, tensor_shape).SerializeToString()
        reps = {
            name: backend.DmlBackend.prepare(serialized, dml_device=device)
            for name, device in (("shape", shape_device), ("other", other_device))
        }
        session = ort.InferenceSession(serialized, options, providers=["CPUExecutionProvider"])
        feeds = dict(zip(input_names(model), arrays, strict=True))
        (mine,), (theirs,) = reps["shape"].run(arrays), reps["other"].run(arrays)
        if mine.tobytes() != theirs.tobytes():
            raise SystemExit(f"{model.name}: the two launch shapes give different bits")
        del mine, theirs  # not held: a repeated run may compute into its pooled output again
        calls: dict[str, Callable[[], object]] = {"onnxruntime": partial(session.run, None, feeds)}
        calls |= {name: partial(rep.run, arrays) for name, rep in reps.items()}
        quick = Budget(min_samples=3, max_samples=5, seconds=0.05, sample_seconds=2e-4)
        timings = measure_together(calls, quick if args.quick else budget_for(8 * elements, False))
        ort_s, shape_s, other_s = (timings[name].seconds for name in ("onnxruntime", "shape", "other"))
        row = {
            "model": model.name,
            "elements": elements,
            "onnxruntime_s": ort_s,
            "shape_s": shape_s,
            "other_s": other_s,
        }
        rows.append(row)
        print(
            f"{model.name:15} {ort_s * 1e3:9.3f} {shape_s * 1e3:9.3f} {ort_s / shape_s:6.2f} {other_s * 1e3:9.3f} "
            f"{ort_s / other_s:6.2f} {shape_s / other_s:6.2f}",
            flush=True,
        )
    meta = {"device": shape_device.name, "lanes_across_work_items": own.lanes_across_work_items, "size": n}
    path = write_results(args.json, "launch-shapes", {"meta": meta, "rows": rows}, indent=1)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
