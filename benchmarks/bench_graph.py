"""Benchmark a quantized model's QDQ chain as a dmlpy graph: fused into one kernel, against the same nodes as
three separate dispatches, a copy kernel of the same bytes, onnxruntime's CPU execution of the same ONNX graph,
and NumPy, side by side in one run.

Usage (from the repository root, after the two set-up commands of the README)::

    .venv/bin/python benchmarks/bench_graph.py              # 16M elements, per-tensor and per-axis, ~1 minute
    .venv/bin/python benchmarks/bench_graph.py --size 1M --json /tmp/graph.json
    .venv/bin/python benchmarks/bench_graph.py --quick      # a smoke run with a tiny size

The graph: int8 x (1, 64, H, W) -> DequantizeLinear -> Round (halves to even) -> QuantizeLinear -> int8, with a
zero point, and a scale per tensor or per channel (axis 1, 64 channels). Bytes counted: one int8 read and one
int8 write per element (what the fused kernel moves; the separate dispatches move 6x that through float32
intermediates).

    fused        device.compile_graph(desc): one kernel, record_dispatch + wait on pre-bound device buffers
    separate     device.compile_graph(desc, fuse=False): each node its own kernel (the operators' own kernels,
                 as three compile_operator dispatches would run), intermediates in the temporary resource
    copy kernel  ``dst[i] = src[i]`` over the int8 bytes, same device
    onnxruntime  the same ONNX model (opset 21), CPUExecutionProvider, IO binding to preallocated NumPy arrays
    numpy        the chain with NumPy ufuncs on preallocated arrays (float32 temporaries)

``fused@``, ``separate@`` and ``copyK@`` are the kernels' own times from OpenCL profiling events (the separate
dispatch's from a marker before its first kernel to the end of its last). Each wall-time measurement
interleaves the engines sample by sample
(bench_round.measure_together). On a CPU OpenCL device (PoCL) device buffers are host memory, so every engine
reads and writes the same DRAM. Targets (issue 16): fused >= 2x separate and >= 0.8x the copy kernel, ahead of
onnxruntime and NumPy.
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pyopencl as dml_cl
from bench_round import (
    Dml,
    budget_for,
    event_timings,
    measure_together,
    onnxruntime_model,
    parse_size,
    size_label,
    write_results,
)

CHANNELS = 64
SCALES = np.linspace(0.02, 1.5, CHANNELS).astype(np.float32)
ZERO_POINTS = (np.arange(CHANNELS) % 7 - 3).astype(np.int8)


def shape_for(n: int) -> tuple[int, int, int, int]:
    rest = max(1, n // CHANNELS)
    width = 1 << max(0, (rest.bit_length() - 1) // 2)
    return (1, CHANNELS, rest // width, width)


def graph_desc(dml: Any, shape: tuple[int, ...], per_axis: bool) -> Any:
    strides = (0, 1, 0, 0) if per_axis else (0, 0, 0, 0)
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    x = g.input(dml.BufferTensorDesc(data_type="INT8", sizes=shape))
    s = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=shape, strides=strides))
    z = g.input(dml.BufferTensorDesc(data_type="INT8", sizes=shape, strides=strides))
    y = dml.graph.quantize_linear(dml.graph.round(dml.graph.dequantize_linear(x, s, z)), s, z)
    return g.desc_for([y])


def onnx_model(per_axis: bool) -> Any:
    from onnx import TensorProto, helper, numpy_helper

    scale = SCALES if per_axis else SCALES[:1].reshape(())
    zero = ZERO_POINTS if per_axis else ZERO_POINTS[:1].reshape(())
    nodes = [
        helper.make_node("DequantizeLinear", ["x", "s", "z"], ["r"], axis=1),
        helper.make_node("Round", ["r"], ["t"]),
        helper.make_node("QuantizeLinear", ["t", "s", "z"], ["y"], axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "qdq",
        [helper.make_tensor_value_info("x", TensorProto.INT8, None)],
        [helper.make_tensor_value_info("y", TensorProto.INT8, None)],
        initializer=[numpy_helper.from_array(scale, "s"), numpy_helper.from_array(zero, "z")],
    )
    return onnxruntime_model(graph)


class Dispatch:
    """A compiled graph bound to device buffers, ready to dispatch on the timed and the profiled queue."""

    def __init__(self, dml_: Dml, x: np.ndarray[Any, Any], per_axis: bool, fuse: bool) -> None:
        self.calls = []
        for device in (dml_.device, dml_.profiled):
            compiled = device.compile_graph(graph_desc(dml_.dml, x.shape, per_axis), fuse=fuse)
            initializer = device.create_operator_initializer([compiled])
            recorder = device.create_command_recorder()
            recorder.record_dispatch(device.queue, initializer, device.create_binding_table(initializer)).wait()
            count = 64 if per_axis else 1
            table = device.create_binding_table(compiled)
            self.output = device.create_buffer(x.nbytes)
            table.bind_inputs(
                [
                    dml_.dml.BufferBinding(device.upload(x)),
                    dml_.dml.BufferBinding(device.upload(SCALES[:count])),
                    dml_.dml.BufferBinding(device.upload(ZERO_POINTS[:count])),
                ]
            )
            table.bind_outputs([dml_.dml.BufferBinding(self.output)])
            size = compiled.get_binding_properties().temporary_resource_size
            if size:
                table.bind_temporary_resource(dml_.dml.BufferBinding(device.create_buffer(size)))
            self.calls.append((device.queue, compiled, table, recorder))
        self.kernel_count = self.calls[0][1].kernel_count

    def wall(self) -> None:
        queue, compiled, table, recorder = self.calls[0]
        recorder.record_dispatch(queue, compiled, table).wait()

    def events(self) -> Any:
        return dispatch_events(*self.calls[1])


def dispatch_events(queue: Any, compiled: Any, table: Any, recorder: Any) -> Any:
    """``compiled`` dispatched on the profiling queue, as one event: a one-kernel dispatch's own event (start to end,
    as the copy kernel's is measured), else one spanning its kernels, from a marker enqueued just before (the
    in-order queue starts the first kernel when the marker completes) to the last kernel's end, the gaps between
    kernels included. Not the span for one kernel too: it holds the gap from the marker's end to the kernel's start,
    which the copy kernel's own event does not (on an NVIDIA H100, 16M float32 IDENTITY: 0.08 ms from the marker,
    0.05 ms by its own event)."""
    if compiled.kernel_count == 1:
        return recorder.record_dispatch(queue, compiled, table)
    start = dml_cl.enqueue_marker(queue)
    return Span(start, recorder.record_dispatch(queue, compiled, table))


class Span:
    """Two events read as one: ``profile.start`` the first's end, ``profile.end`` the second's end."""

    def __init__(self, first: Any, last: Any) -> None:
        self.first, self.last = first, last
        self.profile = self

    def wait(self) -> None:
        self.last.wait()

    @property
    def start(self) -> int:
        return int(self.first.profile.end)

    @property
    def end(self) -> int:
        return int(self.last.profile.end)


def numpy_chain(x: np.ndarray[Any, Any], per_axis: bool) -> Any:
    scale = SCALES.reshape(1, -1, 1, 1) if per_axis else SCALES[:1].reshape(())
    zero = (ZERO_POINTS.reshape(1, -1, 1, 1) if per_axis else ZERO_POINTS[:1].reshape(())).astype(np.float32)
    real = np.empty(x.shape, np.float32)
    out = np.empty(x.shape, np.int8)

    def run() -> None:
        np.subtract(x, zero, out=real, dtype=np.float32)
        np.multiply(real, scale, out=real)
        np.rint(real, out=real)
        np.divide(real, scale, out=real)
        np.rint(real, out=real)
        np.add(real, zero, out=real)
        np.clip(real, -128, 127, out=real)
        np.copyto(out, real, casting="unsafe")

    return run


def onnxruntime_chain(x: np.ndarray[Any, Any], per_axis: bool) -> Any:
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    options = ort.SessionOptions()
    # Its worker threads otherwise spin for a while after each run, taking the cores from the engine measured
    # next (the interleaved dmlpy dispatches ran at half speed beside a spinning session).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(
        onnx_model(per_axis).SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    out = np.empty_like(x)
    binding = session.io_binding()
    binding.bind_cpu_input("x", x)
    binding.bind_output("y", "cpu", 0, np.int8, list(out.shape), out.ctypes.data)
    # ONNX Runtime writes through the raw pointer: the closure must keep ``out`` (and ``x``) alive.
    return lambda keep=(x, out): session.run_with_iobinding(binding)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="16M", help="elements (K and M are powers of two); default 16M")
    parser.add_argument("--quick", action="store_true", help="a tiny size and few repeats (the smoke test)")
    parser.add_argument("--json", type=Path, help="where to write the results")
    args = parser.parse_args(argv)
    n = parse_size("64K" if args.quick else args.size)
    dml_ = Dml(None)
    shape = shape_for(n)
    n = int(np.prod(shape))
    x = np.random.default_rng(1).integers(-128, 128, shape, dtype=np.int8)
    nbytes = 2 * n
    copy_wall, copy_event = dml_.copy_kernel(n // 4, 4)  # the same bytes as 32-bit words
    rows = []
    print(f"device: {dml_.device.name}; {size_label(n)} int8 elements, shape {shape}\n")
    header = f"{'scale':11} {'engine':12} {'kernels':>7} {'GB/s':>7} {'GB/s@':>7} {'ms':>8}"
    print(header)
    for per_axis in (False, True):
        label = "per-axis" if per_axis else "per-tensor"
        fused, separate = Dispatch(dml_, x, per_axis, True), Dispatch(dml_, x, per_axis, False)
        engines: dict[str, Any] = {"fused": fused.wall, "separate": separate.wall, "copy kernel": copy_wall}
        peers = {"numpy": numpy_chain(x, per_axis), "onnxruntime": onnxruntime_chain(x, per_axis)}
        engines.update({name: fn for name, fn in peers.items() if fn is not None})
        walls = measure_together(engines, budget_for(nbytes * 4, args.quick))
        events = event_timings({"fused": fused.events, "copy kernel": copy_event}, args.quick)
        events.update(event_timings({"separate": separate.events}, args.quick))
        got_fused = fused.output.read(np.int8, n)
        assert got_fused.tobytes() == separate.output.read(np.int8, n).tobytes(), "fused and separate disagree"
        for name, timing in walls.items():
            kernels = {"fused": fused.kernel_count, "separate": separate.kernel_count}.get(name, "")
            event = events.get(name)
            row = {
                "scale": label,
                "engine": name,
                "kernels": kernels,
                "gbps": nbytes / timing.seconds / 1e9,
                "event_gbps": nbytes / event.seconds / 1e9 if event else None,
                "ms": timing.seconds * 1e3,
            }
            rows.append(row)
            at = f"{row['event_gbps']:7.1f}" if event else f"{'-':>7}"
            print(f"{label:11} {name:12} {kernels!s:>7} {row['gbps']:7.1f} {at} {row['ms']:8.2f}", flush=True)
        by = {r["engine"]: r for r in rows if r["scale"] == label}
        fused_ms = by["fused"]["ms"]
        print(
            f"{label}: fused / separate {by['separate']['ms'] / fused_ms:.2f}x (wall), "
            f"{by['fused']['event_gbps'] / by['separate']['event_gbps']:.2f}x (kernels); "
            f"fused@ / copyK@ {by['fused']['event_gbps'] / by['copy kernel']['event_gbps']:.2f}; "
            + ", ".join(f"fused vs {p} {by[p]['ms'] / fused_ms:.2f}x" for p in ("onnxruntime", "numpy") if p in by)
            + "\n",
            flush=True,
        )
    report = {"size": n, "shape": shape, "device": dml_.device.name, "machine": platform.machine(), "rows": rows}
    path = write_results(args.json, "graph", report)
    print(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
