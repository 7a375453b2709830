"""benchmarks/bench_cpu_runtimes.py runs end to end on tiny sizes and writes its JSON. Timings are never asserted.

It compares two CPU runtimes; where only one builds kernels here, it is compared with itself (the smoke run checks
the script, not the machine)."""

from __future__ import annotations

from pathlib import Path

from dmlpy.runtime.platforms import list_devices
from tests.helpers.benchmarks import run_benchmark


def test_quick_run_writes_a_row_per_dtype_with_every_runtime(tmp_path: Path) -> None:
    cpus = [e.index for e in list_devices() if e.kind == "CPU" and e.compiler_error is None]
    chosen = (cpus * 2)[:2]
    devices = ",".join(map(str, chosen))
    report, _ = run_benchmark(
        "bench_cpu_runtimes.py", tmp_path, "--quick", "--sizes", "1K", "--devices", devices, timeout=180
    )
    assert [(row["dtype"], row["size"]) for row in report["rows"]] == [("float32", 1024), ("float16", 1024)]
    engines = {"copy_kernel", "kernel", "end_to_end", "copy_kernel@", "device_array@"}
    for row in report["rows"]:
        assert set(row["gbps"]) == {"np.copyto"} | {f"{i}:{engine}" for i in (0, 1) for engine in engines}
        assert all(value > 0 for value in row["gbps"].values())
    assert len(report["latency"]) == 2 and all(len(entry["runs"]) == 2 for entry in report["latency"])
