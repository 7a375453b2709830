"""The sweep that the Oclgrind variant scripts of named cases share (oclgrind_*_variants.py under tests/device/movement,
reduction, generators, indexing and normalization): each script declares its labels (every one, and the default
run's sample), what a label runs (a ``Variant``: its descriptor, inputs, byte offsets and the check of its
outputs), what the summary records of the kernels a variant compiled, and its own negative control; this module
runs them.

A variant runs once through the object model with each buffer exactly as large as its binding (no slack: an access
past a tensor is an access past its buffer). Under the uninitialised pass (``OCLGRIND_UNINITIALIZED=1``) the output
buffers are left unwritten, so a read of an output or a store of a value never loaded is reported; the memory pass
fills them with sentinel bytes and checks that none outside the outputs' elements changed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pyopencl as cl

import dmlpy as dml
from dmlpy.runtime.buffer import Buffer

from .object_model import NUMPY_TYPE, compile_and_initialize, dispatch
from .oclgrind_driver import VariantLog, main, sampled_share
from .structured_runs import run_structured

Arrays = dict[str, npt.NDArray[Any]]


@dataclass(frozen=True)
class Variant:
    """What one label runs."""

    desc: Any
    inputs: Arrays
    problem: Callable[[Arrays], str | None]
    """What is wrong with the outputs (by slot), or None when they are right."""
    offsets: dict[str, int] = field(default_factory=dict)
    """Byte offsets of the tensors bound away from their buffer's start."""
    filled: bool = False
    """The outputs are filled under the uninitialised pass too (top_k.cl reads back its own stores, which Oclgrind
    21.10's uninitialised plugin does not record: oclgrind_top_k_cumulative_variants.py)."""


@dataclass(frozen=True)
class Sweep:
    """A script's variants: ``every`` label and the ``sampled`` share, in the order they run, ``variant_of`` a
    label, and ``record`` (device, descriptor), what the summary holds under ``kernels`` for each label (none
    where None)."""

    every: Callable[[], list[str]]
    sampled: Callable[[], list[str]]
    variant_of: Callable[[str], Variant]
    record: Callable[[Any, Any], Any] | None = None


@dataclass(frozen=True)
class NegativeControl:
    """A script's own negative control: ``flag`` runs ``run(device)`` instead of the sweep."""

    flag: str
    help: str
    run: Callable[[Any], None]


def kernel_names(device: Any, desc: Any) -> list[str]:
    """The kernel each step of ``desc``'s plan runs, in order (dmlpy's program cache makes this compile free)."""
    compiled = device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)
    return [step.lowered.kernel.kernel_name for step in compiled.plan.steps]


def kernel_defines(device: Any, desc: Any) -> dict[str, str]:
    """The one kernel ``desc``'s plan runs and its -D defines (dmlpy's program cache makes this compile free)."""
    compiled = device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)
    (step,) = compiled.plan.steps
    return {"kernel": step.lowered.kernel.kernel_name, **dict(step.lowered.kernel.defines)}


def offsets_at(desc: Any, offset: int, own: dict[str, int] | None = None) -> dict[str, int]:
    """Each tensor slot ``desc`` binds at ``offset`` bytes, but those ``own`` places itself (a strided variant's
    offsets)."""
    slots = [slot for slot in (*desc.input_fields(), *desc.output_fields()) if getattr(desc, slot) is not None]
    return {slot: (own or {}).get(slot, offset) for slot in slots}


def bit_problem(got: Arrays, expected: Arrays) -> str | None:
    """The slots of ``expected`` whose elements differ from ``got``'s bit for bit, and where (None: none)."""
    problems = []
    for slot, want in expected.items():
        bits = f"u{want.dtype.itemsize}"
        flat = np.ascontiguousarray(want).view(bits).reshape(-1)
        wrong = np.flatnonzero(got[slot].view(bits).reshape(-1) != flat)
        if wrong.size:
            problems.append(f"{slot} wrong at elements {wrong[:8].tolist()} ({wrong.size} in all)")
    return "; ".join(problems) or None


def run_variant(device: Any, label: str, variant: Variant, log: VariantLog, unwritten: bool) -> None:
    log.begin(label)
    variant.desc.validate_on(device.feature_level)
    fill_output = variant.filled or not unwritten
    try:
        got = run_structured(
            device, variant.desc, variant.inputs, offsets=variant.offsets, slack=0, fill_output=fill_output
        )
    except AssertionError as error:  # bytes outside the outputs changed
        log.mismatch(f"{label}: {error}")
        return
    problem = variant.problem(got)
    if problem is not None:
        log.mismatch(f"{label}: {problem}")


def run_sweep(device: Any, sweep: Sweep, sample: bool) -> dict[str, Any]:
    """Every label (or the sample), the summary the tests check: the labels run, the mismatches, the launch profile
    and (where the sweep records them) the kernels of each label."""
    unwritten = os.environ.get("OCLGRIND_UNINITIALIZED") == "1"
    log = VariantLog()
    kernels = {}
    for label in sampled_share(sweep.sampled()) if sample else sweep.every():
        variant = sweep.variant_of(label)
        run_variant(device, label, variant, log, unwritten)
        if sweep.record is not None:
            kernels[label] = sweep.record(device, variant.desc)
    recorded = {} if sweep.record is None else {"kernels": kernels}
    return {**log.summary(), **recorded, "launch_profile": device.launch_profile.name}


def without_zero_fill(device: Any, *, keep: bool = False) -> None:
    """``device``'s buffers made without create_buffer's zero fill, for the uninitialised pass. Oclgrind 21.10's
    uninitialised plugin loses what a kernel writes to a buffer clEnqueueFillBuffer filled: the next kernel reads it
    as uninitialised (a plain pyopencl write kernel then read kernel shows it), so a plan's temporaries, written by
    one step and read by the next, would be reported though every element is written. Unfilled, an element no step
    writes is still reported.

    ``keep``: every buffer also kept alive to the end of the sweep. The same plugin gives a new buffer made at a
    freed one's address the freed one's stale state (a variant after another in one context read its host-written
    inputs or its temporaries as uninitialised, though each alone is clean); the sweeps' buffers are small."""
    flags = cl.mem_flags.READ_WRITE
    kept: list[Any] = []

    def unfilled(size: int) -> Any:
        buffer = device.wrap_buffer(cl.Buffer(device.context, flags, size))
        if keep:
            kept.append(buffer)
        return buffer

    device.create_buffer = unfilled


def dispatch_short(device: Any, desc: Any, inputs: Arrays, short: str) -> None:
    """Run ``desc`` once with the buffer of slot ``short`` one element shorter than its binding claims (a dmlpy
    Buffer told the full size, so the binding checks pass and only Oclgrind can see the access past it); the other
    inputs hold ``inputs``, the other outputs are left unwritten."""
    compiled = compile_and_initialize(device, desc)
    flags = cl.mem_flags

    def binding(slot: str, host: npt.NDArray[Any] | None) -> Any:
        tensor = getattr(desc, slot)
        if tensor is None:
            return None
        total = tensor.desc.total_tensor_size_in_bytes
        if host is not None:
            data = np.ascontiguousarray(host).reshape(-1)
            data = data[:-1].copy() if slot == short else data.copy()
            memory = cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=data)
        elif slot == short:
            memory = cl.Buffer(device.context, flags.READ_WRITE, total - NUMPY_TYPE[tensor.desc.data_type].itemsize)
        else:
            return dml.BufferBinding(device.create_buffer(total), 0, total)
        return dml.BufferBinding(Buffer(device, memory, total), 0, total)

    ins = [binding(slot, inputs.get(slot)) for slot in desc.input_fields()]
    dispatch(device, compiled, ins, [binding(slot, None) for slot in desc.output_fields()])


def sweep_main(sweep: Sweep, sample_help: str, control: NegativeControl | None = None) -> int:
    """The script's entry point: the driver's options (tests/helpers/oclgrind_driver.py's ``main``), ``--sample``
    (``sample_help`` says which share) and the control's flag; prints the summary."""
    flags = [("--sample", sample_help), *([(control.flag, control.help)] if control else [])]
    key = control.flag.removeprefix("--").replace("-", "_") if control else ""

    def run_all(device: Any, args: Any) -> dict[str, Any]:
        if control is not None and getattr(args, key):
            control.run(device)
            return {key: True}
        return run_sweep(device, sweep, args.sample)

    return main(run_all, flags=flags)
