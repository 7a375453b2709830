"""The movement operators (issue 44: SLICE, SLICE1 backwards, JOIN, SPLIT, PADDING, TILE, DEPTH_TO_SPACE) on
FLOAT32 tensors of 16M elements, each against the copy kernel of its output's bytes, NumPy and onnxruntime's CPU
provider on the same inputs, on one or more OpenCL devices side by side, in one run.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_movement.py --json /tmp/movement.json     # 16M elements, default device
    .venv/bin/python benchmarks/bench_movement.py --devices 0,1                 # PoCL and Intel's CPU runtime
    .venv/bin/python benchmarks/bench_movement.py --quick                       # a smoke run: 64K elements
    .venv/bin/python benchmarks/bench_movement.py --devices 0,1 --extra         # and three more cases

The big tensor is bench_round.nchw_shape's (1, 16, H, W) (16M: (1, 16, 1024, 1024)); each case's output is
that shape, but SLICE's and SPLIT's, which take it as their input:

    SLICE            every second row (H): a strided read, half the input          -> (1, 16, H/2, W)
    SLICE1 reversed  the innermost axis read backwards (stride -1): movement.cl
    JOIN outer       two halves along C (axis 1)
    JOIN inner       two halves along W (axis 3): join_rows.cl, one launch (the "cpu" profile)
    SPLIT            into two halves along C                                        -> 2 x (1, 8, H, W)
    PADDING          CONSTANT (-7.75) and REFLECTION, 1 element each side of H and W: movement.cl
    TILE             x2 along C: movement.cl
    DEPTH_TO_SPACE   block 2 (DCR) from (1, 64, H/2, W/2): block_copy.cl (the "cpu" profile)

and with ``--extra``: SPACE_TO_DEPTH block 2 from (1, 4, 2H, 2W), JOIN of two halves along H, TILE x2 along W. The
cases are movement_cases.py's.

Per case and device, through the object model on pre-bound device buffers (bench_engine.Bound, compiled and bound
once, dispatched many times), the device's default launch profile:

    kernel      the dispatch's own time on a profiling queue (bench_graph.dispatch_events: from before its first
                kernel to the end of its last, for JOIN and SPLIT's one copy per part), median of 15, taking turns
                with the copy kernel
    GB/s        bytes read (the input elements the output holds: a tiled input counts once, padding's new
                elements not at all) plus bytes written, over the kernel time
    copy        the copy kernel (bench_round.py's, 32-bit words) over the output's elements: copy / kernel is the
                operator's speed against memory (the issue's target: >= 0.8)
    numpy, onnxruntime   their wall times over the dispatch's (record_dispatch + wait on the first device), all
                taking turns (bench_round.measure_together): > 1 means dmlpy is faster. NumPy copies into
                preallocated arrays (slicing + np.copyto, np.concatenate(out=), a broadcast copy for np.tile)
                but for np.pad, which has no ``out=`` and allocates; onnxruntime (opset 21, IO binding to
                preallocated outputs) where it is installed

Each case's output is checked against NumPy's before it is timed. Timings are never asserted by the test suite;
tests/device/artefacts/test_bench_movement_smoke.py runs ``--quick``.
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
from bench_math import run_meta
from bench_round import (
    Dml,
    budget_for,
    event_timings,
    measure_together,
    nchw_shape,
    onnxruntime_model,
    parse_size,
    write_results,
)
from movement_cases import Case, cases, extra_cases

TARGET = 0.8
"""The issue's target: a movement operator's kernel at least this fraction of the copy kernel of its bytes."""


def onnxruntime_call(case: Case) -> Callable[[], object] | None:
    """onnxruntime's CPU provider on the case's one node, its constants initializers, IO binding to preallocated
    outputs; None where it is not installed."""
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return None
    op, attributes, constants = case.onnx
    names = [f"x{k}" for k in range(len(case.inputs))]
    outputs = [f"y{k}" for k in range(len(case.expected))]
    node = helper.make_node(op, [*names, *constants], outputs, **attributes)
    graph = helper.make_graph(
        [node],
        case.name,
        [
            helper.make_tensor_value_info(name, TensorProto.FLOAT, x.shape)
            for name, x in zip(names, case.inputs, strict=True)
        ],
        [
            helper.make_tensor_value_info(name, TensorProto.FLOAT, y.shape)
            for name, y in zip(outputs, case.expected, strict=True)
        ],
        initializer=[numpy_helper.from_array(value, name) for name, value in constants.items()],
    )
    options = ort.SessionOptions()
    # Its worker threads otherwise spin after each run, taking the cores from the dispatch measured next.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(
        onnxruntime_model(graph).SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    binding = session.io_binding()
    for name, x in zip(names, case.inputs, strict=True):
        binding.bind_cpu_input(name, np.ascontiguousarray(x))
    results = [np.empty(y.shape, np.float32) for y in case.expected]
    for name, y in zip(outputs, results, strict=True):
        binding.bind_output(name, "cpu", 0, np.float32, list(y.shape), y.ctypes.data)
    session.run_with_iobinding(binding)
    for name, got, want in zip(outputs, results, case.expected, strict=True):
        assert np.array_equal(got, want), f"{case.name}: onnxruntime's {name} differs from NumPy's"
    # onnxruntime writes through the raw pointers: the closure keeps the arrays alive.
    return lambda keep=(case.inputs, results): session.run_with_iobinding(binding)


def checked_bound(dml_: Dml, case: Case) -> Bound:
    """The case compiled and bound once on ``dml_``'s device, its outputs checked against NumPy's, bit for bit."""
    bound = Bound(dml_, case.desc(dml_.dml), case.inputs)
    bound.events().wait()  # Bound.buffers are the profiled queue's outputs
    for buffer, want in zip(bound.buffers, case.expected, strict=True):
        got = buffer.read(np.float32, want.shape)
        assert got.tobytes() == np.ascontiguousarray(want).tobytes(), f"{case.name}: dmlpy's output differs"
    return bound


def case_rows(runtimes: list[Dml], case: Case, quick: bool) -> list[dict[str, Any]]:
    """One case on every device: kernel and copy kernel taking turns per device, then every device's dispatch,
    NumPy and onnxruntime taking turns."""
    written = sum(y.size for y in case.expected)
    moved = 4 * (case.read_elements + written)
    walls: dict[str, Callable[[], object]] = {}
    events = []
    for i, dml_ in enumerate(runtimes):
        bound = checked_bound(dml_, case)
        _, copy_events = dml_.copy_kernel(written, 4)
        events.append(event_timings({"kernel": bound.events, "copy": copy_events}, quick))
        walls[f"{i}:dispatch"] = bound.wall
    walls["numpy"] = case.numpy_call
    ort = onnxruntime_call(case)
    if ort is not None:
        walls["onnxruntime"] = ort
    wall = measure_together(walls, budget_for(moved, quick))
    rows = []
    for i, (dml_, timing) in enumerate(zip(runtimes, events, strict=True)):
        kernel, copy, dispatch = timing["kernel"].seconds, timing["copy"].seconds, wall[f"{i}:dispatch"].seconds
        peers = {p: wall[p].seconds / dispatch if p in wall else None for p in ("numpy", "onnxruntime")}
        rows.append(
            {
                "case": case.name,
                "device": dml_.device.name,
                "output_elements": written,
                "bytes_moved": moved,
                "kernel_s": kernel,
                "gbps": moved / kernel / 1e9,
                "copy_s": copy,
                "copy_over_kernel": copy / kernel,
                "dispatch_s": dispatch,
                "numpy_s": wall["numpy"].seconds,
                "onnxruntime_s": wall["onnxruntime"].seconds if "onnxruntime" in wall else None,
                "numpy_over_dispatch": peers["numpy"],
                "onnxruntime_over_dispatch": peers["onnxruntime"],
            }
        )
    return rows


def print_row(row: dict[str, Any], label: str) -> None:
    ort = row["onnxruntime_over_dispatch"]
    mark = "" if row["copy_over_kernel"] >= TARGET else "  < target"
    print(
        f"{row['case']:22} {label:8} kernel {row['kernel_s'] * 1e3:8.2f} ms {row['gbps']:6.1f} GB/s  "
        f"copy {row['copy_s'] * 1e3:7.2f} ms  copy/kernel {row['copy_over_kernel']:5.2f}  "
        f"numpy/dispatch {row['numpy_over_dispatch']:5.2f}x  onnxruntime/dispatch "
        f"{'-' if ort is None else f'{ort:.2f}x'}{mark}",
        flush=True,
    )


def runtime_label(dml_: Dml) -> str:
    """A device's short name in the printed table: its OpenCL platform's."""
    platform = dml_.device.cl_device.platform.name
    return "PoCL" if "Portable" in platform else platform.split()[0].removesuffix("(R)")[:8]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="16M", help="elements of the big tensor (K and M: powers of two)")
    parser.add_argument("--devices", help="indices from `dmlpy devices`, comma-separated (default: the default one)")
    parser.add_argument("--quick", action="store_true", help="64K elements and few repeats: a smoke run")
    parser.add_argument("--extra", action="store_true", help="also SPACE_TO_DEPTH, JOIN along H and TILE along W")
    parser.add_argument("--json", type=Path, help="output file (default benchmarks/results/movement-<time>.json)")
    args = parser.parse_args(argv)
    n = parse_size("64K" if args.quick else args.size)
    shape = nchw_shape(n)
    if shape[1] != 16 or shape[2] % 2 or shape[3] % 2:
        parser.error(f"--size: {n} elements make {shape}: (1, 16, H, W) with H and W even is needed")
    indices: list[int | None] = [None] if args.devices is None else [int(i) for i in args.devices.split(",")]
    runtimes = [Dml(index) for index in indices]
    metas = [run_meta(dml_, n) for dml_ in runtimes]
    labels = [runtime_label(dml_) for dml_ in runtimes]
    rows = []
    for case in cases(shape) + (extra_cases(shape) if args.extra else []):
        for row, label in zip(case_rows(runtimes, case, args.quick), labels, strict=True):
            rows.append(row)
            print_row(row, label)
    met = sum(row["copy_over_kernel"] >= TARGET for row in rows)
    print(f"\ncopy/kernel >= {TARGET} (the issue's target): {met} of {len(rows)} rows", flush=True)
    path = write_results(args.json, "movement", {"meta": metas, "shape": shape, "rows": rows}, indent=1)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
