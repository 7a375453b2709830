"""CONVOLUTION float32 and QUANTIZED_LINEAR_CONVOLUTION int8 (issue 45) at ResNet-18's layer shapes (the 7 x 7 stem,
3 x 3 at strides 1 and 2, the 1 x 1 downsample) and MobileNetV2's (1 x 1 expand and project, 3 x 3 depth-wise),
batch 1, against onnxruntime's CPU provider (Conv, QLinearConv) on the same inputs, on one or more OpenCL devices
side by side, in one run.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_convolution.py --devices 0,1     # PoCL and Intel's CPU runtime
    .venv/bin/python benchmarks/bench_convolution.py --quick           # a smoke run: two small layers
    .venv/bin/python benchmarks/bench_convolution.py --only dw         # the layers whose name holds "dw"
    .venv/bin/python benchmarks/bench_convolution.py --contractions    # and each im2col layer's product alone
    .venv/bin/python benchmarks/bench_convolution.py --launches        # each launch's own time, no onnxruntime

Per case and device, through the object model on pre-bound device buffers (bench_engine.Bound), the device's
default launch profile: the dispatch's own time on a profiling queue (median; GFLOP/s = 2 x outputs x K), and
onnxruntime's wall time over the dispatch's (record_dispatch + wait), taking turns (bench_round.measure_together):
> 1 means dmlpy is faster; the issue's target is onnxruntime/dispatch >= 0.5. onnxruntime runs one node (opset 18),
IO binding to a preallocated output, 2 intra-op threads. Each float result is checked against float64 first
(tests/device/convolution/cases.py's bound), each int8 one against onnxruntime's (off by at most 1: its
requantization rounds its own way). Timings are never asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_engine import Bound
from bench_math import run_meta
from bench_movement import runtime_label
from bench_round import Dml, budget_for, event_timings, measure_together, onnxruntime_model, write_results

import dmlpy as dml
from tests.device.convolution.cases import Shape, convolution_case, integer_case

T = dml.TensorDataType

TARGET = 0.5
"""The issue's target: dmlpy's dispatch at least half as fast as onnxruntime's."""


class Layer(NamedTuple):
    shape: Shape
    quantized: bool


def _layer(channels: int, size: int, kernel: int, out: int, stride: int = 1, groups: int = 1) -> Shape:
    pad = kernel // 2
    return Shape(
        (1, channels, size, size), (kernel, kernel), out, (stride,) * 2, None, (pad,) * 2, (pad,) * 2, None, groups
    )


LAYERS = {
    "resnet18 stem 7x7/2 3->64 @224": _layer(3, 224, 7, 64, 2),
    "resnet18 3x3/1 64->64 @56": _layer(64, 56, 3, 64),
    "resnet18 3x3/2 128->256 @28": _layer(128, 28, 3, 256, 2),
    "resnet18 1x1/2 128->256 @28": _layer(128, 28, 1, 256, 2),
    "resnet18 3x3/1 512->512 @7": _layer(512, 7, 3, 512),
    "mobilenetv2 1x1 expand 24->144 @56": _layer(24, 56, 1, 144),
    "mobilenetv2 3x3 dw 144 @56": _layer(144, 56, 3, 144, 1, 144),
    "mobilenetv2 1x1 project 144->24 @56": _layer(144, 56, 1, 24),
}
CONTRACTIONS = {
    "contraction alone of resnet18 3x3/1 64->64 @56 (1x1 576->64)": _layer(576, 56, 1, 64),
    "contraction alone of resnet18 3x3/2 128->256 @28 (1x1 1152->256 @14)": _layer(1152, 14, 1, 256),
    "contraction alone of resnet18 3x3/1 512->512 @7 (1x1 4608->512 @7)": _layer(4608, 7, 1, 512),
    "contraction alone of resnet18 stem (1x1 147->64 @112)": _layer(147, 112, 1, 64),
}
"""``--contractions``: each im2col layer's product without its unfold, a pointwise convolution of the same M, K and N
(the input read in place as the columns would be): the layer's time less this one is what the unfold costs."""
QUANTIZED = ("resnet18 3x3/1 64->64 @56", "mobilenetv2 1x1 expand 24->144 @56", "mobilenetv2 3x3 dw 144 @56")
QUICK = {"3x3/1 8->8 @12": _layer(8, 12, 3, 8), "3x3 dw 8 @12": _layer(8, 12, 3, 8, 1, 8)}


def onnxruntime_call(case: Any, shape: Shape, quantized: bool) -> tuple[Callable[[], object] | None, Any, str | None]:
    """onnxruntime's Conv (or QLinearConv) on the case's inputs, IO binding to a preallocated output: the call, its
    result array and None; or None, None and why not."""
    try:
        import onnxruntime as ort
        from onnx import helper, numpy_helper
    except ImportError:
        return None, None, "not installed"
    attributes = {
        "strides": list(shape.field(shape.strides, 1)),
        "pads": [*shape.field(shape.start, 0), *shape.field(shape.end, 0)],
        "group": shape.groups,
    }
    ins = case.inputs
    if quantized:
        order = ["input_tensor", "input_scale_tensor", "input_zero_point_tensor", "filter_tensor",
                 "filter_scale_tensor", "filter_zero_point_tensor", "output_scale_tensor", "output_zero_point_tensor",
                 "bias_tensor"]  # fmt: skip
        flat = {"filter_scale_tensor", "filter_zero_point_tensor", "bias_tensor"}
        tensors = {"input_tensor", "filter_tensor"}
        values = {
            k: ins[k] if k in tensors else ins[k].reshape(-1) if k in flat else ins[k].reshape(())
            for k in order
            if k in ins
        }
        node = helper.make_node("QLinearConv", [k if k in values else "" for k in order], ["y"], **attributes)
    else:
        values = {k: ins[k] for k in ("input_tensor", "filter_tensor")}
        values["bias_tensor"] = ins["bias_tensor"].reshape(-1)
        node = helper.make_node("Conv", list(values), ["y"], **attributes)
    constants = [numpy_helper.from_array(v, k) for k, v in values.items() if k != "input_tensor"]
    x = values["input_tensor"]
    element = helper.np_dtype_to_tensor_dtype(x.dtype)
    out_type = helper.np_dtype_to_tensor_dtype(np.dtype(np.uint8) if quantized else np.dtype(np.float32))
    graph = helper.make_graph(
        [node], "conv", [helper.make_tensor_value_info("input_tensor", element, x.shape)],
        [helper.make_tensor_value_info("y", out_type, case.expected.shape)], constants,
    )  # fmt: skip
    options = ort.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(
        onnxruntime_model(graph, opset=18).SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    binding = session.io_binding()
    binding.bind_cpu_input("input_tensor", x)
    result = np.empty(case.expected.shape, np.uint8 if quantized else np.float32)
    binding.bind_output("y", "cpu", 0, result.dtype, list(result.shape), result.ctypes.data)
    session.run_with_iobinding(binding)
    return (lambda keep=(x, result): session.run_with_iobinding(binding)), result, None


def case_rows(runtimes: list[Dml], name: str, layer: Layer, quick: bool) -> list[dict[str, Any]]:
    shape = layer.shape
    if layer.quantized:
        case = integer_case("QUANTIZED_LINEAR_CONVOLUTION", T.UINT8, T.INT8, shape, output_type=T.UINT8)
    else:
        case = convolution_case(T.FLOAT32, shape)
    k = shape.filter_sizes[1] * int(np.prod(shape.kernel))
    flops = 2.0 * case.expected.size * k
    ort, ort_result, why_not = onnxruntime_call(case, shape, layer.quantized)
    walls: dict[str, Callable[[], object]] = {}
    kernels, errors = [], []
    for i, dml_ in enumerate(runtimes):
        inputs = [case.inputs.get(field) for field in case.desc.input_fields()]
        bound = Bound(dml_, case.desc, inputs)
        bound.events().wait()
        got = bound.buffers[0].read(np.uint8 if layer.quantized else np.float32, case.expected.shape)
        if layer.quantized:
            error = float(np.max(np.abs(got.astype(np.int64) - ort_result))) if ort_result is not None else 0.0
        else:
            error = float(np.max(np.abs(got - case.expected) / case.allowed))
        errors.append(error)
        kernels.append(event_timings({"kernel": bound.events}, quick)["kernel"].seconds)
        walls[f"{i}:dispatch"] = bound.wall
    if ort is not None:
        walls["onnxruntime"] = ort
    wall = measure_together(walls, budget_for(sum(v.nbytes for v in case.inputs.values()) * 8, quick))
    rows = []
    for i, (dml_, kernel, error) in enumerate(zip(runtimes, kernels, errors, strict=True)):
        dispatch = wall[f"{i}:dispatch"].seconds
        ort_s = wall["onnxruntime"].seconds if "onnxruntime" in wall else None
        rows.append(
            {
                "case": name,
                "type": "int8" if layer.quantized else "float32",
                "device": dml_.device.name,
                "error": error,
                "kernel_s": kernel,
                "kernel_gflops": flops / kernel / 1e9,
                "dispatch_s": dispatch,
                "onnxruntime_s": ort_s,
                "onnxruntime_missing": why_not,
                "onnxruntime_over_dispatch": None if ort_s is None else ort_s / dispatch,
            }
        )
    return rows


class _Recording:
    """A launchable whose launches append (kernel name, event) to ``sink``: a plan's launches timed one by one."""

    def __init__(self, inner: Any, sink: list[tuple[str, Any]]) -> None:
        self.inner, self.sink = inner, sink

    def launch(self, queue: Any, tensors: Any, wait_for: Any = None) -> Any:
        event = self.inner.launch(queue, tensors, wait_for)
        self.sink.append((self.inner.lowered.kernel.kernel_name, event))
        return event


def launch_rows(runtimes: list[Dml], name: str, layer: Layer, quick: bool) -> list[dict[str, Any]]:
    """``--launches``: the median of each of the layer's launches' own times (profiling events; the unfold, the
    contraction, a copy), per device, the devices taking turns: where a layer's time goes; and, taking turns with
    them, a copy kernel of the float32 input's bytes (the layer's bytes read once and written once, the memory's
    bound on a layer that only reads its input and writes as much: the depth-wise one at stride 1)."""
    if layer.quantized:
        case = integer_case("QUANTIZED_LINEAR_CONVOLUTION", T.UINT8, T.INT8, layer.shape, output_type=T.UINT8)
    else:
        case = convolution_case(T.FLOAT32, layer.shape)
    inputs = [case.inputs.get(field) for field in case.desc.input_fields()]
    calls, sinks, copies = [], [], []
    for dml_ in runtimes:
        copies.append(dml_.copy_kernel(int(np.prod(layer.shape.input_sizes)), 4)[1])
        queue, compiled, table, recorder = Bound(dml_, case.desc, inputs).calls[1]
        sink: list[tuple[str, Any]] = []
        compiled.launchables = [_Recording(launchable, sink) for launchable in compiled.launchables]
        compiled._one_plain_launch = False  # through the plan's loop, which calls the recording launchables
        calls.append((queue, compiled, table, recorder))
        sinks.append(sink)
    samples: list[dict[str, list[float]]] = [{} for _ in runtimes]
    for repeat in range(4 if quick else 16):
        for (queue, compiled, table, recorder), sink, times, copy in zip(calls, sinks, samples, copies, strict=True):
            sink.clear()
            recorder.record_dispatch(queue, compiled, table).wait()
            copy_event = copy()
            copy_event.wait()
            for i, (kernel, event) in enumerate([*sink, ("copy of the input", copy_event)]):
                event.wait()
                if repeat:  # the first dispatch warms the caches and builds nothing
                    times.setdefault(f"{i}:{kernel}", []).append((event.profile.end - event.profile.start) * 1e-9)
    return [
        {
            "case": name,
            "type": "int8" if layer.quantized else "float32",
            "device": dml_.device.name,
            "launches_s": {kernel: statistics.median(seconds) for kernel, seconds in times.items()},
        }
        for dml_, times in zip(runtimes, samples, strict=True)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", help="indices from `dmlpy devices`, comma-separated (default: the default one)")
    parser.add_argument("--quick", action="store_true", help="two small layers and few repeats: a smoke run")
    parser.add_argument("--contractions", action="store_true", help="also the 3x3 layers' products alone")
    parser.add_argument("--only", help="run only the layers whose name holds this text (e.g. 'dw')")
    parser.add_argument("--launches", action="store_true", help="each launch's own time only (no onnxruntime)")
    parser.add_argument("--json", type=Path, help="output file (default benchmarks/results/convolution-<time>.json)")
    args = parser.parse_args(argv)
    indices: list[int | None] = [None] if args.devices is None else [int(i) for i in args.devices.split(",")]
    runtimes = [Dml(index) for index in indices]
    layers = {name: Layer(shape, False) for name, shape in (QUICK if args.quick else LAYERS).items()}
    if not args.quick:
        layers.update({f"{name} int8": Layer(LAYERS[name], True) for name in QUANTIZED})
    if args.contractions:
        layers.update({name: Layer(shape, False) for name, shape in CONTRACTIONS.items()})
    if args.only:
        layers = {name: layer for name, layer in layers.items() if args.only in name}
    labels = [runtime_label(dml_) for dml_ in runtimes]
    rows = []
    for name, layer in layers.items():
        if args.launches:
            for row, label in zip(launch_rows(runtimes, name, layer, args.quick), labels, strict=True):
                rows.append(row)
                times = "  ".join(f"{kernel} {s * 1e3:7.3f} ms" for kernel, s in row["launches_s"].items())
                print(f"{name:42} {label:6} {times}", flush=True)
            continue
        for row, label in zip(case_rows(runtimes, name, layer, args.quick), labels, strict=True):
            rows.append(row)
            ort = row["onnxruntime_over_dispatch"]
            mark = "" if ort is None or ort >= TARGET else "  < target"
            ort_ms = "-" if row["onnxruntime_s"] is None else f"{row['onnxruntime_s'] * 1e3:8.3f} ms"
            print(
                f"{name:42} {label:6} kernel {row['kernel_s'] * 1e3:8.3f} ms {row['kernel_gflops']:6.1f} GFLOP/s  "
                f"dispatch {row['dispatch_s'] * 1e3:8.3f} ms  onnxruntime "
                f"{ort_ms}  "
                f"onnxruntime/dispatch {'-' if ort is None else f'{ort:.2f}x'}{mark}  error {row['error']:.3g}",
                flush=True,
            )
    if args.launches:
        print(f"\nresults: {write_results(args.json, 'convolution-launches', {'rows': rows}, indent=1)}")
        return 0
    met = sum(
        row["onnxruntime_over_dispatch"] is not None and row["onnxruntime_over_dispatch"] >= TARGET for row in rows
    )
    print(f"\nonnxruntime/dispatch >= {TARGET} (the issue's target): {met} of {len(rows)} rows", flush=True)
    metas = [run_meta(dml_, 0) for dml_ in runtimes]
    path = write_results(args.json, "convolution", {"meta": metas, "rows": rows}, indent=1)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
