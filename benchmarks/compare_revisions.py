"""Two revisions of dmlpy side by side: one benchmark script run alternately on each, the medians and their ratio.

A change that must not cost speed (a refactoring) is judged against the commit before it on the same machine in
the same minutes: one run of each in turn, repeated, so drifting load (a busy neighbour, turbo clocks) hits both
alike. Each revision runs from a temporary git worktree, with this checkout's virtual environment.

Usage (from the repository root)::

    .venv/bin/python benchmarks/compare_revisions.py HEAD~1 HEAD --repeats 3 -- \\
        --sizes 1K,16M --dtypes float32 --modes half_to_even --layouts packed --peers numpy --extras latency

Everything after ``--`` goes to the benchmark, bench_round.py unless ``--bench`` names another script of this
checkout's ``benchmarks/`` (bench_engine.py: the element-wise engine's operators). The script is always this
checkout's, run with each revision's dmlpy first on sys.path, so both revisions measure the same rows.
``WORKTREE`` names the working tree as it is (uncommitted
changes included) instead of a commit. Printed: per row (dtype, size, layout, mode) and measurement (kernel,
end-to-end, copy kernel), and for the 1K latency, the median seconds of each revision and new/old.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORKTREE = "WORKTREE"
MEASUREMENTS = ("kernel", "end_to_end", "copy_kernel", "dispatch")


def checkout(revision: str, into: Path) -> Path:
    """A directory holding ``revision``'s tree (this checkout itself for WORKTREE)."""
    if revision == WORKTREE:
        return ROOT
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(into), revision], check=True)
    return into


def bench_once(tree: Path, bench: str, bench_args: list[str], output: Path) -> dict[str, Any]:
    """One run of this checkout's ``benchmarks/<bench>`` on ``tree``'s dmlpy (its sources first on sys.path);
    the parsed JSON."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, str(ROOT / "benchmarks" / bench), *bench_args, "--json", str(output)]
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    result: dict[str, Any] = json.loads(output.read_text())
    return result


def samples(runs: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Seconds per measurement name across runs: one list per row and measurement, plus the latency extra."""
    collected: dict[str, list[float]] = {}
    for run in runs:
        for row in run["results"]:
            name = f"{row['dtype']} {row['size']} {row['layout']} {row['mode']}"
            for measurement in MEASUREMENTS:
                seconds = row["seconds"].get(measurement)
                if seconds is not None:
                    collected.setdefault(f"{name} {measurement}", []).append(seconds)
        latency = (run.get("extras") or {}).get("latency")
        if latency:
            for key in ("dml_round_s", "dml_round_out_s", "bare_enqueue_finish_s"):
                collected.setdefault(f"latency 1K {key.removesuffix('_s')}", []).append(latency[key])
    return collected


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="a git revision, or WORKTREE")
    parser.add_argument("new", help="a git revision, or WORKTREE")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each revision, alternating (default 3)")
    parser.add_argument("--bench", default="bench_round.py", help="the script of benchmarks/ to run on each")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args, bench_args = parser.parse_args(argv[:split]), argv[split + 1 :]
    with tempfile.TemporaryDirectory(prefix="dmlpy-compare-") as scratch:
        base = Path(scratch)
        trees = {label: checkout(rev, base / label) for label, rev in (("old", args.old), ("new", args.new))}
        try:
            runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
            for repeat in range(args.repeats):
                for label, tree in trees.items():
                    runs[label].append(bench_once(tree, args.bench, bench_args, base / f"{label}-{repeat}.json"))
                    print(f"run {repeat + 1}/{args.repeats} of {label} done", file=sys.stderr)
        finally:
            for tree in trees.values():
                if tree != ROOT:
                    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
    old, new = samples(runs["old"]), samples(runs["new"])
    print(f"{args.old} (old) against {args.new} (new), {args.repeats} alternating runs each; median seconds")
    print(f"{'measurement':<58} {'old':>11} {'new':>11} {'new/old':>8}")
    for name in old:
        if name in new:
            before, after = statistics.median(old[name]), statistics.median(new[name])
            print(f"{name:<58} {before:11.3e} {after:11.3e} {after / before:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
