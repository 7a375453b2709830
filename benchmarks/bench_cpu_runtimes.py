"""Two OpenCL CPU runtimes side by side in one process: which one the default CPU device should be.

Usage (from the repository root; both runtimes installed, e.g. after ``make .venv/.installed`` on a machine whose
set-up added Intel's CPU runtime, or with ``.venv/bin/python -m dmlpy.runtime.cpu_runtime --install``)::

    .venv/bin/python benchmarks/bench_cpu_runtimes.py                      # 16M float32 and float16, 1K latency
    .venv/bin/python benchmarks/bench_cpu_runtimes.py --sizes 1M,16M --devices 1,2 --json /tmp/runtimes.json
    .venv/bin/python benchmarks/bench_cpu_runtimes.py --quick --sizes 1K --devices 0,0   # a smoke run, seconds

For each size and dtype (packed arrays, Round halves to even), every runtime's engines and the host's
``np.copyto`` take turns sample by sample in one ``measure_together`` (bench_round.py's), so a drift of the
machine's speed (other processes, clocks) moves them all alike and the runtimes are compared at the same moments:

    copy kernel    a plain ``dst[i] = src[i]`` kernel on device buffers, enqueue + wait (the runtime's ceiling)
    kernel         dmlpy's object model with pre-bound device buffers: ``record_dispatch`` + wait
    end-to-end     ``dml.round(x, out=y)`` on NumPy arrays
    copyK@, devarr@  the copy kernel's and ``dml.round`` on device arrays' own times from profiling events,
                   the runtimes' launches taking turns

and, per runtime, bench_round.py's 1K float32 latency (``dml.round`` on NumPy and on device arrays, against a
bare enqueue + finish of the same built kernel), measured twice, the second time in reverse order (A B B A), so
that no runtime always goes first.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_round import (  # bench_round lives beside this script, not in a package
    Dml,
    budget_for,
    event_timings,
    latency,
    make_case,
    measure_together,
    parse_size,
    size_label,
    write_results,
)

MODE = "half_to_even"


def cpu_devices(wanted: str | None) -> list[Any]:
    """The devices to compare (``dmlpy devices`` entries): ``wanted`` (indices, comma-separated), else every CPU
    device whose compiler builds a kernel."""
    from dmlpy.runtime.platforms import device_by_index, list_devices

    if wanted:
        return [device_by_index(int(part)) for part in wanted.split(",")]
    return [e for e in list_devices() if e.kind == "CPU" and e.compiler_error is None]


def compare(runtimes: list[Dml], n: int, dtype: np.dtype[Any], quick: bool) -> dict[str, Any]:
    """One size and dtype: GB/s of every runtime's engines and np.copyto, sampled in turns, and the event times."""
    rng = np.random.default_rng(12345)
    case = make_case("packed", n, dtype, rng)
    engines: dict[str, Callable[[], object]] = {"np.copyto": lambda: np.copyto(case.out, case.x)}
    enqueues: dict[str, Callable[[], Any]] = {}
    for i, dml_ in enumerate(runtimes):
        copy_wait, copy_event = dml_.copy_kernel(n, dtype.itemsize)
        kernel = dml_.kernel_only(case, MODE)
        on_device = dml_.device_array(case, MODE)
        assert kernel is not None and on_device is not None  # a packed case always has DirectML strides
        engines |= {
            f"{i}:copy_kernel": copy_wait,
            f"{i}:kernel": kernel,
            f"{i}:end_to_end": dml_.end_to_end(case, MODE),
        }
        enqueues |= {f"{i}:copy_kernel@": copy_event, f"{i}:device_array@": on_device[1]}
    timings = measure_together(engines, budget_for(2 * n * dtype.itemsize, quick))
    timings |= event_timings(enqueues, quick)
    gbps = {name: 2 * n * dtype.itemsize / t.seconds / 1e9 for name, t in timings.items()}
    return {"dtype": dtype.name, "size": n, "gbps": gbps}


def print_row(row: dict[str, Any], labels: list[str]) -> None:
    g = row["gbps"]
    for i, label in enumerate(labels):
        k, c, e2e = g[f"{i}:kernel"], g[f"{i}:copy_kernel"], g[f"{i}:end_to_end"]
        da, ck = g[f"{i}:device_array@"], g[f"{i}:copy_kernel@"]
        print(
            f"{row['dtype']:8} {size_label(row['size']):>5} {label:44} {c:7.1f} {k:7.1f} {ck:7.1f} {da:7.1f} "
            f"{e2e:7.1f} {g['np.copyto']:7.1f} | {k / c:7.2f} {da / ck:7.2f} {e2e / g['np.copyto']:7.2f}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="16M", help="element counts, comma-separated (default 16M)")
    parser.add_argument("--dtypes", default="float32,float16")
    parser.add_argument("--devices", help="indices from `dmlpy devices` (default: every CPU device that builds)")
    parser.add_argument("--json", type=Path, help="output (default benchmarks/results/cpu-runtimes-<time>.json)")
    parser.add_argument("--quick", action="store_true", help="few repeats: a smoke run (with --sizes 1K)")
    args = parser.parse_args(argv)
    entries = cpu_devices(args.devices)
    if len(entries) < 2:
        parser.error("fewer than two CPU runtimes can build kernels here; see `dmlpy devices`")
    runtimes = [Dml(entry.index) for entry in entries]
    labels = [entry.runtime for entry in entries]
    for entry in entries:
        print(entry.describe())
    print(
        "GB/s (bytes read + written), medians, all runtimes sampled in turns; @: the kernel's own time from its "
        "profiling event\n"
        f"{'dtype':8} {'size':>5} {'runtime':44} {'copyK':>7} {'kernel':>7} {'copyK@':>7} {'devarr@':>7} "
        f"{'e2e':>7} {'copyto':>7} | {'k/copyK':>7} {'da@/cK@':>7} {'e2e/cpy':>7}"
    )
    rows = []
    for dtype_name in args.dtypes.split(","):
        for n in (parse_size(s) for s in args.sizes.split(",")):
            rows.append(compare(runtimes, n, np.dtype(dtype_name), args.quick))
            print_row(rows[-1], labels)
    order = [*range(len(runtimes)), *reversed(range(len(runtimes)))]
    latencies: dict[int, list[dict[str, Any]]] = {i: [] for i in range(len(runtimes))}
    for i in order:
        latencies[i].append(latency(runtimes[i], args.quick))
    print(
        "\nlatency, 1K float32 (each runtime twice, the second time in reverse order; medians): dml.round on NumPy "
        "arrays, on device arrays, a bare enqueue + finish of the same kernel, and dml.round / bare"
    )
    summary = []
    for i, runs in latencies.items():
        figures = {
            "runtime": labels[i],
            "dml_round_us": statistics.median(r["dml_round_s"] for r in runs) * 1e6,
            "device_array_us": statistics.median(r["device_array_s"] for r in runs) * 1e6,
            "bare_enqueue_finish_us": statistics.median(r["bare_enqueue_finish_s"] for r in runs) * 1e6,
            "runs": runs,
        }
        summary.append(figures)
        dml_us, bare_us = figures["dml_round_us"], figures["bare_enqueue_finish_us"]
        print(
            f"  {figures['runtime']:44} {dml_us:7.1f} us {figures['device_array_us']:7.1f} us {bare_us:7.1f} us "
            f"{dml_us / bare_us:6.2f}x"
        )
    meta = {"runtimes": [{"device": e.describe(), "platform_version": e.cl_device.platform.version} for e in entries]}
    path = write_results(args.json, "cpu-runtimes", {"meta": meta, "rows": rows, "latency": summary}, indent=1)
    print(f"JSON written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
