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
  line.
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

import numpy as np

import dmlpy as dml

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
