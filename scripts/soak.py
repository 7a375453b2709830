"""Soak: threads, interrupts, forked and spawned children and CLI signals together, for a few minutes.

Not a test (it takes minutes and its load is the point); it prints what it did and exits non-zero on the first
wrong value, corrupted sentinel, hang or unexpected exception. Run from the repository root::

    .venv/bin/python scripts/soak.py --seconds 180

What runs at once:
- worker threads: random dml.round / quantize_linear / dequantize_linear calls (random shapes, views, dtypes,
  modes, out=) on one shared device, each result compared bit for bit with NumPy;
- the main thread: large dml.round calls interrupted by SIGALRM at random moments (a KeyboardInterrupt), each
  followed at once by a fresh sentinel array of the same size that must stay intact;
- children: a forked child must get dmlpy's error about fork (never hang), a spawned child must round right;
- the CLI: `dmlpy round` on a .npy file, sent SIGTERM, SIGHUP or SIGINT at a random moment once it is writing;
  afterwards no temporary file may remain, OUT.npy is either absent or complete and right, and stderr is one
  line;
- graphs: a Round -> QuantizeLinear -> DequantizeLinear graph of random shape compiled and dispatched through the
  object model, fused and one node at a time, compared with NumPy, the bytes after the output a sentinel;
- ONNX: a QuantizeLinear -> DequantizeLinear model run by dmlpy.onnx on inputs of random shapes (its per-shape
  cache evicting), compared with onnx.reference;
- Dask: quantize_linear / dequantize_linear of a chunked Dask array with a scalar scale and a per-axis zero
  point (and the mirror case), compared with NumPy.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import dask.array as da
import numpy as np
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import dmlpy as dml
import dmlpy.onnx

MODES = {"half_to_even": np.rint, "toward_zero": np.trunc}
COUNTS: Counter[str] = Counter()
FAILURES: list[str] = []
LOCK = threading.Lock()


def fail(message: str) -> None:
    with LOCK:
        FAILURES.append(message)


def count(name: str, n: int = 1) -> None:
    with LOCK:
        COUNTS[name] += n


def worker(seed: int, deadline: float) -> None:
    rng = np.random.default_rng(seed)
    while time.monotonic() < deadline and not FAILURES:
        try:
            shape = tuple(int(n) for n in rng.integers(1, 40, rng.integers(1, 4)))
            x = (rng.standard_normal(shape) * 100).astype(rng.choice([np.float32, np.float16]))
            view = x.T if rng.random() < 0.3 else (x[..., ::-1] if rng.random() < 0.3 else x)
            kind = rng.integers(0, 3)
            if kind == 0:
                mode = str(rng.choice(list(MODES)))
                got = dml.round(view, mode=mode)
                expected = MODES[mode](view)
            elif kind == 1:
                got = dml.quantize_linear(view.astype(np.float32), np.float32(0.5), np.int8(3))
                expected = np.clip(np.rint(view.astype(np.float32) / np.float32(0.5)) + 3, -128, 127).astype(np.int8)
            else:
                q = rng.integers(0, 256, shape).astype(np.uint8)
                got = dml.dequantize_linear(q, np.float32(0.25), np.uint8(128))
                expected = ((q.astype(np.int32) - 128) * np.float32(0.25)).astype(np.float32)
            if not np.array_equal(got, expected, equal_nan=True):
                fail(f"thread {seed}: wrong values for call kind {kind}, shape {shape}")
            count("thread calls")
        except Exception as error:  # a soak reports every surprise
            fail(f"thread {seed}: {type(error).__name__}: {error}")


def quantized(x: np.ndarray, scale: Any, zero: Any) -> np.ndarray:
    """QuantizeLinear to int8 in NumPy (round halves to even, saturate)."""
    return np.clip(np.rint(x.astype(np.float32) / np.float32(scale)) + zero, -128, 127).astype(np.int8)


def graphs(seed: int, deadline: float) -> None:
    """Round -> QuantizeLinear -> DequantizeLinear through compile_graph and a dispatch, fused and not."""
    rng = np.random.default_rng(seed)
    device = dml.default_device()
    while time.monotonic() < deadline and not FAILURES:
        try:
            shape = tuple(int(n) for n in rng.integers(1, 30, rng.integers(1, 4)))
            x = (rng.standard_normal(shape) * 80).astype(np.float32)
            g = dml.Graph(device)
            value = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=shape))
            q = dml.graph.quantize_linear(dml.graph.round(value), 0.5, 3, dtype="INT8")
            out = dml.graph.dequantize_linear(q, 0.5, 3, dtype="FLOAT32")
            expected = (quantized(np.rint(x), 0.5, 3).astype(np.float32) - 3) * np.float32(0.5)
            for fuse in (True, False):
                compiled = device.compile_graph(g.desc_for([out]), fuse=fuse)
                initializer = device.create_operator_initializer([compiled])
                recorder = device.create_command_recorder()
                recorder.record_dispatch(device.queue, initializer, device.create_binding_table(initializer)).wait()
                table = device.create_binding_table(compiled)
                table.bind_inputs([dml.BufferBinding(device.upload(x))])
                output = device.create_buffer(x.nbytes + 64)
                output.write(np.full(x.nbytes + 64, 0xA5, np.uint8))
                table.bind_outputs([dml.BufferBinding(output, 0, x.nbytes)])
                temporary = compiled.get_binding_properties().temporary_resource_size
                if temporary:
                    table.bind_temporary_resource(dml.BufferBinding(device.create_buffer(temporary)))
                recorder.record_dispatch(device.queue, compiled, table).wait()
                if not np.array_equal(output.read(np.float32, x.size).reshape(shape), expected):
                    fail(f"graph {seed}: wrong values, fuse={fuse}, shape {shape}")
                if (output.read(np.uint8, 64, x.nbytes) != 0xA5).any():
                    fail(f"graph {seed}: a write past the output binding, fuse={fuse}, shape {shape}")
                count("graph dispatches")
        except Exception as error:  # a soak reports every surprise
            fail(f"graph {seed}: {type(error).__name__}: {error}")


def onnx_models(seed: int, deadline: float) -> None:
    """QuantizeLinear -> DequantizeLinear, one prepared model, inputs of many shapes."""
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"]),
    ]
    initializers = [
        helper.make_tensor("s", TensorProto.FLOAT, [], [0.25]),
        helper.make_tensor("z", TensorProto.INT8, [], [-3]),
    ]
    graph = helper.make_graph(
        nodes,
        "qdq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["a", "b", "c"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b", "c"])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    reference = ReferenceEvaluator(model)
    rep = dmlpy.onnx.prepare(model)
    rng = np.random.default_rng(seed)
    while time.monotonic() < deadline and not FAILURES:
        try:
            shape = tuple(int(n) for n in rng.integers(1, 40, 3))
            x = (rng.standard_normal(shape) * 40).astype(np.float32)
            (got,) = rep.run([x])
            (expected,) = reference.run(None, {"x": x})
            if got.tobytes() != expected.tobytes():
                fail(f"onnx {seed}: wrong values for shape {shape}")
            count("ONNX runs")
        except Exception as error:  # a soak reports every surprise
            fail(f"onnx {seed}: {type(error).__name__}: {error}")


def dask_arrays(seed: int, deadline: float) -> None:
    """Per-axis quantization of chunked Dask arrays, one parameter a scalar and the other per axis."""
    rng = np.random.default_rng(seed)
    while time.monotonic() < deadline and not FAILURES:
        try:
            shape = tuple(int(n) for n in rng.integers(2, 12, 3))
            axis = int(rng.integers(0, 3))
            x = (rng.standard_normal(shape) * 30).astype(np.float32)
            chunks = tuple(int(n) for n in rng.integers(1, 6, 3))
            per_axis_zero = rng.integers(-20, 20, shape[axis]).astype(np.int8)
            scale = np.float32(rng.choice([0.5, 0.25, 2.0]))
            along = [-1 if d == axis else 1 for d in range(3)]
            if rng.random() < 0.5:
                zero: Any = per_axis_zero
                scales: Any = scale
                expected = quantized(x, scale, per_axis_zero.reshape(along).astype(np.float32))
            else:
                zero, scales = np.int8(per_axis_zero[0]), np.full(shape[axis], scale, np.float32)
                expected = quantized(x, scale, np.float32(per_axis_zero[0]))
            lazy = dml.quantize_linear(da.from_array(x, chunks=chunks), scales, zero, axis=axis)
            got = lazy.compute(scheduler="threads")
            if not np.array_equal(got, expected):
                fail(f"dask {seed}: wrong quantize_linear for shape {shape}, chunks {chunks}, axis {axis}")
            back = dml.dequantize_linear(da.from_array(expected, chunks=chunks), scales, zero, axis=axis)
            zeros = zero.reshape(along) if np.ndim(zero) else zero
            wanted = (expected.astype(np.float32) - np.float32(0) - zeros) * scale
            if not np.array_equal(back.compute(scheduler="threads"), wanted.astype(np.float32)):
                fail(f"dask {seed}: wrong dequantize_linear for shape {shape}, chunks {chunks}, axis {axis}")
            count("Dask quantize + dequantize pairs")
        except Exception as error:  # a soak reports every surprise
            fail(f"dask {seed}: {type(error).__name__}: {error}")


def interrupts(deadline: float, elements: int) -> None:
    """Main thread: big calls cut short by SIGALRM at random moments."""

    def alarm(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, alarm)
    values = np.linspace(-1000, 1000, elements, dtype=np.float32)
    try:
        while time.monotonic() < deadline and not FAILURES:
            signal.setitimer(signal.ITIMER_REAL, random.uniform(0.0002, 0.02))
            try:
                result = dml.round(values)
                signal.setitimer(signal.ITIMER_REAL, 0)
                if not np.array_equal(result, np.rint(values)):
                    fail("interrupt loop: wrong values from an uninterrupted call")
                count("interrupt loop: calls completed")
            except KeyboardInterrupt:
                signal.setitimer(signal.ITIMER_REAL, 0)
                fresh = np.full(elements, -7.25, np.float32)
                dml.default_device().queue.finish()
                if not (fresh == np.float32(-7.25)).all():
                    fail("interrupt loop: a kernel wrote into memory freed by an interrupted call")
                count("interrupt loop: calls interrupted")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _spawned_round(values: list[float]) -> list[float]:
    return [float(v) for v in dml.round(np.array(values, np.float32))]


def children(deadline: float) -> None:
    spawn = multiprocessing.get_context("spawn")
    while time.monotonic() < deadline and not FAILURES:
        pid = os.fork()
        if pid == 0:  # the child: dmlpy must refuse, not hang
            code = 3
            try:
                dml.round(np.array([0.5], np.float32))
            except dml.DmlError as error:
                code = 0 if "fork" in str(error) else 4
            except BaseException:
                code = 5
            os._exit(code)
        waited = time.monotonic()
        while (result := os.waitpid(pid, os.WNOHANG)) == (0, 0):
            if time.monotonic() - waited > 30:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                fail("a forked child hung")
                return
            time.sleep(0.05)
        if os.waitstatus_to_exitcode(result[1]) != 0:
            fail(f"a forked child exited {os.waitstatus_to_exitcode(result[1])} (0: refused with the fork message)")
        count("forked children refused cleanly")
        with spawn.Pool(1) as pool:
            if pool.apply(_spawned_round, ([0.5, 1.5, 2.5],)) != [0.0, 2.0, 2.0]:
                fail("a spawned child rounded wrong")
        count("spawned children right")


def cli(deadline: float, folder: Path) -> None:
    source = folder / "in.npy"
    values = np.linspace(-500, 500, 8 * 2**20, dtype=np.float32)
    np.save(source, values)
    expected = np.rint(values)
    while time.monotonic() < deadline and not FAILURES:
        target = folder / "out.npy"
        target.unlink(missing_ok=True)
        command = [
            sys.executable,
            "-m",
            "dmlpy",
            "round",
            str(source),
            str(target),
            "--quiet",
            "--chunk-bytes",
            "65536",
        ]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        started = time.monotonic()  # signal it mid-write: once its temporary exists (Python's own start-up is not ours)
        while process.poll() is None and not any(p.name.startswith(".out.npy") for p in folder.iterdir()):
            if time.monotonic() - started > 30:
                break
            time.sleep(0.01)
        time.sleep(random.uniform(0.0, 0.5))
        which = random.choice([signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
        process.send_signal(which)
        try:
            _, stderr = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            fail(f"dmlpy round did not stop after {which.name}")
            return
        leftovers = [p.name for p in folder.iterdir() if p.name.startswith(".out.npy")]
        if leftovers:
            fail(f"dmlpy round left {leftovers} after {which.name}")
        if target.exists() and not np.array_equal(np.load(target), expected):
            fail(f"dmlpy round left a wrong out.npy after {which.name}")
        if process.returncode < 0 and target.exists():
            # The signal came after the work was done, while Python shut down with default signal handlers.
            count(f"CLI runs complete, {which.name} during interpreter exit")
            continue
        lines = stderr.decode().strip().splitlines()
        ours = [line for line in lines if line.startswith("dmlpy round: ")]
        if process.returncode != 0 and len(ours) != 1:
            fail(f"dmlpy round after {which.name}: exit {process.returncode}, stderr {stderr.decode()[-300:]!r}")
        if len(lines) > len(ours):  # the OpenCL compiler's own output, when a signal cut a kernel build short
            count("CLI runs where the OpenCL driver also wrote to stderr")
        count(f"CLI runs stopped by {which.name}" if process.returncode else "CLI runs finished before the signal")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=180)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--elements", type=int, default=8 * 2**20, help="size of the interrupted calls")
    args = parser.parse_args()
    started = time.monotonic()
    deadline = started + args.seconds
    dml.round(np.zeros(1, np.float32))  # the parent uses OpenCL before forking, as the defect needed
    with tempfile.TemporaryDirectory(prefix="dmlpy-soak-") as scratch:
        side = [threading.Thread(target=worker, args=(seed, deadline)) for seed in range(args.threads)]
        side += [threading.Thread(target=cli, args=(deadline, Path(scratch)))]
        side += [
            threading.Thread(target=loop, args=(seed, deadline)) for seed, loop in enumerate((graphs, onnx_models))
        ]
        side += [threading.Thread(target=dask_arrays, args=(seed, deadline)) for seed in range(2)]
        for thread in side:
            thread.start()
        children(started + min(args.seconds, 30))  # fork from the main thread, before the interrupt loop
        interrupts(deadline, args.elements)
        for thread in side:
            thread.join()  # each loop ends by the deadline; a CLI run is bounded by its own timeouts
    for name, value in sorted(COUNTS.items()):
        print(f"{name}: {value}")
    print(f"{len(FAILURES)} failures in {time.monotonic() - started:.0f} s")
    for failure in FAILURES[:20]:
        print(f"FAILURE: {failure}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
