"""The real-model acceptance set (issue 46, tests/models) in one run: per model, whether dmlpy.onnx prepares it
(else the op types it refuses, with their node counts), whether it runs, the largest error against onnxruntime and
whether that is within the model's tolerance, the ratio of one run's times (onnxruntime / dmlpy, after a first
compiling run, both on every core this process may use: above 1 dmlpy is faster) and the DirectML operators of each
kind the model became; where dmlpy's time goes (one more run, its kernels waited for one by one: each operator's
share); then the median ratio over the models that run, and the op types ranked by how many models
they stop. docs/models.md shows the table and how the models are obtained.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_models.py                      # every model (slow ones fetched and built)
    .venv/bin/python benchmarks/bench_models.py --fast               # only the default suite's models
    .venv/bin/python benchmarks/bench_models.py --models hf-gpt2,magika --device 1

Torch exports and int4 versions need a Python with torch, torchvision, transformers, onnxscript and onnxruntime:
DMLPY_MODELS_PYTHON names it (default this one); DMLPY_MODELS_CACHE the cache folder (~/.cache/dmlpy-models).
The JSON (default benchmarks/results/models-<time>.json) holds every row, the median ratio and the ranking.
Timings are one run each and never asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_round import write_results

from tests.models.catalogue import BY_NAME, MODELS, Model
from tests.models.runner import Outcome, run_model


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in counts.items())


def row_line(model: Model, outcome: Outcome) -> str:
    """One model's table row (docs/models.md's columns)."""
    error = "" if outcome.max_error is None else f"{outcome.max_error:.2g}"
    ratio = "" if outcome.ratio is None else f"{outcome.ratio:.3g}"
    refused = _counts(outcome.refused_ops)
    if outcome.in_subgraphs:
        refused += f" (in its branches: {_counts(outcome.in_subgraphs)})"
    if outcome.stage in ("unobtainable", "onnxruntime fails", "crashed at prepare", "crashed at run"):
        refused = outcome.message.splitlines()[0][:160]
    tolerance = f"{model.tolerance.atol:g}, {model.tolerance.rtol:g}"  # no "|" in a Markdown cell
    cells = [model.name, model.kind, model.precision, outcome.stage, refused, error, tolerance, ratio]
    cells.append(_counts(outcome.directml_operators) + (f" ({outcome.kernels} kernels)" if outcome.kernels else ""))
    return "| " + " | ".join(cells) + " |"


HEADER = (
    "| model | kind | precision | today | refused op types (nodes) | max error | atol, rtol | ort/dmlpy | "
    "DirectML operators |\n|---|---|---|---|---|---|---|---|---|"
)

TIME_HEADER = (
    "\n| model | onnxruntime ms | dmlpy ms | where dmlpy's time goes (share of a run with each kernel waited for) |"
    "\n|---|---|---|---|"
)


def time_line(outcome: Outcome, top: int = 4) -> str:
    """A model's times and its ``top`` operators by their share of a kernel-by-kernel run (kernel_times.py)."""
    total = sum(outcome.time_by_operator.values())
    largest = list(outcome.time_by_operator.items())[:top]
    shares = ", ".join(f"{name} {seconds / total:.0%}" for name, seconds in largest)
    ort, dml = (f"{1e3 * s:.2f}" if s is not None else "" for s in (outcome.onnxruntime_s, outcome.dmlpy_s))
    return f"| {outcome.name} | {ort} | {dml} | {shares} |"


def ranking(outcomes: list[Outcome]) -> list[tuple[str, int, int]]:
    """(op type, models it stops, nodes in all) over the refusals, most models first."""
    models: Counter[str] = Counter()
    nodes: Counter[str] = Counter()
    for outcome in outcomes:
        for op, count in {**outcome.refused_ops, **outcome.in_subgraphs}.items():
            models[op] += 1
            nodes[op] += count
    return sorted(((op, models[op], nodes[op]) for op in models), key=lambda row: (-row[1], -row[2], row[0]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="names from tests/models/catalogue.py, comma-separated (default: all)")
    parser.add_argument("--fast", action="store_true", help="only the models of the default test suite")
    parser.add_argument("--device", type=int, help="index from `dmlpy devices` (default: dmlpy's default device)")
    parser.add_argument("--json", type=Path, help="output file (default benchmarks/results/models-<time>.json)")
    args = parser.parse_args(argv)
    unknown = [name for name in (args.models or "").split(",") if name and name not in BY_NAME]
    if unknown:
        parser.error(f"--models: {', '.join(unknown)} not in the catalogue; it has {', '.join(BY_NAME)}")
    chosen = [BY_NAME[name] for name in args.models.split(",")] if args.models else list(MODELS)
    chosen = [model for model in chosen if model.fast or not args.fast]
    device: Any = None
    if args.device is not None:
        import dmlpy as dml

        device = dml.create_device(cl_device=dml.devices()[args.device].cl_device)
    print(HEADER, flush=True)
    outcomes = []
    for model in chosen:
        outcome = run_model(model, device, time_operators=True)
        outcomes.append(outcome)
        print(row_line(model, outcome), flush=True)
    ratios = [outcome.ratio for outcome in outcomes if outcome.ratio is not None]
    median = statistics.median(ratios) if ratios else None
    ran = sum(outcome.stage == "matches" for outcome in outcomes)
    print(f"\n{ran} of {len(outcomes)} models run and match onnxruntime; median onnxruntime/dmlpy ratio: {median}")
    print(TIME_HEADER)
    for outcome in outcomes:
        if outcome.time_by_operator:
            print(time_line(outcome))
    ranked = ranking(outcomes)
    print("\n| op type | models it stops | nodes |\n|---|---|---|")
    for op, models, nodes in ranked:
        print(f"| {op} | {models} | {nodes} |")
    report = {
        "models": [{**outcome.as_json(), "source": BY_NAME[outcome.name].source} for outcome in outcomes],
        "median_ratio": median,
        "ranking": [{"op_type": op, "models": models, "nodes": nodes} for op, models, nodes in ranked],
    }
    print(f"\nwritten: {write_results(args.json, 'models', report, indent=1)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
