"""The element-wise engine's operators side by side: each kernel's own time on packed tensors, and the 1K
dispatch latency, for Round (DirectML's three modes), Identity (the copy, and ScaleBias), QuantizeLinear and
DequantizeLinear (per-tensor, uint8) and the fused QDQ chain (int8 -> DequantizeLinear -> Round ->
QuantizeLinear -> int8, one graph), in float32 and float16.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_engine.py --sizes 1K,16M,64M --json /tmp/engine.json
    .venv/bin/python benchmarks/compare_revisions.py 3611164 WORKTREE --repeats 1 --bench bench_engine.py -- \\
        --sizes 1K,16M,64M

Only the public object model is used (``create_device``, ``compile_operator``, ``compile_graph``, binding
tables, ``record_dispatch``), so this one script measures any revision of dmlpy (compare_revisions.py runs it on
each). Measurements, per row (operator, variant, dtype, size):

    kernel     from 16M elements: the dispatch's own time on a profiling queue (bench_graph.dispatch_events: a
               one-kernel dispatch's own event, else from a marker enqueued just before it to the end of its last
               kernel), median of 15
    dispatch   below 16M: ``record_dispatch`` + wait on a plain queue, wall time (bench_round.measure)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_graph import dispatch_events
from bench_round import Dml, budget_for, event_timings, measure, parse_size, size_label

KERNEL_TIMED_FROM = 16 << 20
"""Sizes from which the kernel's own time is measured; below it, the dispatch's wall time (latency)."""


def tensor(dml: Any, data_type: str, n: int, strides: tuple[int, ...] | None = None) -> Any:
    return dml.BufferTensorDesc(data_type=data_type, sizes=(n,), strides=strides)


def operators(dml: Any, dtype: str, n: int) -> dict[tuple[str, str], tuple[Any, list[np.ndarray | None]]]:
    """(operator, variant) -> (descriptor or graph desc, its input arrays in binding order)."""
    real = "FLOAT16" if dtype == "float16" else "FLOAT32"
    rng = np.random.default_rng(28)
    x = (rng.standard_normal(n) * 4).astype(dtype)
    q = rng.integers(0, 256, n, dtype=np.uint8)
    one = np.ones(1, dtype)
    scale, zero = np.array([0.5], dtype), np.array([3], np.uint8)
    cases: dict[tuple[str, str], tuple[Any, list[np.ndarray | None]]] = {}
    for mode in ("HALVES_TO_NEAREST_EVEN", "TOWARD_ZERO", "TOWARD_INFINITY"):
        desc = dml.ElementWiseRoundOperatorDesc(
            input_tensor=tensor(dml, real, n), output_tensor=tensor(dml, real, n), rounding_mode=mode
        )
        cases[("round", mode.lower())] = (desc, [x])
    for variant, scale_bias in (("copy", None), ("scale_bias", dml.ScaleBias(scale=1.5, bias=-0.25))):
        desc = dml.ElementWiseIdentityOperatorDesc(
            input_tensor=tensor(dml, real, n), output_tensor=tensor(dml, real, n), scale_bias=scale_bias
        )
        cases[("identity", variant)] = (desc, [x])
    per_tensor = (0,)
    desc = dml.ElementWiseQuantizeLinearOperatorDesc(
        input_tensor=tensor(dml, real, n),
        scale_tensor=tensor(dml, real, n, per_tensor),
        zero_point_tensor=tensor(dml, "UINT8", n, per_tensor),
        output_tensor=tensor(dml, "UINT8", n),
    )
    cases[("quantize", "per-tensor uint8")] = (desc, [x, scale, zero])
    desc = dml.ElementWiseDequantizeLinearOperatorDesc(
        input_tensor=tensor(dml, "UINT8", n),
        scale_tensor=tensor(dml, real, n, per_tensor),
        zero_point_tensor=tensor(dml, "UINT8", n, per_tensor),
        output_tensor=tensor(dml, real, n),
    )
    cases[("dequantize", "per-tensor uint8")] = (desc, [q, scale, zero])
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    data = g.input(tensor(dml, "UINT8", n))
    s = g.input(tensor(dml, real, n, per_tensor))
    z = g.input(tensor(dml, "UINT8", n, per_tensor))
    y = dml.graph.quantize_linear(dml.graph.round(dml.graph.dequantize_linear(data, s, z)), s, z)
    cases[("qdq", "fused")] = (g.desc_for([y]), [q, one * 0.5, zero])
    return cases


class Bound:
    """A compiled operator or graph bound to device buffers, on the timed and the profiled queue (a graph fused, or
    with ``fuse=False`` node by node)."""

    def __init__(self, dml_: Dml, desc: Any, inputs: list[np.ndarray | None], fuse: bool = True) -> None:
        self.calls = []
        for device in (dml_.device, dml_.profiled):
            if isinstance(desc, dml_.dml.GraphDesc):
                compiled = device.compile_graph(desc, fuse=fuse)
                outputs = compiled.output_descs()
            else:
                compiled = device.compile_operator(device.create_operator(desc))
                outputs = [t.desc for t in desc.output_tensors()]
            recorder = device.create_command_recorder()
            initializer = device.create_operator_initializer([compiled])
            recorder.record_dispatch(device.queue, initializer, device.create_binding_table(initializer)).wait()
            table = device.create_binding_table(compiled)
            table.bind_inputs([None if a is None else dml_.dml.BufferBinding(device.upload(a)) for a in inputs])
            self.buffers = [device.create_buffer(t.total_tensor_size_in_bytes) for t in outputs]
            table.bind_outputs([dml_.dml.BufferBinding(b) for b in self.buffers])
            size = compiled.get_binding_properties().temporary_resource_size
            if size:
                table.bind_temporary_resource(dml_.dml.BufferBinding(device.create_buffer(size)))
            self.calls.append((device.queue, compiled, table, recorder))

    def wall(self) -> None:
        queue, compiled, table, recorder = self.calls[0]
        recorder.record_dispatch(queue, compiled, table).wait()

    def events(self) -> Any:
        return dispatch_events(*self.calls[1])


def run(sizes: list[int], dtypes: list[str], quick: bool) -> list[dict[str, Any]]:
    dml_ = Dml(None)
    rows: list[dict[str, Any]] = []
    for n in sizes:
        for dtype in dtypes:
            for (operator, variant), (desc, inputs) in operators(dml_.dml, dtype, n).items():
                bound = Bound(dml_, desc, inputs)  # one at a time: 64M elements of each would not all fit
                if n >= KERNEL_TIMED_FROM:
                    seconds, measurement = event_timings({"op": bound.events}, quick)["op"].seconds, "kernel"
                else:
                    seconds, measurement = measure(bound.wall, budget_for(n, quick)).seconds, "dispatch"
                del bound
                row = {"dtype": dtype, "size": size_label(n), "layout": operator, "mode": variant}
                rows.append({**row, "seconds": {measurement: seconds}})
                print(f"{operator:10} {variant:24} {dtype:8} {size_label(n):>5} {measurement:8} {seconds:.3e}")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1K,16M,64M")
    parser.add_argument("--dtypes", default="float32,float16")
    parser.add_argument("--json", type=Path, help="output file")
    parser.add_argument("--quick", action="store_true", help="few samples: a smoke run")
    args = parser.parse_args(argv)
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    rows = run(sizes, args.dtypes.split(","), args.quick)
    if args.json is not None:
        args.json.write_text(json.dumps({"results": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
