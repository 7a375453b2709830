"""The transcendental element-wise operators against the copy kernel on every device (issue 47): EXP, LOG, TANH,
ACTIVATION_SIGMOID and ERF alone, 16M packed FLOAT32 elements, through the object model on pre-bound device buffers
(bench_engine.Bound) under each device's default launch profile (``--profile`` names another).

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_transcendental.py              # 16M elements, every device, a minute
    .venv/bin/python benchmarks/bench_transcendental.py --size 1M --devices 0

Per device and operator: the kernel's own time (profiling events, median of 15) taking turns with the copy kernel
of the same bytes (bench_round.py's), and copy / kernel, the issue's measure (1.0: at the memory limit). Inputs
are uniform over where each result is neither 0 nor saturated (EXP on [-10, 10], LOG on [0.001, 1000], ...), so
no row times special cases. Timings are never asserted."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import Bound
from bench_round import Dml, event_timings, parse_size

OPERATORS = {
    "ElementWiseExpOperatorDesc": (-10.0, 10.0),
    "ElementWiseLogOperatorDesc": (0.001, 1000.0),
    "ElementWiseTanhOperatorDesc": (-10.0, 10.0),
    "ActivationSigmoidOperatorDesc": (-20.0, 20.0),
    "ElementWiseErfOperatorDesc": (-4.0, 4.0),
}
"""Each operator's descriptor class name in dmlpy and the range of its inputs."""


def device_rows(index: int, n: int, profile: str) -> list[dict[str, Any]]:
    """Every operator of OPERATORS on device ``index`` under launch ``profile``: kernel and copy kernel times taking
    turns."""
    dml_ = Dml(index)
    if profile != "auto":  # the same queues, another launch profile
        for name in ("device", "profiled"):
            queue = getattr(dml_, name).queue
            setattr(dml_, name, dml_.dml.create_device(cl_queue=queue, launch_profile=profile))
    _, copy_events = dml_.copy_kernel(n, 4)
    rng = np.random.default_rng(47)
    rows = []
    for name, (low, high) in OPERATORS.items():
        x = rng.uniform(low, high, n).astype(np.float32)
        packed = dml_.dml.BufferTensorDesc(data_type="FLOAT32", sizes=(n,))
        bound = Bound(dml_, getattr(dml_.dml, name)(input_tensor=packed, output_tensor=packed), [x])
        events = event_timings({"kernel": bound.events, "copy": copy_events}, quick=False)
        kernel, copy = events["kernel"].seconds, events["copy"].seconds
        row = {
            "device": f"{dml_.device.cl_device.name} ({dml_.device.launch_profile.name})",
            "operator": name,
            "kernel_ms": kernel * 1e3,
            "copy_ms": copy * 1e3,
        }
        print(
            f"device {index} {row['device'][:24]:24s} {name:32s} kernel {kernel * 1e3:7.2f} ms  "
            f"copy {copy * 1e3:6.2f} ms  copy/kernel {copy / kernel:5.2f}",
            flush=True,
        )
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="16M", help="elements (K and M are powers of two); default 16M")
    parser.add_argument("--devices", default=None, help="comma-separated device indices (default: every device)")
    parser.add_argument("--profile", default="auto", help="launch profile: auto (each device's), cpu or gpu")
    args = parser.parse_args(argv)
    from dmlpy.runtime.platforms import list_devices

    usable = [entry.index for entry in list_devices() if entry.compiler_error is None]
    indices = [int(i) for i in args.devices.split(",")] if args.devices else usable
    for index in indices:
        device_rows(index, parse_size(args.size), args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
