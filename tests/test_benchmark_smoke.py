"""The benchmark script runs end to end on tiny sizes and writes its JSON. Timings are never asserted here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers.modes import ONE_LINER_MODES

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_round.py"


def test_quick_run_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "round.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--sizes", "1K,1000", "--peers", "numpy", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report) >= {"meta", "results", "extras", "targets"}
    assert set(report["extras"]) == {"latency", "warm_cache", "peak_memory"}
    rows = report["results"]
    # 2 sizes x 2 dtypes x 4 layouts x 3 modes
    assert len(rows) == 2 * 2 * 4 * 3
    assert {(r["dtype"], r["layout"], r["mode"]) for r in rows} == {
        (d, layout, m)
        for d in ("float32", "float16")
        for layout in ("packed", "inplace", "strided", "broadcast")
        for m in ONE_LINER_MODES
    }
    for row in rows:
        assert set(row) == {"dtype", "size", "layout", "mode", "seconds", "gbps", "ratios"}
        for key in (
            "np.copyto",
            "copy_kernel",
            "kernel",
            "device_array",
            "copy_kernel_events",
            "device_array_events",
            "end_to_end",
        ):
            assert row["gbps"][key] > 0
        for key in ("kernel/copy_kernel", "device_array_events/copy_kernel_events", "end_to_end/np.copyto"):
            assert key in row["ratios"]
        assert (row["gbps"]["numpy"] is None) == (row["mode"] == "half_away_from_zero")
    assert {t["target"] for t in report["targets"]} == {*range(1, 10), "14a", "14b"}
    assert report["extras"]["peak_memory"]["correct"] is True
    assert "Targets" in done.stdout
