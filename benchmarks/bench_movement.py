"""The movement operators (issue 44: SLICE, SLICE1 backwards, JOIN, SPLIT, PADDING, TILE, DEPTH_TO_SPACE) on
FLOAT32 tensors of 16M elements, each against the copy kernel of its output's bytes, NumPy and onnxruntime's CPU
provider on the same inputs, on one or more OpenCL devices side by side, in one run.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_movement.py --json /tmp/movement.json     # 16M elements, default device
    .venv/bin/python benchmarks/bench_movement.py --devices 0,1                 # PoCL and Intel's CPU runtime
    .venv/bin/python benchmarks/bench_movement.py --quick                       # a smoke run: 64K elements

The big tensor is bench_round.nchw_shape's (1, 16, H, W) (16M: (1, 16, 1024, 1024)); each case's output is
that shape, but SLICE's and SPLIT's, which take it as their input:

    SLICE            every second row (H): a strided read, half the input          -> (1, 16, H/2, W)
    SLICE1 reversed  the innermost axis read backwards (stride -1): movement.cl
    JOIN outer       two halves along C (axis 1)
    JOIN inner       two halves along W (axis 3)
    SPLIT            into two halves along C                                        -> 2 x (1, 8, H, W)
    PADDING          CONSTANT (-7.75) and REFLECTION, 1 element each side of H and W: movement.cl
    TILE             x2 along C: movement.cl
    DEPTH_TO_SPACE   block 2 (DCR) from (1, 64, H/2, W/2)

Per case and device, through the object model on pre-bound device buffers (bench_engine.Bound, compiled and bound
once, dispatched many times), the device's default launch profile:

    kernel      the dispatch's own time on a profiling queue (bench_graph.dispatch_events: from before its first
                kernel to the end of its last, for JOIN and SPLIT's one copy per part), median of 15, taking turns
                with the copy kernel
    GB/s        bytes read (the input elements the output holds: a tiled input counts once, padding's new
                elements not at all) plus bytes written, over the kernel time
    copy        the copy kernel (bench_round.py's, 32-bit words) over the output's elements: copy / kernel is the
                operator's speed against memory (the issue's target: >= 0.8)
    numpy, onnxruntime   their wall times over the dispatch's (record_dispatch + wait on the first device), all
                taking turns (bench_round.measure_together): > 1 means dmlpy is faster. NumPy copies into
                preallocated arrays (slicing + np.copyto, np.concatenate(out=), a broadcast copy for np.tile)
                but for np.pad, which has no ``out=`` and allocates; onnxruntime (opset 21, IO binding to
                preallocated outputs) where it is installed

Each case's output is checked against NumPy's before it is timed. Timings are never asserted by the test suite;
tests/device/artefacts/test_bench_movement_smoke.py runs ``--quick``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import Bound
from bench_math import run_meta
from bench_round import (
    Dml,
    budget_for,
    event_timings,
    measure_together,
    nchw_shape,
    onnxruntime_model,
    parse_size,
    write_results,
)

TARGET = 0.8
"""The issue's target: a movement operator's kernel at least this fraction of the copy kernel of its bytes."""
FILL = -7.75
"""PADDING CONSTANT's value."""

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Case:
    """One movement: its descriptor's builder, the inputs, NumPy's result and NumPy's preallocated call, and the
    ONNX node (operator, attributes, constant inputs by name) that does the same."""

    name: str
    desc: Callable[[Any], Any]
    inputs: list[np.ndarray]
    expected: list[np.ndarray]
    numpy_call: Callable[[], object]
    onnx: tuple[str, dict[str, Any], dict[str, np.ndarray]]
    read_elements: int


def tensor(dml: Any, sizes: Shape) -> Any:
    return dml.TensorDesc(desc=dml.BufferTensorDesc(data_type="FLOAT32", sizes=tuple(sizes)))


def data(shape: Shape, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


def halves(shape: Shape, axis: int) -> Shape:
    return tuple(size // 2 if k == axis else size for k, size in enumerate(shape))


def onnx_slice(shape: Shape, starts: Shape, ends: Shape, steps: Shape) -> tuple[str, dict[str, Any], dict[str, Any]]:
    axes = np.arange(len(shape), dtype=np.int64)
    named = (("starts", starts), ("ends", ends), ("axes", axes), ("steps", steps))  # Slice's inputs in order
    return "Slice", {}, {name: np.array(v, np.int64) for name, v in named}


def slice_rows(shape: Shape) -> Case:
    x = data(shape, 1)
    out_shape = halves(shape, 2)
    out = np.empty(out_shape, np.float32)

    def desc(dml: Any) -> Any:
        return dml.SliceOperatorDesc(
            input_tensor=tensor(dml, shape),
            output_tensor=tensor(dml, out_shape),
            offsets=(0, 0, 0, 0),
            sizes=out_shape,
            strides=(1, 1, 2, 1),
        )

    onnx = onnx_slice(shape, (0, 0, 0, 0), shape, (1, 1, 2, 1))
    return Case("SLICE rows ::2", desc, [x], [x[:, :, ::2]], lambda: np.copyto(out, x[:, :, ::2]), onnx, out.size)


def slice1_reversed(shape: Shape) -> Case:
    x = data(shape, 2)
    out = np.empty(shape, np.float32)

    def desc(dml: Any) -> Any:
        return dml.Slice1OperatorDesc(
            input_tensor=tensor(dml, shape),
            output_tensor=tensor(dml, shape),
            input_window_offsets=(0, 0, 0, 0),
            input_window_sizes=shape,
            input_window_strides=(1, 1, 1, -1),
        )

    big = np.iinfo(np.int64).min  # ONNX: an end below -size runs a negative step to the axis's start
    onnx = onnx_slice(shape, (0, 0, 0, -1), (*shape[:3], big), (1, 1, 1, -1))
    return Case("SLICE1 W reversed", desc, [x], [x[..., ::-1]], lambda: np.copyto(out, x[..., ::-1]), onnx, x.size)


def join(shape: Shape, axis: int) -> Case:
    parts = [data(halves(shape, axis), 10 + k) for k in range(2)]
    out = np.empty(shape, np.float32)

    def desc(dml: Any) -> Any:
        inputs = [tensor(dml, part.shape) for part in parts]
        return dml.JoinOperatorDesc(inputs=inputs, output_tensor=tensor(dml, shape), axis=axis)

    return Case(
        f"JOIN 2 along {'CHW'[axis - 1]}",
        desc,
        parts,
        [np.concatenate(parts, axis=axis)],
        lambda: np.concatenate(parts, axis=axis, out=out),
        ("Concat", {"axis": axis}, {}),
        out.size,
    )


def split(shape: Shape) -> Case:
    x = data(shape, 3)
    half = halves(shape, 1)
    outs = [np.empty(half, np.float32) for _ in range(2)]
    c = half[1]

    def desc(dml: Any) -> Any:
        return dml.SplitOperatorDesc(input_tensor=tensor(dml, shape), outputs=[tensor(dml, half)] * 2, axis=1)

    def numpy_call() -> None:
        np.copyto(outs[0], x[:, :c])
        np.copyto(outs[1], x[:, c:])

    onnx = ("Split", {"axis": 1}, {"split": np.array([c, c], np.int64)})
    return Case("SPLIT 2 along C", desc, [x], [x[:, :c], x[:, c:]], numpy_call, onnx, x.size)


def padding(shape: Shape, mode: str) -> Case:
    inner = (*shape[:2], shape[2] - 2, shape[3] - 2)
    x = data(inner, 4)
    pads = ((0, 0), (0, 0), (1, 1), (1, 1))
    numpy_mode = {"CONSTANT": "constant", "REFLECTION": "reflect"}[mode]
    keywords: dict[str, Any] = {"constant_values": np.float32(FILL)} if mode == "CONSTANT" else {}

    def desc(dml: Any) -> Any:
        return dml.PaddingOperatorDesc(
            input_tensor=tensor(dml, inner),
            output_tensor=tensor(dml, shape),
            padding_mode=mode,
            padding_value=FILL,
            start_padding=(0, 0, 1, 1),
            end_padding=(0, 0, 1, 1),
        )

    expected = np.pad(x, pads, mode=numpy_mode, **keywords)  # type: ignore[call-overload]
    constants = {"pads": np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64)}
    if mode == "CONSTANT":
        constants["constant_value"] = np.array(FILL, np.float32)
    onnx = ("Pad", {"mode": "constant" if mode == "CONSTANT" else "reflect"}, constants)
    numpy_call = lambda: np.pad(x, pads, mode=numpy_mode, **keywords)  # noqa: E731
    return Case(f"PADDING {mode}", desc, [x], [expected], numpy_call, onnx, x.size)


def tile(shape: Shape) -> Case:
    x = data(halves(shape, 1), 5)
    out = np.empty(shape, np.float32)
    as_tiles = out.reshape(shape[0], 2, *x.shape[1:])  # np.tile(x, (1, 2, 1, 1)) into ``out``: a broadcast copy

    def desc(dml: Any) -> Any:
        return dml.TileOperatorDesc(
            input_tensor=tensor(dml, x.shape), output_tensor=tensor(dml, shape), repeats=(1, 2, 1, 1)
        )

    onnx = ("Tile", {}, {"repeats": np.array([1, 2, 1, 1], np.int64)})
    numpy_call = lambda: np.copyto(as_tiles, x[:, None])  # noqa: E731
    return Case("TILE x2 along C", desc, [x], [np.tile(x, (1, 2, 1, 1))], numpy_call, onnx, x.size)


def depth_to_space(shape: Shape) -> Case:
    n, c, h, w = shape
    b = 2
    x = data((n, c * b * b, h // b, w // b), 6)
    out = np.empty(shape, np.float32)
    # ONNX's DCR: the depth splits as (block row, block column, channel).
    moved = x.reshape(n, b, b, c, h // b, w // b).transpose(0, 3, 4, 1, 5, 2)
    target = out.reshape(n, c, h // b, b, w // b, b)

    def desc(dml: Any) -> Any:
        return dml.DepthToSpaceOperatorDesc(
            input_tensor=tensor(dml, x.shape), output_tensor=tensor(dml, shape), block_size=b
        )

    onnx = ("DepthToSpace", {"blocksize": b, "mode": "DCR"}, {})
    expected = moved.reshape(shape)
    return Case("DEPTH_TO_SPACE 2", desc, [x], [expected], lambda: np.copyto(target, moved), onnx, x.size)


def cases(shape: Shape) -> list[Case]:
    return [
        slice_rows(shape),
        slice1_reversed(shape),
        join(shape, 1),
        join(shape, 3),
        split(shape),
        padding(shape, "CONSTANT"),
        padding(shape, "REFLECTION"),
        tile(shape),
        depth_to_space(shape),
    ]


def onnxruntime_call(case: Case) -> Callable[[], object] | None:
    """onnxruntime's CPU provider on the case's one node, its constants initializers, IO binding to preallocated
    outputs; None where it is not installed."""
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return None
    op, attributes, constants = case.onnx
    names = [f"x{k}" for k in range(len(case.inputs))]
    outputs = [f"y{k}" for k in range(len(case.expected))]
    node = helper.make_node(op, [*names, *constants], outputs, **attributes)
    graph = helper.make_graph(
        [node],
        case.name,
        [
            helper.make_tensor_value_info(name, TensorProto.FLOAT, x.shape)
            for name, x in zip(names, case.inputs, strict=True)
        ],
        [
            helper.make_tensor_value_info(name, TensorProto.FLOAT, y.shape)
            for name, y in zip(outputs, case.expected, strict=True)
        ],
        initializer=[numpy_helper.from_array(value, name) for name, value in constants.items()],
    )
    options = ort.SessionOptions()
    # Its worker threads otherwise spin after each run, taking the cores from the dispatch measured next.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(
        onnxruntime_model(graph).SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    binding = session.io_binding()
    for name, x in zip(names, case.inputs, strict=True):
        binding.bind_cpu_input(name, np.ascontiguousarray(x))
    results = [np.empty(y.shape, np.float32) for y in case.expected]
    for name, y in zip(outputs, results, strict=True):
        binding.bind_output(name, "cpu", 0, np.float32, list(y.shape), y.ctypes.data)
    session.run_with_iobinding(binding)
    for name, got, want in zip(outputs, results, case.expected, strict=True):
        assert np.array_equal(got, want), f"{case.name}: onnxruntime's {name} differs from NumPy's"
    # onnxruntime writes through the raw pointers: the closure keeps the arrays alive.
    return lambda keep=(case.inputs, results): session.run_with_iobinding(binding)


def checked_bound(dml_: Dml, case: Case) -> Bound:
    """The case compiled and bound once on ``dml_``'s device, its outputs checked against NumPy's, bit for bit."""
    bound = Bound(dml_, case.desc(dml_.dml), case.inputs)
    bound.events().wait()  # Bound.buffers are the profiled queue's outputs
    for buffer, want in zip(bound.buffers, case.expected, strict=True):
        got = buffer.read(np.float32, want.shape)
        assert got.tobytes() == np.ascontiguousarray(want).tobytes(), f"{case.name}: dmlpy's output differs"
    return bound


def case_rows(runtimes: list[Dml], case: Case, quick: bool) -> list[dict[str, Any]]:
    """One case on every device: kernel and copy kernel taking turns per device, then every device's dispatch,
    NumPy and onnxruntime taking turns."""
    written = sum(y.size for y in case.expected)
    moved = 4 * (case.read_elements + written)
    walls: dict[str, Callable[[], object]] = {}
    events = []
    for i, dml_ in enumerate(runtimes):
        bound = checked_bound(dml_, case)
        _, copy_events = dml_.copy_kernel(written, 4)
        events.append(event_timings({"kernel": bound.events, "copy": copy_events}, quick))
        walls[f"{i}:dispatch"] = bound.wall
    walls["numpy"] = case.numpy_call
    ort = onnxruntime_call(case)
    if ort is not None:
        walls["onnxruntime"] = ort
    wall = measure_together(walls, budget_for(moved, quick))
    rows = []
    for i, (dml_, timing) in enumerate(zip(runtimes, events, strict=True)):
        kernel, copy, dispatch = timing["kernel"].seconds, timing["copy"].seconds, wall[f"{i}:dispatch"].seconds
        peers = {p: wall[p].seconds / dispatch if p in wall else None for p in ("numpy", "onnxruntime")}
        rows.append(
            {
                "case": case.name,
                "device": dml_.device.name,
                "output_elements": written,
                "bytes_moved": moved,
                "kernel_s": kernel,
                "gbps": moved / kernel / 1e9,
                "copy_s": copy,
                "copy_over_kernel": copy / kernel,
                "dispatch_s": dispatch,
                "numpy_s": wall["numpy"].seconds,
                "onnxruntime_s": wall["onnxruntime"].seconds if "onnxruntime" in wall else None,
                "numpy_over_dispatch": peers["numpy"],
                "onnxruntime_over_dispatch": peers["onnxruntime"],
            }
        )
    return rows


def print_row(row: dict[str, Any], label: str) -> None:
    ort = row["onnxruntime_over_dispatch"]
    mark = "" if row["copy_over_kernel"] >= TARGET else "  < target"
    print(
        f"{row['case']:22} {label:8} kernel {row['kernel_s'] * 1e3:8.2f} ms {row['gbps']:6.1f} GB/s  "
        f"copy {row['copy_s'] * 1e3:7.2f} ms  copy/kernel {row['copy_over_kernel']:5.2f}  "
        f"numpy/dispatch {row['numpy_over_dispatch']:5.2f}x  onnxruntime/dispatch "
        f"{'-' if ort is None else f'{ort:.2f}x'}{mark}",
        flush=True,
    )


def runtime_label(dml_: Dml) -> str:
    """A device's short name in the printed table: its OpenCL platform's."""
    platform = dml_.device.cl_device.platform.name
    return "PoCL" if "Portable" in platform else platform.split()[0].removesuffix("(R)")[:8]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="16M", help="elements of the big tensor (K and M: powers of two)")
    parser.add_argument("--devices", help="indices from `dmlpy devices`, comma-separated (default: the default one)")
    parser.add_argument("--quick", action="store_true", help="64K elements and few repeats: a smoke run")
    parser.add_argument("--json", type=Path, help="output file (default benchmarks/results/movement-<time>.json)")
    args = parser.parse_args(argv)
    n = parse_size("64K" if args.quick else args.size)
    shape = nchw_shape(n)
    if shape[1] != 16 or shape[2] % 2 or shape[3] % 2:
        parser.error(f"--size: {n} elements make {shape}: (1, 16, H, W) with H and W even is needed")
    indices: list[int | None] = [None] if args.devices is None else [int(i) for i in args.devices.split(",")]
    runtimes = [Dml(index) for index in indices]
    metas = [run_meta(dml_, n) for dml_ in runtimes]
    labels = [runtime_label(dml_) for dml_ in runtimes]
    rows = []
    for case in cases(shape):
        for row, label in zip(case_rows(runtimes, case, args.quick), labels, strict=True):
            rows.append(row)
            print_row(row, label)
    met = sum(row["copy_over_kernel"] >= TARGET for row in rows)
    print(f"\ncopy/kernel >= {TARGET} (the issue's target): {met} of {len(rows)} rows", flush=True)
    path = write_results(args.json, "movement", {"meta": metas, "shape": shape, "rows": rows}, indent=1)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
