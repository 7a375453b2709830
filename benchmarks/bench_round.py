"""Benchmark ELEMENT_WISE_ROUND: dmlpy against memory copies and other engines, side by side in one run.

Usage (from the repository root, after the two set-up commands of the README)::

    .venv/bin/python benchmarks/bench_round.py                 # the full grid, about 5-10 minutes
    .venv/bin/python benchmarks/bench_round.py --quick         # a smoke run with tiny sizes, seconds
    .venv/bin/python benchmarks/bench_round.py --sizes 1M,16M --dtypes float32 --modes half_to_even \\
        --layouts packed,strided --peers numpy,torch --extras none --json /tmp/round.json

Options (each takes a comma-separated list; the default is the full grid):

    --sizes     element counts: 1K, 64K, 1M, 16M, 64M (K and M are powers of two) or plain numbers
    --dtypes    float32, float16
    --modes     half_to_even, toward_zero, half_away_from_zero (dml.round's names for DirectML's three modes)
    --layouts   packed     contiguous input and output
                inplace    contiguous, output is the input (``dml.round(x, out=x)``)
                strided    a transposed 4-D input (an NCHW array read as NHWC), packed output
                padded     a 4-D input whose rows are 16 elements longer than the data (a slice), packed output
                reversed   a view reversing the last axis (a negative stride, which DirectML cannot express:
                           end to end only, where dml.round copies it first), packed output
                broadcast  a (1, C, 1, W) input broadcast to (1, C, H, W) with 0 strides, packed output
    --peers     numpy, torch, onnxruntime, openvino: those installed are measured (``pip install -e .[bench]``
                installs the last three; torch as a CPU build). ``none`` measures no peer.
    --extras    latency (targets 6, 15c), warm_cache (target 7), peak_memory (target 8), operators (target 15e),
                or none
    --device    an index from ``dmlpy devices`` (default: dmlpy's default device)
    --json      where to write the results (default benchmarks/results/round-<time>.json)
    --quick     tiny sizes, few repeats, a 16 MiB peak-memory probe: for the test suite's smoke run

What is measured, per size and dtype:

    np.copyto      NumPy copying the packed array into a preallocated one (the host's memcpy ceiling)
    copy kernel    a plain ``dst[i] = src[i]`` OpenCL kernel on device buffers, same device (the device ceiling):
                   enqueue + wait, and (``copyK@``) the kernel's own time from its profiling event
and per size, dtype, layout and mode:
    kernel         dmlpy's object model with pre-bound device buffers: ``record_dispatch`` + wait
    device array   ``dml.round(x, mode=mode, out=y)`` on pyopencl arrays of the device (the layout as a device
                   view; ``out=x`` for inplace) + wait: the one-liner on device memory, nothing crosses the bus;
                   ``devarr@`` its kernel's own time from the profiling event (kernel-only, against ``copyK@``)
    end-to-end     ``dml.round(x, mode=mode, out=y)`` on NumPy arrays (``out=x`` for inplace)
    numpy          ``np.rint`` / ``np.trunc`` with ``out=`` (NumPy has no half-away-from-zero rounding)
    torch          ``torch.round`` / ``torch.trunc`` with ``out=`` on tensors sharing the arrays' memory
    onnxruntime    an ONNX Round model (half to even only) with IO binding to the preallocated output
    openvino       an OpenVINO Round-5 model (half_to_even, half_away_from_zero) with shared-memory tensors

Throughput is GB/s counting bytes read plus written as ``2 * elements * itemsize`` for every layout (logical
bytes: a broadcast input is read from a smaller buffer). Each measurement warms up, then takes samples (each
sample repeats the call enough times to last about 2 ms) until the median of the samples is stable to 2%,
or a time budget per measurement runs out; the median is reported. Ratios: kernel / copy kernel, device array /
copy kernel, end-to-end / np.copyto, end-to-end / numpy, end-to-end / torch.

Extras, each in a fresh subprocess where the process matters:
    operators    dml.round in nine modes (float32, float16, float64, bfloat16: the Round extension, or DirectML's
                 Round for float32 and float16 in DirectML's three modes, as dml.round picks) and per-tensor
                 QuantizeLinear / DequantizeLinear (float32 and float16 <-> uint8) on packed device arrays of the
                 largest size given (at least 16M elements; --quick: 5000), each kernel's own time against a
                 copy kernel moving the same bytes (reading the input's width, writing the output's), from
                 profiling events taking turns (target 15e)
    latency      ``dml.round`` on 1K float32 elements (NumPy arrays, and device arrays with ``out=``) against a
                 bare pyopencl enqueue + finish of the same prebuilt kernel (targets 6 and 14b: at most 2x)
    warm_cache   a child process warms the on-disk program cache, a second one times ``import dmlpy`` and the
                 first ``dml.round`` call (target 7: first call under 0.2 s)
    peak_memory  peak RSS (VmHWM) of ``dml.round`` on a 1 GiB float32 array, over the process's RSS before the
                 input was allocated, against input + output (target 8: at most 1.1x); tracemalloc's peak shows
                 any hidden NumPy copy

The script prints a table and the issue's targets met or missed, and writes everything as JSON. Timings are
never asserted by the test suite; tests/device/artefacts/test_benchmark_smoke.py only runs ``--quick``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
RESULTS_DIR = ROOT / "results"


def write_results(path: Path | None, kind: str, report: dict[str, Any], **dump: Any) -> Path:
    """``report`` as JSON at ``path``, or by default at results/<kind>-<time>.json (its folder made); where."""
    path = path or RESULTS_DIR / f"{kind}-{dt.datetime.now():%Y%m%d-%H%M%S}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, **dump), encoding="utf-8")
    return path


MEMORY_BOUND = 0.9
"""The issue's target for an operator bound by memory: its kernel at least this fraction of the copy kernel's speed."""


def print_memory_bound_count(rows: list[dict[str, Any]]) -> None:
    """How many of ``rows`` (each with ``copy_over_kernel``) meet MEMORY_BOUND."""
    met = sum(row["copy_over_kernel"] >= MEMORY_BOUND for row in rows)
    print(f"\ncopy/kernel >= {MEMORY_BOUND} (the memory-bound target): {met} of {len(rows)} rows", flush=True)


MODES = ("half_to_even", "toward_zero", "half_away_from_zero")
LAYOUTS = ("packed", "inplace", "strided", "padded", "reversed", "broadcast")
DTYPES = ("float32", "float16")
PEERS = ("numpy", "torch", "onnxruntime", "openvino")
EXTRAS = ("latency", "warm_cache", "peak_memory", "operators")
SETTLE_S = 0.02
FULL_SIZES = "1K,64K,1M,16M,64M"
QUICK_SIZES = "1K,5000"

# --------------------------------------------------------------------------------------------- timing


@dataclass
class Timing:
    """Median seconds per call and the samples it came from."""

    seconds: float
    samples: list[float]
    calls_per_sample: int


@dataclass
class Budget:
    min_samples: int = 5
    max_samples: int = 40
    seconds: float = 1.5
    sample_seconds: float = 2e-3
    tolerance: float = 0.02


def measure_together(fns: dict[str, Callable[[], object]], budget: Budget) -> dict[str, Timing]:
    """Warm up each function, then sample them in turn, round after round, until every median is stable (or the
    budget is spent); median seconds per call of each. Interleaving makes the ratios between them robust: a
    drift in the machine's speed (clocks, another process) moves all of them alike, where measuring one after
    the other moved a kernel / copy kernel ratio from 0.59 to 1.09 between two runs (perf-notes.md)."""
    calls: dict[str, int] = {}
    for name, fn in fns.items():
        fn()
        start = time.perf_counter()
        fn()
        single = time.perf_counter() - start
        calls[name] = max(1, min(10_000, int(budget.sample_seconds / max(single, 1e-9))))
    samples: dict[str, list[float]] = {name: [] for name in fns}
    medians: dict[str, list[float]] = {name: [] for name in fns}
    began = time.perf_counter()
    while True:
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(calls[name]):
                fn()
            samples[name].append((time.perf_counter() - t0) / calls[name])
            medians[name].append(statistics.median(samples[name]))
        taken = len(next(iter(samples.values())))
        if taken >= budget.min_samples:
            stable = all((max(m[-3:]) - min(m[-3:])) <= budget.tolerance * m[-1] for m in medians.values())
            spent = time.perf_counter() - began > budget.seconds * len(fns)
            if stable or taken >= budget.max_samples or spent:
                break
    return {name: Timing(medians[name][-1], samples[name], calls[name]) for name in fns}


def measure(fn: Callable[[], object], budget: Budget) -> Timing:
    """One function's median seconds per call (see measure_together)."""
    return measure_together({"fn": fn}, budget)["fn"]


def event_timings(enqueues: dict[str, Callable[[], Any]], quick: bool) -> dict[str, Timing]:
    """The median of each kernel's own durations (its event's profiling start to end), one launch at a time,
    the kernels taking turns."""
    for enqueue in enqueues.values():
        enqueue().wait()
    samples: dict[str, list[float]] = {name: [] for name in enqueues}
    for _ in range(3 if quick else 15):
        for name, enqueue in enqueues.items():
            event = enqueue()
            event.wait()
            samples[name].append((event.profile.end - event.profile.start) * 1e-9)
    return {name: Timing(statistics.median(s), s, 1) for name, s in samples.items()}


def budget_for(nbytes: int, quick: bool) -> Budget:
    if quick:
        return Budget(min_samples=3, max_samples=5, seconds=0.05, sample_seconds=2e-4)
    if nbytes >= 256 << 20:
        return Budget(min_samples=3, max_samples=9, seconds=1.5)
    if nbytes >= 32 << 20:
        return Budget(min_samples=5, max_samples=15, seconds=1.5)
    return Budget()


# --------------------------------------------------------------------------------------------- inputs


def onnxruntime_model(graph: Any, opset: int = 21) -> Any:
    """The model of ``graph`` at ONNX ``opset``, with the oldest IR version that opset allows (10 for opset 21): onnx
    writes its own newest one, which an older onnxruntime refuses (onnx 1.23 writes 14, onnxruntime 1.30 reads up to
    13), so that any onnxruntime that knows the opset reads the model."""
    from onnx import helper

    opsets = [helper.make_opsetid("", opset)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets))


def parse_size(text: str) -> int:
    text = text.strip().upper()
    for suffix, scale in (("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30)):
        if text.endswith(suffix):
            return int(float(text[:-1]) * scale)
    return int(text)


def size_label(n: int) -> str:
    for suffix, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n % scale == 0:
            return f"{n // scale}{suffix}"
    return str(n)


def nchw_shape(n: int) -> tuple[int, int, int, int]:
    """A (1, C, H, W) shape of n elements with C = 16 and H, W near square where n allows, else (1, 1, 1, n)."""
    if n % 16:
        return (1, 1, 1, n)
    rest = n // 16
    h = int(rest**0.5)
    while rest % h:
        h -= 1
    return (1, 16, h, rest // h)


def test_values(n: int, dtype: np.dtype[Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
    """Values around integers with many ties, so every rounding path runs."""
    values = rng.integers(-2000, 2000, n).astype(np.float32) * 0.25 + rng.standard_normal(n).astype(np.float32)
    values[::7] = np.round(values[::7]) + 0.5
    return values.astype(dtype)


@dataclass
class Case:
    """One layout of one size and dtype: the arrays the NumPy-level engines see, and the DirectML layout."""

    layout: str
    x: np.ndarray[Any, Any]  # the input as the engines see it (a view for strided and broadcast)
    out: np.ndarray[Any, Any]  # where the result goes (x itself for inplace)
    storage: np.ndarray[Any, Any]  # the memory behind x (what a device buffer holds)
    sizes: tuple[int, ...]
    input_strides: tuple[int, ...] | None  # elements; None where DirectML cannot express them (reversed)


def make_case(layout: str, n: int, dtype: np.dtype[Any], rng: np.random.Generator) -> Case:
    shape = nchw_shape(n)
    _, c, h, w = shape
    packed_strides = (c * h * w, h * w, w, 1)
    if layout in ("packed", "inplace"):
        x = test_values(n, dtype, rng).reshape(shape)
        out = x if layout == "inplace" else np.empty_like(x)
        return Case(layout, x, out, x, shape, packed_strides)
    if layout == "strided":
        base = test_values(n, dtype, rng).reshape(shape)
        x = base.transpose(0, 2, 3, 1)  # NCHW memory read as NHWC: the last axis steps by H*W
        strides = tuple(s // base.itemsize for s in x.strides)
        return Case(layout, x, np.empty(x.shape, dtype), base, x.shape, strides)
    if layout == "padded":
        base = test_values(n // w * (w + 16), dtype, rng).reshape(1, c, h, w + 16)
        x = base[..., :w]
        strides = tuple(s // base.itemsize for s in x.strides)
        return Case(layout, x, np.empty(shape, dtype), base, shape, strides)
    if layout == "reversed":
        base = test_values(n, dtype, rng).reshape(shape)
        return Case(layout, base[..., ::-1], np.empty(shape, dtype), base, shape, None)
    if layout == "broadcast":
        small = test_values(c * w, dtype, rng).reshape(1, c, 1, w)
        x = np.broadcast_to(small, shape)
        strides = tuple(s // small.itemsize for s in x.strides)
        return Case(layout, x, np.empty(shape, dtype), small, shape, strides)
    raise ValueError(f"unknown layout {layout!r}")


# --------------------------------------------------------------------------------------------- engines

COPY_KERNELS = """
__kernel void copy32(__global const uint *restrict src, __global uint *restrict dst)
{ const size_t i = get_global_id(0); dst[i] = src[i]; }
__kernel void copy16(__global const ushort *restrict src, __global ushort *restrict dst)
{ const size_t i = get_global_id(0); dst[i] = src[i]; }
"""


class Dml:
    """dmlpy's two paths: the object model on pre-bound device buffers, and dml.round on NumPy arrays; devices
    that take dmlpy's extension operators too where ``extensions``."""

    def __init__(self, device_index: int | None, *, extensions: bool = False) -> None:
        import pyopencl as cl

        import dmlpy as dml
        from dmlpy.runtime.platforms import device_by_index, preferred_device

        self.dml = dml
        self.cl = cl
        entry = preferred_device() if device_index is None else device_by_index(device_index)
        # Two queues on one context: a plain one for every timed call, and one with profiling (which costs PoCL
        # up to a quarter of a strided kernel's time) for the kernels' own times from their events.
        context = cl.Context([entry.cl_device])
        profiling = cl.command_queue_properties.PROFILING_ENABLE
        self.device = dml.create_device(cl_queue=cl.CommandQueue(context), extensions=extensions)
        self.profiled = dml.create_device(
            cl_queue=cl.CommandQueue(context, properties=profiling), extensions=extensions
        )
        self.copy_program = cl.Program(self.device.context, COPY_KERNELS).build()
        self.copy_kernels = {2: cl.Kernel(self.copy_program, "copy16"), 4: cl.Kernel(self.copy_program, "copy32")}

    def copy_kernel(self, n: int, itemsize: int) -> tuple[Callable[[], object], Callable[[], Any]]:
        """The copy kernel over ``n`` elements: (enqueue and wait, enqueue on the profiling queue returning its
        event)."""
        cl, ctx, queue, profiled = self.cl, self.device.context, self.device.queue, self.profiled.queue
        src = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, n * itemsize)
        dst = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, n * itemsize)
        cl.enqueue_fill_buffer(queue, src, np.uint8(0x3C), 0, n * itemsize)
        cl.enqueue_fill_buffer(queue, dst, np.uint8(0), 0, n * itemsize)
        queue.finish()
        kernel = self.copy_kernels[itemsize]
        kernel.set_args(src, dst)
        buffers = (src, dst)  # the kernel does not keep its arguments alive: the closure must

        def enqueue(on: Any, buffers: tuple[Any, Any] = buffers) -> Any:
            return cl.enqueue_nd_range_kernel(on, kernel, (n,), None)

        return (lambda: enqueue(queue).wait()), (lambda: enqueue(profiled))

    def kernel_only(self, case: Case, mode: str) -> Callable[[], object] | None:
        """The object model's dispatch on pre-bound device buffers, and a wait (None for a layout DirectML cannot
        express)."""
        dml, device = self.dml, self.device
        from dmlpy.modes import resolve_mode

        if case.input_strides is None:
            return None

        data_type = dml.TensorDataType.FLOAT16 if case.x.dtype == np.float16 else dml.TensorDataType.FLOAT32
        in_desc = dml.BufferTensorDesc(data_type=data_type, sizes=case.sizes, strides=case.input_strides)
        out_desc = dml.BufferTensorDesc(data_type=data_type, sizes=case.sizes)
        op = device.create_operator(
            dml.ElementWiseRoundOperatorDesc(
                input_tensor=in_desc, output_tensor=out_desc, rounding_mode=resolve_mode(mode)
            )
        )
        compiled = device.compile_operator(op)
        recorder = device.create_command_recorder()
        initializer = device.create_operator_initializer([compiled])
        recorder.record_dispatch(device.queue, initializer, device.create_binding_table(initializer)).wait()
        source = device.upload(case.storage)
        target = source if case.layout == "inplace" else device.create_buffer(out_desc.total_tensor_size_in_bytes)
        table = device.create_binding_table(compiled)
        table.bind_inputs([dml.BufferBinding(source, 0, in_desc.total_tensor_size_in_bytes)])
        table.bind_outputs([dml.BufferBinding(target, 0, out_desc.total_tensor_size_in_bytes)])
        queue = device.queue
        return lambda: recorder.record_dispatch(queue, compiled, table).wait()

    def device_array(self, case: Case, mode: str) -> tuple[Callable[[], object], Callable[[], Any]] | None:
        """``dml.round(x, out=y)`` on pyopencl arrays of the device's context (the case's layout as a device view):
        (the call and a wait: the one-liner's whole cost, data never leaving the device; the call on the profiling
        queue returning its kernel's event). None for a layout DirectML cannot express."""
        import pyopencl.array as cl_array

        round_ = self.dml.round
        input_strides = case.input_strides
        if input_strides is None:
            return None

        def call_on(device: Any) -> Callable[[], Any]:
            queue = device.queue
            storage = cl_array.to_device(queue, case.storage)
            strides = tuple(s * case.x.itemsize for s in input_strides)
            x = cl_array.Array(queue, case.sizes, case.x.dtype, strides=strides, data=storage.base_data)
            out = x if case.layout == "inplace" else cl_array.empty(queue, case.sizes, case.x.dtype)
            queue.finish()

            def call(keep: Any = storage) -> Any:
                round_(x, mode=mode, out=out, device=device)
                return out.events[-1]

            return call

        timed = call_on(self.device)
        return (lambda: timed().wait()), call_on(self.profiled)

    def end_to_end(self, case: Case, mode: str) -> Callable[[], object]:
        round_, device, x, out = self.dml.round, self.device, case.x, case.out
        return lambda: round_(x, mode=mode, out=out, device=device)


def numpy_peer(case: Case, mode: str) -> Callable[[], object] | None:
    fn = {"half_to_even": np.rint, "toward_zero": np.trunc}.get(mode)
    if fn is None:
        return None
    x, out = case.x, case.out
    return lambda: fn(x, out=out)


class Peers:
    """Optional engines, imported only when asked for and installed."""

    def __init__(self, names: list[str]) -> None:
        self.available: dict[str, Any] = {}
        self.versions: dict[str, str] = {"numpy": np.__version__}
        self.missing: list[str] = []
        for name in names:
            if name == "numpy":
                continue
            try:
                module = __import__(name)
            except Exception:  # any failure to import means "not installed" here
                self.missing.append(name)
                continue
            self.available[name] = module
            self.versions[name] = str(getattr(module, "__version__", "?"))
        self._ort: dict[tuple[str, int], Any] = {}
        self._ov: dict[tuple[str, int, str], Any] = {}

    def make(self, name: str, case: Case, mode: str) -> Callable[[], object] | None:
        if name == "numpy":
            return numpy_peer(case, mode)
        if name not in self.available:
            return None
        return getattr(self, f"_{name}")(case, mode)

    def _torch(self, case: Case, mode: str) -> Callable[[], object] | None:
        torch = self.available["torch"]
        fn = {"half_to_even": torch.round, "toward_zero": torch.trunc}.get(mode)
        if fn is None:
            return None
        base = torch.from_numpy(case.storage)
        if case.layout == "strided":
            x = base.permute(0, 2, 3, 1)
        elif case.layout == "broadcast":
            x = base.expand(*case.sizes)
        elif case.layout == "padded":
            x = base[..., : case.sizes[-1]]
        elif case.layout == "reversed":  # torch has no negative strides: flip copies, in the call as dml.round's
            return lambda: fn(base.flip(-1), out=torch.from_numpy(case.out))
        else:
            x = base
        out = x if case.layout == "inplace" else torch.from_numpy(case.out)
        return lambda: fn(x, out=out)

    def _onnxruntime(self, case: Case, mode: str) -> Callable[[], object] | None:
        if mode != "half_to_even" or case.layout == "inplace":
            return None
        ort = self.available["onnxruntime"]
        import onnx
        from onnx import TensorProto, helper

        elem = TensorProto.FLOAT16 if case.x.dtype == np.float16 else TensorProto.FLOAT
        key = (case.x.dtype.name, case.x.ndim)
        session = self._ort.get(key)
        if session is None:
            dims = [f"d{i}" for i in range(case.x.ndim)]
            graph = helper.make_graph(
                [helper.make_node("Round", ["x"], ["y"])],
                "round",
                [helper.make_tensor_value_info("x", elem, dims)],
                [helper.make_tensor_value_info("y", elem, dims)],
            )
            model = onnxruntime_model(graph, opset=13)
            onnx.checker.check_model(model)
            options = ort.SessionOptions()
            session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
            self._ort[key] = session
        x, out = case.x, case.out

        def run() -> None:
            binding = session.io_binding()
            binding.bind_cpu_input("x", x)  # a non-contiguous view is copied here: part of ORT's real cost
            binding.bind_output("y", "cpu", 0, out.dtype, out.shape, out.ctypes.data)
            session.run_with_iobinding(binding)

        return run

    def _openvino(self, case: Case, mode: str) -> Callable[[], object] | None:
        ov_mode = {"half_to_even": "half_to_even", "half_away_from_zero": "half_away_from_zero"}.get(mode)
        if ov_mode is None or case.layout == "inplace":
            return None
        ov = self.available["openvino"]
        import openvino.opset13 as ops

        key = (case.x.dtype.name, case.x.ndim, ov_mode)
        compiled = self._ov.get(key)
        if compiled is None:
            param = ops.parameter([-1] * case.x.ndim, case.x.dtype, name="x")
            model = ov.Model([ops.round(param, ov_mode)], [param])
            compiled = ov.Core().compile_model(model, "CPU")
            self._ov[key] = compiled
        request = compiled.create_infer_request()
        source = case.x
        contiguous = source.flags.c_contiguous and source.flags.writeable
        out_tensor = ov.Tensor(case.out, shared_memory=True)

        def run() -> None:
            # OpenVINO needs a dense input: a view is made contiguous on each call, as a user would.
            data = source if contiguous else np.array(source, order="C")
            request.set_input_tensor(ov.Tensor(data, shared_memory=True))
            request.set_output_tensor(out_tensor)
            request.infer()

        return run


# --------------------------------------------------------------------------------------------- grid


@dataclass
class Row:
    dtype: str
    size: int
    layout: str
    mode: str
    seconds: dict[str, float | None] = field(default_factory=dict)
    gbps: dict[str, float | None] = field(default_factory=dict)
    ratios: dict[str, float | None] = field(default_factory=dict)


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def run_grid(args: argparse.Namespace, dml_: Dml, peers: Peers) -> list[Row]:
    rng = np.random.default_rng(12345)
    rows: list[Row] = []
    for dtype_name in args.dtypes:
        dtype = np.dtype(dtype_name)
        for n in args.sizes:
            nbytes = 2 * n * dtype.itemsize
            budget = budget_for(nbytes, args.quick)

            def gbps(timing: Timing | None, nbytes: int = nbytes) -> float | None:
                return nbytes / timing.seconds / 1e9 if timing else None

            src = test_values(n, dtype, rng)
            dst = np.empty_like(src)
            copy_wait, copy_event = dml_.copy_kernel(n, dtype.itemsize)
            for layout in args.layouts:
                case = make_case(layout, n, dtype, rng)
                for mode in args.modes:
                    row = Row(dtype_name, n, layout, mode)
                    # The baselines are measured with every row, taking turns with its engines, so each row's
                    # ratios come from the same moments (see measure_together).
                    engines: dict[str, Callable[[], object] | None] = {
                        "np.copyto": lambda src=src, dst=dst: np.copyto(dst, src),
                        "copy_kernel": copy_wait,
                        "kernel": dml_.kernel_only(case, mode),
                        "end_to_end": dml_.end_to_end(case, mode),
                    }
                    on_device = dml_.device_array(case, mode)
                    engines["device_array"] = on_device[0] if on_device else None
                    timings: dict[str, Timing | None] = {name: None for name in engines}
                    timings.update(measure_together({k: f for k, f in engines.items() if f is not None}, budget))
                    timings["copy_kernel_events"] = timings["device_array_events"] = None
                    if on_device:
                        events = event_timings({"copy": copy_event, "round": on_device[1]}, args.quick)
                        timings["copy_kernel_events"] = events["copy"]
                        timings["device_array_events"] = events["round"]
                    for name in args.peers:
                        fn = peers.make(name, case, mode)
                        timings[name] = measure(fn, budget) if fn is not None else None
                        if fn is not None and name != "numpy" and not args.quick:
                            time.sleep(SETTLE_S)  # let the peer's spinning worker threads go idle
                    row.seconds = {k: (t.seconds if t else None) for k, t in timings.items()}
                    row.gbps = {k: gbps(t) for k, t in timings.items()}
                    g = row.gbps
                    row.ratios = {
                        "kernel/copy_kernel": ratio(g["kernel"], g["copy_kernel"]),
                        "device_array/copy_kernel": ratio(g["device_array"], g["copy_kernel"]),
                        "device_array_events/copy_kernel_events": ratio(
                            g["device_array_events"], g["copy_kernel_events"]
                        ),
                        "end_to_end/np.copyto": ratio(g["end_to_end"], g["np.copyto"]),
                        "end_to_end/numpy": ratio(g["end_to_end"], g.get("numpy")),
                        "end_to_end/torch": ratio(g["end_to_end"], g.get("torch")),
                        "end_to_end/onnxruntime": ratio(g["end_to_end"], g.get("onnxruntime")),
                        "end_to_end/openvino": ratio(g["end_to_end"], g.get("openvino")),
                    }
                    rows.append(row)
                    print_row(row, args.peers, header=len(rows) == 1)
                del case
            del src, dst
    return rows


def fmt(value: float | None, width: int, digits: int = 1) -> str:
    return f"{value:{width}.{digits}f}" if value is not None else f"{'-':>{width}}"


SHORT = {"onnxruntime": "ort", "openvino": "ov"}


def print_row(row: Row, peer_names: list[str], header: bool) -> None:
    columns = [
        "np.copyto",
        "copy_kernel",
        "kernel",
        "device_array",
        "copy_kernel_events",
        "device_array_events",
        "end_to_end",
        *peer_names,
    ]
    names = ["copyto", "copyK", "kernel", "devarr", "copyK@", "devarr@", "e2e", *(SHORT.get(p, p) for p in peer_names)]
    if header:
        print(
            "GB/s (bytes read + written), medians; ratios from the same run; @: the kernel's own time from its "
            "profiling event",
            flush=True,
        )
        print(
            f"{'dtype':8} {'size':>5} {'layout':9} {'mode':19} "
            + " ".join(f"{n:>7}" for n in names)
            + f" | {'k/copyK':>7} {'da/cpyK':>7} {'da@/cK@':>7} {'e2e/cpy':>7} {'e2e/np':>7} {'e2e/trc':>7}",
            flush=True,
        )
    g, r = row.gbps, row.ratios
    print(
        f"{row.dtype:8} {size_label(row.size):>5} {row.layout:9} {row.mode:19} "
        + " ".join(fmt(g.get(c), 7) for c in columns)
        + " | "
        + " ".join(
            fmt(r[k], 7, 2)
            for k in (
                "kernel/copy_kernel",
                "device_array/copy_kernel",
                "device_array_events/copy_kernel_events",
                "end_to_end/np.copyto",
                "end_to_end/numpy",
                "end_to_end/torch",
            )
        ),
        flush=True,
    )


# --------------------------------------------------------------------------------------------- extras


def latency(dml_: Dml, quick: bool) -> dict[str, Any]:
    """Target 6: dml.round on 1K float32 elements against a bare enqueue + finish of the same built kernel."""
    cl, dml, device = dml_.cl, dml_.dml, dml_.device
    x = test_values(1024, np.dtype(np.float32), np.random.default_rng(1))
    dml.round(x, device=device)
    compiled = next(iter(c for c in _compiled_for(dml, device, x)))
    lowered = compiled.lowered
    kernel = compiled.launchable.shared.kernel  # the very kernel object dml.round launches
    src = cl.Buffer(device.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    dst = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, x.nbytes)
    kernel.set_args(src, np.uint64(0), dst, np.uint64(0), *compiled.launchable.layout_args)
    queue = device.queue
    global_size = (lowered.global_size,)

    def bare() -> None:
        cl.enqueue_nd_range_kernel(queue, kernel, global_size, compiled.launchable.shared.local_size)
        queue.finish()

    budget = Budget(min_samples=3, max_samples=5, seconds=0.1) if quick else Budget(min_samples=9, seconds=2.0)
    out = np.empty_like(x)
    import pyopencl.array as cl_array

    x_device = cl_array.to_device(queue, x)
    out_device = cl_array.empty_like(x_device)

    def device_array_call() -> None:
        dml.round(x_device, out=out_device, device=device)
        queue.finish()

    timings = measure_together(
        {
            "bare": bare,
            "round": lambda: dml.round(x, device=device),
            "round_out": lambda: dml.round(x, out=out, device=device),
            "device": device_array_call,
            "numpy": lambda: np.rint(x, out=out),
        },
        budget,
    )
    t_bare, t_round, t_round_out, t_device = (timings[k] for k in ("bare", "round", "round_out", "device"))
    return {
        "elements": x.size,
        "bare_enqueue_finish_s": t_bare.seconds,
        "dml_round_s": t_round.seconds,
        "dml_round_out_s": t_round_out.seconds,
        "device_array_s": t_device.seconds,
        "ratio": t_round.seconds / t_bare.seconds,
        "ratio_out": t_round_out.seconds / t_bare.seconds,
        "ratio_device_array": t_device.seconds / t_bare.seconds,
        "numpy_rint_s": timings["numpy"].seconds,
        "ratio_numpy": t_round.seconds / timings["numpy"].seconds,
    }


def _compiled_for(dml: Any, device: Any, x: np.ndarray[Any, Any]) -> list[Any]:
    """The operator dml.round runs for a packed float32 array, compiled through the object model: the program
    cache hands back the very program dml.round uses. Public calls only, so that compare_revisions.py can run
    this script on any revision."""
    tensor = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=x.shape)
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=tensor, output_tensor=tensor)
    compiled = device.compile_operator(device.create_operator(desc))
    device.create_operator_initializer([compiled]).initialize()
    return [compiled]


MOVE_KERNEL = """
__kernel void move(__global const SOURCE_T *restrict src, __global TARGET_T *restrict dst)
{ const size_t i = get_global_id(0); dst[i] = (TARGET_T)src[i]; }
"""
UNSIGNED = {1: "uchar", 2: "ushort", 4: "uint", 8: "ulong"}


def operators(dml_: Dml, sizes: list[int], quick: bool) -> list[dict[str, Any]]:
    """Target 15e: the extension and quantization kernels against copy kernels of their bytes (event times)."""
    import ml_dtypes
    import pyopencl.array as cl_array

    from dmlpy.extensions import ExtRoundingMode
    from dmlpy.modes import DIRECTML_EQUIVALENT

    cl, dml = dml_.cl, dml_.dml
    queue = dml_.profiled.queue
    device = dml.create_device(cl_queue=queue, extensions=True)
    n = 5000 if quick else max([*sizes, 16 << 20])
    values = test_values(n, np.dtype(np.float32), np.random.default_rng(7)) * 4
    moves: dict[tuple[int, int], Any] = {}

    def move(source: Any, target: Any) -> Callable[[], Any]:
        widths = (source.dtype.itemsize, target.dtype.itemsize)
        if widths not in moves:
            options = [f"-DSOURCE_T={UNSIGNED[widths[0]]}", f"-DTARGET_T={UNSIGNED[widths[1]]}"]
            moves[widths] = cl.Kernel(cl.Program(dml_.device.context, MOVE_KERNEL).build(options=options), "move")
        kernel = moves[widths]
        return lambda: kernel(queue, (n,), None, source.base_data, target.base_data)

    def measured(what: str, dtype: str, mode: str, call: Callable[[], Any], x: Any, out: Any) -> dict[str, Any]:
        def launch() -> Any:
            call()
            return out.events[-1]

        timings = event_timings({"copy": move(x, out), "operator": launch}, quick)
        nbytes = n * (x.dtype.itemsize + out.dtype.itemsize)
        row = {
            "operator": what,
            "dtype": dtype,
            "mode": mode,
            "size": n,
            "gbps": nbytes / timings["operator"].seconds / 1e9,
            "copy_gbps": nbytes / timings["copy"].seconds / 1e9,
        }
        row["ratio"] = row["gbps"] / row["copy_gbps"]
        print(
            f"{what:10} {dtype:9} {mode:24} {size_label(n):>5} {row['gbps']:7.1f} {row['copy_gbps']:7.1f} "
            f"{row['ratio']:7.2f}",
            flush=True,
        )
        return row

    print(f"\n{'operator':10} {'dtype':9} {'mode':24} {'size':>5} {'GB/s@':>7} {'copyK@':>7} {'ratio':>7}")
    rows = []
    for dtype in ("float32", "float16", "float64", "bfloat16"):
        x = cl_array.to_device(queue, values.astype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype))
        out = cl_array.empty_like(x)
        for ext_mode in ExtRoundingMode:
            call = lambda m=ext_mode, x=x, out=out: dml.round(x, mode=m, out=out, device=device)  # noqa: E731
            # dml.round runs DirectML's Round where DirectML has the mode and dtype, the extension elsewhere.
            directml = dtype in ("float32", "float16") and ext_mode in DIRECTML_EQUIVALENT
            rows.append(measured("Round" if directml else "ext Round", dtype, ext_mode.name, call, x, out))
    for dtype in ("float32", "float16"):
        x = cl_array.to_device(queue, values.astype(dtype))
        q = cl_array.empty(queue, n, np.uint8)
        scale = np.dtype(dtype).type(0.5)
        call = lambda x=x, q=q, s=scale: dml.quantize_linear(x, s, np.uint8(3), out=q, device=device)  # noqa: E731
        rows.append(measured("quantize", dtype, "per-tensor, uint8", call, x, q))
        call = lambda x=x, q=q, s=scale: dml.dequantize_linear(q, s, np.uint8(3), out=x, device=device)  # noqa: E731
        rows.append(measured("dequantize", dtype, "per-tensor, uint8", call, q, x))
    return rows


CHILD_WARM = """
import time, sys
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
import dmlpy as dml
t2 = time.perf_counter()
x = np.linspace(-8, 8, 1024, dtype=np.float32)
y = dml.round(x)
t3 = time.perf_counter()
dml.round(x)
t4 = time.perf_counter()
assert (y == np.rint(x)).all()
print({"import_numpy_s": t1 - t0, "import_dmlpy_s": t2 - t1, "first_call_s": t3 - t2, "second_call_s": t4 - t3})
"""


def warm_cache() -> dict[str, Any]:
    """Target 7: a second process finds the programs on disk; time its import and first dml.round call."""
    results = []
    for _ in range(2):  # the first child warms the cache (if cold), the second is the one measured
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", CHILD_WARM], capture_output=True, text=True, check=True)
        wall = time.perf_counter() - start
        entry = eval(done.stdout.strip().splitlines()[-1])  # our own child's dict literal
        entry["process_wall_s"] = wall
        results.append(entry)
    measured = results[-1]
    measured["import_and_first_call_s"] = measured["import_dmlpy_s"] + measured["first_call_s"]
    measured["warming_process"] = results[0]
    return measured


CHILD_PEAK = """
import json, resource, sys, tracemalloc
import numpy as np
import dmlpy as dml

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return None

n = int(sys.argv[1])
dml.round(np.ones(4096, np.float32))           # device, program and launch path warmed on a small array
rss_before = status("VmRSS")
hwm_before = status("VmHWM")
x = np.empty(n, np.float32)
chunk = 1 << 24
for start in range(0, n, chunk):               # fill in chunks: no temporary as large as the input
    x[start:start + chunk] = 0.5
    x[start:start + chunk] += np.arange(min(chunk, n - start), dtype=np.float32) % 1000
rss_with_input = status("VmRSS")
tracemalloc.start()
y = dml.round(x)
traced_current, traced_peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
hwm = status("VmHWM")
ok = bool(y[:1000].tolist() == np.rint(x[:1000]).tolist())
print(json.dumps({"elements": n, "input_bytes": x.nbytes, "output_bytes": y.nbytes, "rss_before_input": rss_before,
                  "hwm_before_input": hwm_before, "rss_with_input": rss_with_input, "peak_rss": hwm,
                  "ru_maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                  "tracemalloc_peak_during_call": traced_peak, "correct": ok}))
"""


def peak_memory(mib: int) -> dict[str, Any]:
    """Target 8: the extra memory of dml.round on a ``mib`` MiB float32 array, in a fresh process."""
    n = mib * (1 << 20) // 4
    done = subprocess.run([sys.executable, "-c", CHILD_PEAK, str(n)], capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    used = result["peak_rss"] - result["rss_before_input"]
    result["peak_over_baseline"] = used
    result["ratio_to_input_plus_output"] = used / (result["input_bytes"] + result["output_bytes"])
    return result


# --------------------------------------------------------------------------------------------- targets


def evaluate_targets(rows: list[Row], extras: dict[str, Any], peers: list[str]) -> list[dict[str, Any]]:
    """The issue's targets, met or not, from this run's figures (a target with no figures is 'not measured')."""
    targets: list[dict[str, Any]] = []

    def check(number: int | str, text: str, selected: list[Row], key: str, bound: float, mode: str = "min") -> None:
        values = [(r, r.ratios.get(key)) for r in selected]
        values = [(r, v) for r, v in values if v is not None]
        if not values:
            targets.append({"target": number, "what": text, "met": None, "figures": []})
            return
        met = all(v >= bound for _, v in values)
        worst_row, worst = min(values, key=lambda pair: pair[1])
        targets.append(
            {
                "target": number,
                "what": text,
                "met": met,
                "worst": worst,
                "worst_row": {
                    "dtype": worst_row.dtype,
                    "size": size_label(worst_row.size),
                    "layout": worst_row.layout,
                    "mode": worst_row.mode,
                },
                "figures": [
                    {"dtype": r.dtype, "size": r.size, "layout": r.layout, "mode": r.mode, key: round(v, 3)}
                    for r, v in values
                ],
            }
        )

    def packed(size_ok: Callable[[int], bool]) -> list[Row]:
        return [r for r in rows if r.layout == "packed" and size_ok(r.size)]

    big = packed(lambda size: size >= 16 << 20)
    check(
        "15a",
        "packed >= 16M, float32 and float16, every mode: kernel >= 0.9x copy kernel",
        big,
        "kernel/copy_kernel",
        0.9,
    )
    check("15a", "packed >= 16M, every mode: end to end (out=) >= 0.9x np.copyto", big, "end_to_end/np.copyto", 0.9)
    away = []
    for r in big:
        others = [o.gbps["kernel"] for o in big if (o.dtype, o.size) == (r.dtype, r.size) and o.mode != r.mode]
        if r.mode == "half_away_from_zero" and others and r.gbps["kernel"]:
            r.ratios["away/other_modes"] = r.gbps["kernel"] / max(others)  # against the faster of the others
            away.append(r)
    check(
        "15a",
        "packed >= 16M: halves away from zero within 10% of the other modes (kernel)",
        away,
        "away/other_modes",
        0.9,
    )
    check(
        "15b",
        "packed 1M (in cache): end to end >= 0.5x np.copyto",
        packed(lambda size: size == 1 << 20),
        "end_to_end/np.copyto",
        0.5,
    )
    at_least_1m = [r for r in rows if r.size >= 1 << 20]
    check(
        "15d",
        "strided and padded (>= 1M): kernel >= 0.5x copy kernel",
        [r for r in at_least_1m if r.layout in ("strided", "padded")],
        "kernel/copy_kernel",
        0.5,
    )
    check(
        "15d",
        "reversed view (>= 1M; DirectML has no negative strides, so dml.round copies): end to end >= 0.5x np.copyto",
        [r for r in at_least_1m if r.layout == "reversed"],
        "end_to_end/np.copyto",
        0.5,
    )
    check(
        "15d",
        "broadcast (>= 1M): kernel >= 0.9x copy kernel",
        [r for r in at_least_1m if r.layout == "broadcast"],
        "kernel/copy_kernel",
        0.9,
    )
    check(
        4,
        "end-to-end float16 (packed, >= 1M): >= 10x NumPy rint",
        [r for r in at_least_1m if r.dtype == "float16" and r.layout == "packed" and r.mode == "half_to_even"],
        "end_to_end/numpy",
        10.0,
    )
    check(
        "14a",
        "packed float32 and float16 >= 16M, every mode: device-array kernel >= 0.9x copy kernel (event times)",
        big,
        "device_array_events/copy_kernel_events",
        0.9,
    )
    if "operators" in extras:
        ops = extras["operators"]
        worst = min(ops, key=lambda o: o["ratio"])
        targets.append(
            {
                "target": "15e",
                "what": "Round in nine modes (the extension, or DirectML's where it has the mode) and "
                "QuantizeLinear/DequantizeLinear, packed >= 16M: >= 0.8x the copy kernel of their bytes (event times)",
                "met": all(o["ratio"] >= 0.8 for o in ops),
                "worst": worst["ratio"],
                "worst_row": {k: worst[k] for k in ("operator", "dtype", "mode")},
                "figures": ops,
            }
        )
    if "latency" in extras:
        lat = extras["latency"]
        targets.append(
            {
                "target": "6/15c",
                "what": f"dml.round on 1K <= 2x bare enqueue + finish ({lat['ratio_numpy']:.0f}x np.rint's time)",
                "met": lat["ratio"] <= 2.0,
                "worst": lat["ratio"],
                "figures": [lat],
            }
        )
        targets.append(
            {
                "target": "14b",
                "what": "dml.round on 1K device arrays <= 2x bare enqueue + finish",
                "met": lat["ratio_device_array"] <= 2.0,
                "worst": lat["ratio_device_array"],
                "figures": [lat],
            }
        )
    if "warm_cache" in extras:
        warm = extras["warm_cache"]
        targets.append(
            {
                "target": 7,
                "what": "warm-cache process: first dml.round call < 0.2 s",
                "met": warm["first_call_s"] < 0.2,
                "worst": warm["first_call_s"],
                "figures": [{k: v for k, v in warm.items() if k != "warming_process"}],
            }
        )
    if "peak_memory" in extras:
        peak = extras["peak_memory"]
        targets.append(
            {
                "target": 8,
                "what": "peak memory <= (input + output) * 1.1",
                "met": peak["ratio_to_input_plus_output"] <= 1.1,
                "worst": peak["ratio_to_input_plus_output"],
                "figures": [peak],
            }
        )
    torch_rows = [r for r in rows if r.ratios.get("end_to_end/torch") is not None]
    targets.append(
        {
            "target": 9,
            "what": "ratio against torch.round (reported, no bound)",
            "met": None if not torch_rows else True,
            "figures": [
                {
                    "dtype": r.dtype,
                    "size": r.size,
                    "layout": r.layout,
                    "mode": r.mode,
                    "end_to_end/torch": round(r.ratios["end_to_end/torch"], 3),
                    "kernel/torch": round(ratio(r.gbps["kernel"], r.gbps["torch"]) or 0, 3),
                }
                for r in torch_rows
            ],
        }
    )
    return targets


def print_targets(targets: list[dict[str, Any]]) -> None:
    print("\nTargets")
    for t in targets:
        state = {True: "met", False: "MISSED", None: "not measured"}[t["met"]]
        worst = f" (worst {t['worst']:.3g})" if t.get("worst") is not None else ""
        if t["target"] == 9 and t["figures"]:
            values = [f["end_to_end/torch"] for f in t["figures"]]
            worst = f" (end-to-end / torch from {min(values):.2f}x to {max(values):.2f}x)"
            state = "reported"
        if t.get("worst_row"):
            worst += " at " + " ".join(str(v) for v in t["worst_row"].values())
        print(f"  {t['target']}. {t['what']}: {state}{worst}")


# --------------------------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--sizes", help=f"element counts (default {FULL_SIZES}; --quick: {QUICK_SIZES})")
    parser.add_argument("--dtypes", default=",".join(DTYPES))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--layouts", default=",".join(LAYOUTS))
    parser.add_argument("--peers", default=",".join(PEERS))
    parser.add_argument("--extras", default=",".join(EXTRAS))
    parser.add_argument("--peak-mib", type=int, help="array size of the peak-memory probe (default 1024; --quick 16)")
    parser.add_argument("--device", type=int, help="device index from `dmlpy devices`")
    parser.add_argument("--json", type=Path, help="output file (default benchmarks/results/round-<time>.json)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes and few repeats: a smoke run")
    args = parser.parse_args(argv)

    def listed(text: str, allowed: tuple[str, ...], what: str) -> list[str]:
        items = [t.strip() for t in text.split(",") if t.strip() and t.strip() != "none"]
        for item in items:
            if item not in allowed:
                parser.error(f"--{what}: {item!r} is not one of {', '.join(allowed)}")
        return items

    args.sizes = [parse_size(s) for s in (args.sizes or (QUICK_SIZES if args.quick else FULL_SIZES)).split(",")]
    args.dtypes = listed(args.dtypes, DTYPES, "dtypes")
    args.modes = listed(args.modes, MODES, "modes")
    args.layouts = listed(args.layouts, LAYOUTS, "layouts")
    args.peers = listed(args.peers, PEERS, "peers")
    args.extras = listed(args.extras, EXTRAS, "extras")
    if args.peak_mib is None:
        args.peak_mib = 16 if args.quick else 1024
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    dml_ = Dml(args.device)
    peers = Peers(args.peers)
    args.peers = [p for p in args.peers if p == "numpy" or p in peers.available]
    cl_device = dml_.device.cl_device
    meta = {
        "started": dt.datetime.now().isoformat(timespec="seconds"),
        "device": dml_.device.name,
        "device_version": cl_device.version,
        "driver_version": cl_device.driver_version,
        "compute_units": cl_device.max_compute_units,
        "host": {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version()},
        "versions": {**peers.versions, "pyopencl": dml_.cl.VERSION_TEXT},
        "peers_missing": peers.missing,
        "arguments": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "bytes_counted": "2 * elements * itemsize (read + written) for every layout",
    }
    print(
        f"device: {meta['device']}, {meta['compute_units']} compute units; peers: {', '.join(args.peers) or 'none'}"
        + (f" (not installed: {', '.join(peers.missing)})" if peers.missing else ""),
        flush=True,
    )
    rows = run_grid(args, dml_, peers)
    extras: dict[str, Any] = {}
    if "latency" in args.extras:
        extras["latency"] = latency(dml_, args.quick)
        lat = extras["latency"]
        print(
            f"\nlatency, 1K float32: dml.round {lat['dml_round_s'] * 1e6:.1f} us "
            f"(out= {lat['dml_round_out_s'] * 1e6:.1f} us), "
            f"bare enqueue + finish {lat['bare_enqueue_finish_s'] * 1e6:.1f} us: {lat['ratio']:.2f}x; "
            f"on device arrays (out=) {lat['device_array_s'] * 1e6:.1f} us: {lat['ratio_device_array']:.2f}x"
        )
    if "operators" in args.extras:
        extras["operators"] = operators(dml_, args.sizes, args.quick)
    if "warm_cache" in args.extras:
        extras["warm_cache"] = warm = warm_cache()
        print(
            f"warm cache, second process: import dmlpy {warm['import_dmlpy_s']:.3f} s, first dml.round "
            f"{warm['first_call_s']:.3f} s, second {warm['second_call_s'] * 1e3:.2f} ms, "
            f"process wall {warm['process_wall_s']:.2f} s"
        )
    if "peak_memory" in args.extras:
        extras["peak_memory"] = peak = peak_memory(args.peak_mib)
        print(
            f"peak memory, {args.peak_mib} MiB float32: peak RSS over baseline "
            f"{peak['peak_over_baseline'] / 2**20:.0f} MiB "
            f"for {(peak['input_bytes'] + peak['output_bytes']) / 2**20:.0f} MiB input + output: "
            f"{peak['ratio_to_input_plus_output']:.3f}x; tracemalloc peak in the call "
            f"{peak['tracemalloc_peak_during_call'] / 2**20:.1f} MiB"
        )
    targets = evaluate_targets(rows, extras, args.peers)
    print_targets(targets)
    meta["elapsed_s"] = time.perf_counter() - started
    report = {
        "meta": meta,
        "results": [vars(r) for r in rows],
        "extras": extras,
        "targets": targets,
    }
    path = write_results(args.json, "round", report, indent=1, default=float)
    print(f"\n{len(rows)} rows in {meta['elapsed_s']:.0f} s; JSON written to {path}")
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
