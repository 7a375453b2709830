"""Benchmark one-node ONNX models through dmlpy.onnx against onnxruntime, side by side in one run (issue 47).

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_onnx_ops.py --devices 0,1     # 16M float32 on PoCL and Intel, minutes
    .venv/bin/python benchmarks/bench_onnx_ops.py --quick           # 64K elements, few repeats: a smoke run
    .venv/bin/python benchmarks/bench_onnx_ops.py --devices 0,1 --before /tmp/base --models Relu,"Round 1K"

Each model is one node on a (rows, 1024) float32 input (Softmax normalises each row of 1024), but for the chain
(GELU written as Div-Erf-Add-Mul-Mul, which dmlpy fuses into one kernel and onnxruntime runs as five) and the
small call (Round on 1K elements). Both columns are the whole call on NumPy arrays: ``rep.run([x])`` against
onnxruntime's ``session.run(None, {"x": x})`` (its CPU provider, 2 intra-op threads without spinning, on the same
cores), taking turns sample by sample (bench_round.measure_together), medians. The ratio is onnxruntime's time
over dmlpy's (above 1: dmlpy faster). Each model's results are compared first: exact operators must agree to
the bit, the others are reported as their largest difference relative to the largest result.

``--before ROOT`` adds a column: the same model run through the graph calls of another checkout (``git worktree add
/tmp/base REV``): its ``dmlpy/runtime/graph_calls.py`` is loaded and given to a second prepared model, which takes
turns with the other two. The kernels, the ONNX layer and everything under the graph call are this checkout's, so
the column isolates what a change to the graph calls (dmlpy/runtime/graph_*.py) did.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_math import run_meta
from bench_movement import runtime_label
from bench_round import Budget, Dml, budget_for, measure_together, onnxruntime_model, parse_size, write_results

ROW = 1024
"""Elements per row: Softmax's axis."""


@dataclass
class Model:
    """A one-node (or chain) model: its nodes, its initializers, its output type, and whether dmlpy must give
    onnxruntime's bits (operators with one right answer) or a close result (transcendental functions)."""

    name: str
    nodes: list[tuple[str, list[str], list[str], dict[str, Any]]]
    exact: bool
    output_type: str = "float32"
    initializers: dict[str, np.ndarray[Any, Any]] = field(default_factory=dict)
    second_input: bool = False
    positive: bool = False
    elements: int | None = None
    """Elements of its input where it is not the run's size (the small call)."""


def models(n: int) -> list[Model]:
    half, one, root2 = (np.array(v, np.float32) for v in (0.5, 1.0, np.sqrt(2.0)))
    unary = [Model(op, [(op, ["x"], ["y"], {})], exact=True) for op in ("Relu", "Abs", "Round", "Ceil")]
    binary = [Model(op, [(op, ["x", "b"], ["y"], {})], exact=True, second_input=True) for op in ("Add", "Mul", "Max")]
    transcendental = [Model(op, [(op, ["x"], ["y"], {})], exact=False) for op in ("Exp", "Tanh", "Sigmoid", "Erf")]
    return [
        *unary,
        *binary,
        Model("Div", [("Div", ["x", "b"], ["y"], {})], exact=True, second_input=True),
        Model("Cast", [("Cast", ["x"], ["y"], {"to": 10})], exact=True, output_type="float16"),
        Model(
            "QuantizeLinear",
            [("QuantizeLinear", ["x", "scale", "zero"], ["y"], {})],
            exact=True,
            output_type="uint8",
            initializers={"scale": np.array(0.02, np.float32), "zero": np.array(128, np.uint8)},
        ),
        Model("Sqrt", [("Sqrt", ["x"], ["y"], {})], exact=True, positive=True),
        *transcendental[:1],
        Model("Log", [("Log", ["x"], ["y"], {})], exact=False, positive=True),
        *transcendental[1:],
        Model("Softmax", [("Softmax", ["x"], ["y"], {"axis": -1})], exact=False),
        Model(
            "GELU chain",
            [
                ("Div", ["x", "root2"], ["d"], {}),
                ("Erf", ["d"], ["e"], {}),
                ("Add", ["e", "one"], ["a"], {}),
                ("Mul", ["x", "a"], ["m"], {}),
                ("Mul", ["m", "half"], ["y"], {}),
            ],
            exact=False,
            initializers={"root2": root2, "one": one, "half": half},
        ),
        Model("Round 1K", [("Round", ["x"], ["y"], {})], exact=True, elements=1024),
    ]


def onnx_model(model: Model, shape: tuple[int, ...]) -> Any:
    from onnx import TensorProto, helper, numpy_helper

    types = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16, "uint8": TensorProto.UINT8}
    inputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, shape) for name in input_names(model)]
    graph = helper.make_graph(
        [helper.make_node(op, ins, outs, **attributes) for op, ins, outs, attributes in model.nodes],
        model.name,
        inputs,
        [helper.make_tensor_value_info("y", types[model.output_type], shape)],
        initializer=[numpy_helper.from_array(value, name) for name, value in model.initializers.items()],
    )
    return onnxruntime_model(graph)


def input_names(model: Model) -> list[str]:
    return ["x", "b"] if model.second_input else ["x"]


def inputs(model: Model, shape: tuple[int, ...], rng: np.random.Generator) -> list[np.ndarray[Any, Any]]:
    """Normal values of scale 2 (a second input away from 0, so that Div stays finite), positive ones for Sqrt
    and Log."""
    x = (rng.standard_normal(shape) * 2).astype(np.float32)
    if model.positive:
        x = np.abs(x) + np.float32(1e-3)
    if not model.second_input:
        return [x]
    b = rng.standard_normal(shape).astype(np.float32)
    return [x, np.where(np.abs(b) < 0.1, np.float32(0.5), b).astype(np.float32)]


def difference(got: np.ndarray[Any, Any], want: np.ndarray[Any, Any]) -> float:
    """The largest difference between the two results, relative to the largest result (0: the same bits)."""
    if got.tobytes() == want.tobytes():
        return 0.0
    wide_got, wide_want = got.astype(np.float64), want.astype(np.float64)
    return float(np.max(np.abs(wide_got - wide_want)) / max(float(np.max(np.abs(wide_want))), 1e-30))


def graph_calls_of(root: Path) -> Any:
    """The GraphCalls class of the checkout at ``root`` (its dmlpy/runtime/graph_calls.py over this checkout's
    dmlpy), for the ``--before`` column."""
    spec = importlib.util.spec_from_file_location("before_graph_calls", root / "dmlpy" / "runtime" / "graph_calls.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"--before: no dmlpy/runtime/graph_calls.py under {root}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.GraphCalls


def measured(
    runtime: Dml, model: Model, n: int, quick: bool, session_options: Any, before: Any = None
) -> dict[str, Any]:
    import onnxruntime as ort

    from dmlpy.onnx import backend

    elements = model.elements or n
    shape = (elements,) if model.elements else (elements // ROW, ROW)
    arrays = inputs(model, shape, np.random.default_rng(47))
    serialized = onnx_model(model, shape).SerializeToString()
    rep = backend.DmlBackend.prepare(serialized, dml_device=runtime.device)
    session = ort.InferenceSession(serialized, session_options, providers=["CPUExecutionProvider"])
    feeds = dict(zip(input_names(model), arrays, strict=True))
    (got,) = rep.run(arrays)
    (want,) = session.run(None, feeds)
    error = difference(got, want)
    if model.exact and error:
        raise SystemExit(f"{model.name}: dmlpy and onnxruntime differ by {error:.3g} on an exact operator")
    del got, want  # not held: a repeated run may compute into its pooled output again
    calls: dict[str, Callable[[], object]] = {
        "onnxruntime": lambda: session.run(None, feeds),
        "dmlpy": lambda: rep.run(arrays),
    }
    if before is not None:
        earlier = backend.DmlBackend.prepare(serialized, dml_device=runtime.device)
        earlier.run(arrays)  # compiled, then run through the other checkout's graph calls
        earlier.compiled_graphs[0]._calls = before()
        calls["before"] = lambda: earlier.run(arrays)
    quick_budget = Budget(min_samples=3, max_samples=5, seconds=0.05, sample_seconds=2e-4)
    timings = measure_together(calls, quick_budget if quick else budget_for(4 * elements * 2, quick))
    ort_s, dml_s = timings["onnxruntime"].seconds, timings["dmlpy"].seconds
    row = {
        "model": model.name,
        "elements": elements,
        "kernels": rep.compiled_graphs[0].kernel_count,
        "onnxruntime_s": ort_s,
        "dmlpy_s": dml_s,
        "ratio": ort_s / dml_s,
        "relative_difference": error,
    }
    if before is not None:
        row |= {"before_s": timings["before"].seconds, "ratio_before": ort_s / timings["before"].seconds}
    return row


def print_row(row: dict[str, Any], label: str) -> None:
    def ms(seconds: float) -> str:
        return f"{seconds * 1e3:9.3f}" if seconds >= 1e-3 else f"{seconds * 1e6:7.1f}us"

    before = f" {ms(row['before_s'])} {row['ratio_before']:6.2f}" if "before_s" in row else ""
    print(
        f"{label:8} {row['model']:15} {row['elements']:>9} {row['kernels']:>3} {ms(row['onnxruntime_s'])} "
        f"{ms(row['dmlpy_s'])} {row['ratio']:6.2f} {row['relative_difference']:9.2g}{before}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="16M", help="elements (K and M: powers of two; a multiple of 1024)")
    parser.add_argument("--devices", help="indices from `dmlpy devices`, comma-separated (default: the default one)")
    parser.add_argument("--quick", action="store_true", help="64K elements and few repeats: a smoke run")
    parser.add_argument("--json", type=Path, help="output file (default benchmarks/results/onnx-ops-<time>.json)")
    parser.add_argument("--models", help="the models to run, comma-separated names (default: every one)")
    parser.add_argument("--before", type=Path, help="a checkout whose graph calls run as a column beside (see above)")
    args = parser.parse_args(argv)
    import onnxruntime as ort

    n = parse_size("64K" if args.quick else args.size)
    if n % ROW:
        parser.error(f"--size: {n} elements are not rows of {ROW}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    # Its worker threads otherwise spin after each run, taking the cores from the dmlpy call measured next.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    indices: list[int | None] = [None] if args.devices is None else [int(i) for i in args.devices.split(",")]
    chosen = models(n) if args.models is None else [m for m in models(n) if m.name in args.models.split(",")]
    before = None if args.before is None else graph_calls_of(args.before)
    rows, metas = [], []
    print(
        f"{'device':8} {'model':15} {'elements':>9} {'k':>3} {'ort ms':>9} {'dmlpy ms':>9} {'ort/dml':>6} {'diff':>9}"
        + (f" {'before ms':>9} {'ort/bef':>6}" if before is not None else "")
    )
    for index in indices:
        runtime = Dml(index)
        metas.append(run_meta(runtime, n))
        for model in chosen:
            row = measured(runtime, model, n, args.quick, options, before) | {"device": runtime_label(runtime)}
            rows.append(row)
            print_row(row, row["device"])
    path = write_results(args.json, "onnx-ops", {"meta": metas, "rows": rows}, indent=1)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
