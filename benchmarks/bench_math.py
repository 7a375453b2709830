"""DirectML's 17 unary float math operators (issue 31, group 1: SQRT, RECIP, EXP, LOG, the trigonometric and
hyperbolic functions and their inverses, ERF) alone on packed FLOAT32 and FLOAT16 tensors, and two fused chains
of the operators dmlpy has now, side by side with copy kernels of their bytes and NumPy, in one run.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_math.py --json /tmp/math.json     # 16M elements, a few minutes
    .venv/bin/python benchmarks/bench_math.py --size 1M --dtypes float32
    .venv/bin/python benchmarks/bench_math.py --quick                   # a smoke run: 64K elements, seconds

Each operator alone, per type, through the object model on pre-bound device buffers (bench_engine.Bound), on
dmlpy's default device and its default launch profile ("cpu" on a CPU device):

    kernel      the dispatch's own time on a profiling queue (bench_graph.dispatch_events), median of 15, taking turns
                with the copy kernel
    copy        the copy kernel (bench_round.py's, 32-bit words) over the operator's bytes: it reads and writes
                what the operator reads and writes; copy / kernel is the operator's speed against memory (the
                issue's target: >= 0.9 for the memory-bound operators)
    per core    elements per second per compute unit of the kernel time: the bound of an operator that computation
                bounds, not memory
    numpy       NumPy's function on the same array into a preallocated one (``out=``), wall time against the
                dispatch's own (``record_dispatch`` + wait), the two taking turns (bench_round.measure_together);
                NumPy computes a float16 function through float32 one element at a time, and has no erf

Two chains, FLOAT32 results only through what exists now, each as one fused kernel and node by node
(``compile_graph(fuse=False)``: each node its own kernel, intermediates in the temporary resource):

    qdq_exp     INT8 -> DequantizeLinear -> Exp -> QuantizeLinear -> INT8 (per-tensor scales and zero points)
    sqrt_round  FLOAT32 -> Identity (ScaleBias 2, 1) -> Sqrt -> Round (halves to even) -> FLOAT32

against the copy kernel of the chain's input and output bytes (kernel times, taking turns), and NumPy's and
onnxruntime's CPU provider's (where installed: ``pip install onnxruntime onnx``) execution of the same chain,
wall times taking turns with the fused dispatch. The script checks that fused and separate give the same bytes.
Timings are never asserted by the test suite; tests/device/artefacts/test_bench_math_smoke.py runs ``--quick``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # the repository root, for tests.helpers, after PYTHONPATH
from bench_engine import Bound
from bench_round import (
    MEMORY_BOUND,
    Dml,
    budget_for,
    event_timings,
    measure_together,
    onnxruntime_model,
    parse_size,
    print_memory_bound_count,
    size_label,
    write_results,
)

from dmlpy.ops.element_wise_math import MATH_OPERATORS
from tests.helpers.operators import MATH_FUNCTIONS

DOMAINS: dict[str, tuple[float, float]] = {
    "SQRT": (0.0, 1000.0),
    "RECIP": (0.5, 1000.0),
    "EXP": (-10.0, 10.0),
    "LOG": (0.001, 1000.0),
    "SIN": (-10.0, 10.0),
    "COS": (-10.0, 10.0),
    "TAN": (-10.0, 10.0),
    "ASIN": (-1.0, 1.0),
    "ACOS": (-1.0, 1.0),
    "ATAN": (-10.0, 10.0),
    "SINH": (-10.0, 10.0),
    "COSH": (-10.0, 10.0),
    "TANH": (-10.0, 10.0),
    "ASINH": (-1000.0, 1000.0),
    "ACOSH": (1.0, 1000.0),
    "ATANH": (-0.999, 0.999),
    "ERF": (-4.0, 4.0),
}
"""Each operator's inputs: uniform over where its result is finite in FLOAT16 too, so that no row times the
special cases (NaN, infinity) instead of the function."""

NUMPY: dict[Any, Callable[..., Any]] = {desc: f for desc, f in MATH_FUNCTIONS.items() if isinstance(f, np.ufunc)}
"""NumPy's ufunc of each operator: the test table's references (MATH_FUNCTIONS), less ERF's (NumPy has no erf)."""


def operator_row(dml_: Dml, desc_class: Any, x: np.ndarray[Any, Any], copy_events: Any, quick: bool) -> dict[str, Any]:
    """One operator on the packed array ``x``: its kernel and the copy kernel of its bytes taking turns, then its
    dispatch and NumPy's function taking turns."""
    n = x.size
    real = "FLOAT16" if x.dtype == np.float16 else "FLOAT32"
    packed = dml_.dml.BufferTensorDesc(data_type=real, sizes=(n,))
    bound = Bound(dml_, desc_class(input_tensor=packed, output_tensor=packed), [x])
    events = event_timings({"kernel": bound.events, "copy": copy_events}, quick)
    kernel, copy = (events[name].seconds for name in ("kernel", "copy"))
    ufunc, out = NUMPY.get(desc_class), np.empty_like(x)
    walls: dict[str, Callable[[], object]] = {"dispatch": bound.wall}
    if ufunc is not None:
        walls["numpy"] = lambda: ufunc(x, out=out)
    wall = measure_together(walls, budget_for(2 * x.nbytes, quick))
    numpy_s = wall["numpy"].seconds if "numpy" in wall else None
    return {
        "operator": desc_class.OPERATOR_TYPE.name,
        "dtype": x.dtype.name,
        "elements": n,
        "kernel_s": kernel,
        "copy_s": copy,
        "copy_over_kernel": copy / kernel,
        "elements_per_s_per_core": n / kernel / dml_.device.cl_device.max_compute_units,
        "dispatch_s": wall["dispatch"].seconds,
        "numpy_s": numpy_s,
        "numpy_over_dispatch": None if numpy_s is None else numpy_s / wall["dispatch"].seconds,
    }


def operator_rows(dml_: Dml, n: int, dtypes: list[str], quick: bool) -> list[dict[str, Any]]:
    rng = np.random.default_rng(31)
    rows = []
    for dtype in dtypes:
        _, copy_events = dml_.copy_kernel(n * np.dtype(dtype).itemsize // 4, 4)
        for desc_class in MATH_OPERATORS:
            x = rng.uniform(*DOMAINS[desc_class.FUNCTION], n).astype(dtype)
            row = operator_row(dml_, desc_class, x, copy_events, quick)
            rows.append(row)
            ratio = row["numpy_over_dispatch"]
            print(
                f"{row['operator']:20} {dtype:8} kernel {row['kernel_s'] * 1e3:8.2f} ms  "
                f"copy {row['copy_s'] * 1e3:7.2f} ms  copy/kernel {row['copy_over_kernel']:5.2f}  "
                f"{row['elements_per_s_per_core'] / 1e9:5.2f} Gelem/s/core  "
                f"numpy/dispatch {'-' if ratio is None else f'{ratio:.2f}x'}",
                flush=True,
            )
    rest = [r for r in rows if r["copy_over_kernel"] < MEMORY_BOUND]
    print_memory_bound_count(rows)
    if rest:
        per_core = [r["elements_per_s_per_core"] / 1e9 for r in rest]
        print(
            f"the other {len(rest)}, bound by computation: {min(per_core):.3f}-{max(per_core):.3f} Gelem/s per core",
            flush=True,
        )
    return rows


# --------------------------------------------------------------------------------------------- chains


def qdq_exp(dml: Any, n: int) -> tuple[Any, list[np.ndarray[Any, Any]], Callable[[], object], Any]:
    """INT8 -> DequantizeLinear (scale 1/50) -> Exp -> QuantizeLinear (scale 1/20, zero point -128) -> INT8:
    (graph desc, its inputs, NumPy's chain, the ONNX model's nodes and initializers)."""
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    x = g.input(dml.BufferTensorDesc(data_type="INT8", sizes=(n,)))
    scalar = {
        name: g.input(dml.BufferTensorDesc(data_type=data_type, sizes=(n,), strides=(0,)))
        for name, data_type in (("s1", "FLOAT32"), ("z1", "INT8"), ("s2", "FLOAT32"), ("z2", "INT8"))
    }
    real = dml.graph.exp(dml.graph.dequantize_linear(x, scalar["s1"], scalar["z1"]))
    y = dml.graph.quantize_linear(real, scalar["s2"], scalar["z2"])
    values = {"s1": np.float32(0.02), "z1": np.int8(0), "s2": np.float32(0.05), "z2": np.int8(-128)}
    data = np.random.default_rng(3).integers(-128, 128, n, dtype=np.int8)
    temporary, out = np.empty(n, np.float32), np.empty(n, np.int8)

    def numpy_chain() -> None:
        np.subtract(data, values["z1"], out=temporary, dtype=np.float32)
        np.multiply(temporary, values["s1"], out=temporary)
        np.exp(temporary, out=temporary)
        np.divide(temporary, values["s2"], out=temporary)
        np.rint(temporary, out=temporary)
        np.add(temporary, values["z2"], out=temporary)
        np.clip(temporary, -128, 127, out=temporary)
        np.copyto(out, temporary, casting="unsafe")

    onnx_nodes = [
        ("DequantizeLinear", ["x", "s1", "z1"], "r", {}),
        ("Exp", ["r"], "e", {}),
        ("QuantizeLinear", ["e", "s2", "z2"], "y", {}),
    ]
    inputs = [data, *(np.array([v]) for v in values.values())]
    return g.desc_for([y]), inputs, numpy_chain, (onnx_nodes, values)


def sqrt_round(dml: Any, n: int) -> tuple[Any, list[np.ndarray[Any, Any]], Callable[[], object], Any]:
    """FLOAT32 -> Identity (ScaleBias 2, 1) -> Sqrt -> Round (halves to even) -> FLOAT32, as qdq_exp."""
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    x = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=(n,)))
    y = dml.graph.round(dml.graph.sqrt(dml.graph.identity(x, scale_bias=(2.0, 1.0))), "half_to_even")
    data = np.random.default_rng(4).uniform(0, 1000, n).astype(np.float32)
    out = np.empty_like(data)

    def numpy_chain() -> None:
        np.multiply(data, np.float32(2), out=out)
        np.add(out, np.float32(1), out=out)
        np.sqrt(out, out=out)
        np.rint(out, out=out)

    onnx_nodes = [
        ("Mul", ["x", "two"], "m", {}),
        ("Add", ["m", "one"], "a", {}),
        ("Sqrt", ["a"], "r", {}),
        ("Round", ["r"], "y", {}),
    ]
    return g.desc_for([y]), [data], numpy_chain, (onnx_nodes, {"two": np.float32(2), "one": np.float32(1)})


CHAINS = {"qdq_exp": qdq_exp, "sqrt_round": sqrt_round}


def onnxruntime_chain(x: np.ndarray[Any, Any], onnx_graph: Any) -> Callable[[], object] | None:
    """onnxruntime's CPU provider on the chain (opset 21, its constants initializers, IO binding to a preallocated
    output), or None where it is not installed."""
    try:
        import onnxruntime as ort
        from onnx import helper, numpy_helper
    except ImportError:
        return None
    nodes, constants = onnx_graph
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    graph = helper.make_graph(
        [helper.make_node(op, inputs, [output], **attributes) for op, inputs, output, attributes in nodes],
        "chain",
        [helper.make_tensor_value_info("x", elem, x.shape)],
        [helper.make_tensor_value_info("y", elem, x.shape)],
        initializer=[numpy_helper.from_array(np.array(value), name) for name, value in constants.items()],
    )
    model = onnxruntime_model(graph)
    options = ort.SessionOptions()
    # Its worker threads otherwise spin after each run, taking the cores from the dispatch measured next.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    out = np.empty_like(x)
    binding = session.io_binding()
    binding.bind_cpu_input("x", x)
    binding.bind_output("y", "cpu", 0, x.dtype, list(x.shape), out.ctypes.data)
    # onnxruntime writes through the raw pointer: the closure keeps ``out`` (and ``x``) alive.
    return lambda keep=(x, out): session.run_with_iobinding(binding)


Chain = Callable[[Any, int], tuple[Any, list[np.ndarray[Any, Any]], Callable[[], object], Any]]
"""A chain's builder: (dmlpy, elements) -> (graph desc, its inputs, NumPy's chain, the ONNX model's nodes and
initializers)."""


def chain_rows(dml_: Dml, n: int, quick: bool, chains: dict[str, Chain] = CHAINS) -> list[dict[str, Any]]:
    """Each chain fused and node by node (kernel times), against the copy kernel of its input's and output's
    bytes, NumPy and onnxruntime (wall times)."""
    rows = []
    for name, build in chains.items():
        desc, inputs, numpy_chain, onnx_graph = build(dml_.dml, n)
        data = inputs[0]
        fused, separate = Bound(dml_, desc, inputs), Bound(dml_, desc, inputs, fuse=False)
        _, copy_events = dml_.copy_kernel(data.nbytes // 4, 4)
        events = event_timings({"fused": fused.events, "separate": separate.events, "copy": copy_events}, quick)
        walls: dict[str, Callable[[], object]] = {"fused": fused.wall, "numpy": numpy_chain}
        ort = onnxruntime_chain(data, onnx_graph)
        if ort is not None:
            walls["onnxruntime"] = ort
        wall = measure_together(walls, budget_for(2 * data.nbytes, quick))
        got = fused.buffers[0].read(data.dtype, n)
        assert got.tobytes() == separate.buffers[0].read(data.dtype, n).tobytes(), f"{name}: fused and separate differ"
        row = {
            "chain": name,
            "dtype": data.dtype.name,
            "elements": n,
            "kernels_fused": fused.calls[0][1].kernel_count,
            "kernels_separate": separate.calls[0][1].kernel_count,
            "fused_s": events["fused"].seconds,
            "separate_s": events["separate"].seconds,
            "copy_s": events["copy"].seconds,
            "separate_over_fused": events["separate"].seconds / events["fused"].seconds,
            "copy_over_fused": events["copy"].seconds / events["fused"].seconds,
            "fused_wall_s": wall["fused"].seconds,
            "numpy_s": wall["numpy"].seconds,
            "onnxruntime_s": wall["onnxruntime"].seconds if "onnxruntime" in wall else None,
        }
        rows.append(row)
        del fused, separate
        peers = ", ".join(f"{p} {row[p + '_s'] / row['fused_wall_s']:.2f}x" for p in walls if p != "fused")
        print(
            f"{name:10} {row['dtype']:8} fused {row['kernels_fused']} kernel {row['fused_s'] * 1e3:7.2f} ms, "
            f"separate {row['kernels_separate']} kernels {row['separate_s'] * 1e3:7.2f} ms "
            f"({row['separate_over_fused']:.2f}x); copy {row['copy_s'] * 1e3:6.2f} ms "
            f"(copy/fused {row['copy_over_fused']:.2f}); fused wall {row['fused_wall_s'] * 1e3:7.2f} ms, "
            f"against it: {peers}",
            flush=True,
        )
    return rows


def run_meta(dml_: Dml, n: int) -> dict[str, Any]:
    """The run's device, launch profile and size, printed as the report's first line and kept in its JSON."""
    meta = {
        "started": dt.datetime.now().isoformat(timespec="seconds"),
        "device": dml_.device.name,
        "compute_units": dml_.device.cl_device.max_compute_units,
        "launch_profile": dml_.device.launch_profile.name,
        "size": size_label(n),
    }
    print(
        f"device: {meta['device']} ({meta['compute_units']} compute units), launch profile "
        f"{meta['launch_profile']!r}, {meta['size']} packed elements\n",
        flush=True,
    )
    return meta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="16M", help="elements (K and M are powers of two); default 16M")
    parser.add_argument("--dtypes", default="float32,float16", help="of the operators alone")
    parser.add_argument("--quick", action="store_true", help="64K elements and few repeats: a smoke run")
    parser.add_argument("--json", type=Path, help="output file (default benchmarks/results/math-<time>.json)")
    args = parser.parse_args(argv)
    n = parse_size("64K" if args.quick else args.size)
    dml_ = Dml(None)
    meta = run_meta(dml_, n)
    operators = operator_rows(dml_, n, args.dtypes.split(","), args.quick)
    print()
    chains = chain_rows(dml_, n, args.quick)
    path = write_results(args.json, "math", {"meta": meta, "operators": operators, "chains": chains}, indent=1)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
