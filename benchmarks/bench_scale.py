"""Benchmark dmlpy beyond one device: Dask on a LocalCluster of worker processes, and one host array split
across OpenCL sub-devices, in one run.

Usage (from the repository root, after the two set-up commands of the README)::

    .venv/bin/python benchmarks/bench_scale.py            # 256M float32 in 32 chunks; 64M on sub-devices
    .venv/bin/python benchmarks/bench_scale.py --quick    # tiny sizes (the smoke test)

Dask: a 256M-element float32 array (1 GiB) in 32 chunks, generated on the workers and kept in their memory
(``persist``), then rounded (halves to even) into worker memory (``persist`` of the result, waited for): the
rounding alone, not the transfer of a gigabyte to the client. Engines: ``dml.round`` (each worker's default
device), NumPy's ``np.rint`` block by block (``map_blocks``) and dask's own ``da.rint``, each on a LocalCluster of
1 and of 2 worker processes (one thread each). Sub-devices: ``dml.round(x, devices=...)`` on 64M float32
elements with 1 and with 2 sub-devices of the default CPU device (``dml.sub_devices``), into ``out=y`` (through a
scratch array, so a failing device leaves ``y`` untouched) and into a new result, against the whole device and
``np.rint``. GB/s counts bytes read and written.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_round import parse_size, size_label, write_results


def _same(block: Any) -> Any:
    return block


def _rounded(x: Any, engine: str) -> Any:
    import dask.array as da

    import dmlpy as dml

    if engine == "dml.round":
        return dml.round(x)
    if engine == "np.rint blocks":
        return x.map_blocks(np.rint, dtype=x.dtype)
    return da.rint(x)


def dask_rows(n: int, chunks: int, repeats: int) -> list[dict[str, Any]]:
    import dask.array as da
    import distributed

    rows = []
    for workers in (1, 2):
        cluster = distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        )
        with distributed.Client(cluster):
            # The input lives in the workers' memory first, so only the rounding is timed, not generating it.
            x = (da.random.default_rng(7).standard_normal(n, chunks=n // chunks, dtype=np.float32) * 100).persist()
            distributed.wait(x)
            for engine in ("dml.round", "np.rint blocks", "da.rint"):
                samples = []
                for attempt in range(repeats + 1):  # the first warms workers (devices, kernels, imports)
                    # A new name for the same blocks (no copy): results of an earlier attempt, still held by the
                    # scheduler for a moment, must not be found again under the same keys.
                    fresh = x.map_blocks(_same, dtype=x.dtype, name=f"input-{engine}-{attempt}-{time.time_ns()}")
                    start = time.perf_counter()
                    result = _rounded(fresh, engine).persist()
                    distributed.wait(result)
                    if attempt:
                        samples.append(time.perf_counter() - start)
                    del result
                seconds = float(np.median(samples))
                rows.append({"workers": workers, "engine": engine, "seconds": seconds, "gbps": 8 * n / seconds / 1e9})
                print(
                    f"dask  {workers} worker(s)  {engine:15} {seconds:7.3f} s  {rows[-1]['gbps']:6.1f} GB/s",
                    flush=True,
                )
        cluster.close()
    return rows


def sub_device_rows(n: int, repeats: int) -> list[dict[str, Any]]:
    import dmlpy as dml

    x = (np.random.default_rng(1).standard_normal(n) * 100).astype(np.float32)
    y = np.empty_like(x)
    rows = []
    splits: dict[str, Any] = {"1 sub-device": dml.sub_devices(1), "2 sub-devices": dml.sub_devices(2)}
    engines = {f"{name}, out=y": (lambda d=d: dml.round(x, out=y, devices=d)) for name, d in splits.items()}
    engines.update({f"{name}, new result": (lambda d=d: dml.round(x, devices=d)) for name, d in splits.items()})
    root = dml.default_device()
    engines["whole device, out=y"] = lambda: dml.round(x, out=y, device=root)
    engines["np.rint, out=y"] = lambda: np.rint(x, out=y)
    for fn in engines.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in engines}
    for _ in range(repeats):
        for name, fn in engines.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    for name, samples in times.items():
        seconds = float(np.median(samples))
        rows.append({"engine": name, "seconds": seconds, "gbps": 2 * x.nbytes / seconds / 1e9})
        print(f"split {size_label(n):>5} {name:26} {seconds * 1e3:8.1f} ms  {rows[-1]['gbps']:6.1f} GB/s", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dask-size", default="256M")
    parser.add_argument("--chunks", type=int, default=32)
    parser.add_argument("--split-size", default="64M")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else 3
    dask_n = parse_size("1M" if args.quick else args.dask_size)
    split_n = parse_size("64K" if args.quick else args.split_size)
    print(f"Dask: {size_label(dask_n)} float32 in {args.chunks} chunks; sub-devices: {size_label(split_n)}\n")
    report = {"dask": dask_rows(dask_n, args.chunks, repeats), "sub_devices": sub_device_rows(split_n, repeats * 3)}
    path = write_results(args.json, "scale", report)
    print(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
