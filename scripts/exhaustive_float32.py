"""Round every one of the 2^32 float32 bit patterns in every DML_ROUNDING_MODE through ``dml.round`` and compare
each result, bit for bit, with an independent float64 reference.

    .venv/bin/python scripts/exhaustive_float32.py            # run (or resume) the whole sweep
    .venv/bin/python scripts/exhaustive_float32.py --reset    # start over
    .venv/bin/python scripts/exhaustive_float32.py --chunks 4 # only the next 4 chunks (a quick sample)

The sweep walks the patterns in chunks (2^24 by default). After each chunk the state file (JSON: next chunk,
mismatch count, first mismatches, elapsed seconds) is rewritten atomically, so an interrupted run resumes where
it stopped. A progress bar goes to stderr; the summary (elapsed time, patterns compared, mismatches) to stdout.
Exit status 0 when the sweep is complete without mismatches, 1 on mismatches, 2 when chunks remain.

The reference never calls a round-to-integral function (no rint, trunc, round): it widens to float64, where a
float32 value, its floor and ``x - floor(x)`` are all exact, and decides from that fraction whether to step up
by one, then copies the input's sign onto the result (the sign of a zero result is the input's). Infinities
come back unchanged. NaN is checked against the input's own bits: a NaN result must keep the sign and payload,
with the quiet bit allowed to be set (a signalling NaN may be quieted), as docs/conformance.md states.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import dmlpy as dml

MODES = (
    dml.RoundingMode.HALVES_TO_NEAREST_EVEN,
    dml.RoundingMode.TOWARD_ZERO,
    dml.RoundingMode.TOWARD_INFINITY,
)
TOTAL_BITS = 32
DEFAULT_STATE = Path(__file__).resolve().parent.parent / "benchmarks" / "results" / "exhaustive_float32.state.json"
"""Beside the benchmark results, which git ignores."""
QUIET_BIT = np.uint32(0x0040_0000)


def reference_round(x: np.ndarray, mode: dml.RoundingMode) -> np.ndarray:
    """Round float32 ``x`` in float64 arithmetic without any round-to-integral function; float32 out."""
    with np.errstate(invalid="ignore"):  # NaN inputs (and signalling NaN casts) raise the invalid flag
        a = x.astype(np.float64)
        low = np.floor(a)
        frac = a - low  # exact: both are float64 values within 2^-24 relative of a float32
        if mode == dml.RoundingMode.HALVES_TO_NEAREST_EVEN:
            up = (frac > 0.5) | ((frac == 0.5) & (np.fmod(low, 2.0) != 0.0))
        elif mode == dml.RoundingMode.TOWARD_ZERO:
            up = (a < 0.0) & (frac > 0.0)
        else:  # TOWARD_INFINITY: nearest, halves away from zero
            up = (frac > 0.5) | ((frac == 0.5) & (a > 0.0))
        result = np.copysign(low + up, a)
        result = np.where(np.isfinite(a), result, a)
        return result.astype(np.float32)


def compare(bits: np.ndarray, got: np.ndarray, mode: dml.RoundingMode) -> tuple[int, list[dict[str, Any]]]:
    """Mismatch count and up to 5 examples for input patterns ``bits`` and device results ``got`` (float32)."""
    x = bits.view(np.float32)
    expected = reference_round(x, mode).view(np.uint32)
    got_bits = got.view(np.uint32)
    nan_in = np.isnan(x)
    wrong = (got_bits != expected) & ~nan_in
    wrong |= nan_in & ((got_bits | QUIET_BIT) != (bits | QUIET_BIT))
    count = int(np.count_nonzero(wrong))
    examples = [
        {"mode": mode.name, "input": f"0x{int(b):08X}", "got": f"0x{int(g):08X}", "expected": f"0x{int(e):08X}"}
        for b, g, e in zip(bits[wrong][:5], got_bits[wrong][:5], expected[wrong][:5], strict=True)
    ]
    return count, examples


def load_state(path: Path, chunk_bits: int) -> dict[str, Any]:
    if path.exists():
        state: dict[str, Any] = json.loads(path.read_text())
        if state.get("chunk_bits") != chunk_bits:
            sys.exit(f"{path} was written with --chunk-bits {state.get('chunk_bits')}; pass that or --reset")
        return state
    return {"chunk_bits": chunk_bits, "next_chunk": 0, "compared": 0, "mismatches": 0, "examples": [], "seconds": 0.0}


def save_state(path: Path, state: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(json.dumps(state, indent=1))
    os.replace(temporary, path)  # atomic: an interrupt never leaves a half-written state file


def progress(done: int, total: int, seconds: float, mismatches: int) -> None:
    width = 40
    filled = width * done // total
    rate = done / seconds if seconds > 0 else 0.0
    eta = (total - done) / rate if rate else float("nan")
    sys.stderr.write(
        f"\r[{'#' * filled}{'.' * (width - filled)}] {100 * done / total:5.1f}% chunk {done}/{total} "
        f"elapsed {seconds:7.0f}s eta {eta:7.0f}s mismatches {mismatches}"
    )
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunk-bits", type=int, default=24, help="log2 of the patterns per chunk (default 24)")
    parser.add_argument("--state", type=Path, default=DEFAULT_STATE, help="resume file (default: %(default)s)")
    parser.add_argument("--reset", action="store_true", help="ignore and overwrite an existing state file")
    parser.add_argument("--chunks", type=int, default=None, help="stop after this many chunks (sampling)")
    args = parser.parse_args(argv)
    if not 10 <= args.chunk_bits <= 28:
        parser.error("--chunk-bits must be between 10 and 28")

    if args.reset and args.state.exists():
        args.state.unlink()
    state = load_state(args.state, args.chunk_bits)
    chunk = 1 << args.chunk_bits
    total_chunks = 1 << (TOTAL_BITS - args.chunk_bits)
    device = dml.default_device()
    print(f"device: {device.name}; chunks of {chunk} patterns, {total_chunks} chunks x {len(MODES)} modes", flush=True)

    out = np.empty(chunk, np.float32)
    stop = total_chunks if args.chunks is None else min(total_chunks, state["next_chunk"] + args.chunks)
    started = time.perf_counter() - state["seconds"]
    progress(state["next_chunk"], total_chunks, state["seconds"], state["mismatches"])
    for index in range(state["next_chunk"], stop):
        bits = np.arange(index * chunk, (index + 1) * chunk, dtype=np.uint64).astype(np.uint32)
        x = bits.view(np.float32)
        for mode in MODES:
            dml.round(x, mode=mode, out=out, device=device)
            count, examples = compare(bits, out, mode)
            state["mismatches"] += count
            state["examples"] = (state["examples"] + examples)[:20]
        state["compared"] += chunk * len(MODES)
        state["next_chunk"] = index + 1
        state["seconds"] = time.perf_counter() - started
        save_state(args.state, state)
        progress(state["next_chunk"], total_chunks, state["seconds"], state["mismatches"])
    sys.stderr.write("\n")

    complete = state["next_chunk"] == total_chunks
    print(
        f"{'complete' if complete else 'partial'}: {state['compared']} results compared "
        f"({state['next_chunk']}/{total_chunks} chunks x {len(MODES)} modes) in {state['seconds']:.0f} s; "
        f"mismatches: {state['mismatches']}"
    )
    for example in state["examples"]:
        print(f"  mismatch: {example}")
    if not complete and state["compared"]:
        projected = state["seconds"] * total_chunks / state["next_chunk"]
        print(f"projected time for all 2^32 patterns: {projected:.0f} s")
    if state["mismatches"]:
        return 1
    return 0 if complete else 2


if __name__ == "__main__":
    sys.exit(main())
