"""Running a script of benchmarks/ as the smoke tests in tests/device/artefacts do: one short run in a subprocess,
its JSON report read back. Timings are never asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


QUICK_ROUND_COMMAND = ".venv/bin/python benchmarks/bench_round.py --quick --peers numpy"
"""The README's smoke run of the Round benchmark: test_benchmark_smoke.py runs it (its report in a temporary file) and
checks what it wrote, so the README's shell-line test leaves it out rather than run it twice."""


def run_benchmark(script: str, tmp_path: Path, *arguments: str, timeout: float = 300) -> tuple[dict[str, Any], str]:
    """``benchmarks/<script> *arguments --json <file in tmp_path>``: exit status 0 (else its output's tail in the
    assertion), then the report it wrote and what it printed."""
    out = tmp_path / f"{Path(script).stem}.json"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *arguments, "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return json.loads(out.read_text(encoding="utf-8")), done.stdout
