"""Run opencl/recurrent.cl on Oclgrind's simulated device: RNN, LSTM (peepholes, clip, every optional input), GRU
with LinearBeforeReset FALSE (two phases a step) and TRUE, each FORWARD, BACKWARD and BIDIRECTIONAL (sequence lengths
shorter than the sequence, one of them 0, under BIDIRECTIONAL), FLOAT32 and FLOAT16, packed and strided (a gap after
every row, every tensor bound at a byte offset), through the object model (tests/helpers/structured_runs.py) with
each buffer exactly as large as its binding, compared with reference.py within cases.BOUND. Under the uninitialised
pass (OCLGRIND_UNINITIALIZED=1) the outputs are left unwritten; the memory pass fills them with sentinel bytes and
checks that none outside their elements changed.

Started by test_recurrent_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the kernels' defines, and
the mismatches. ``--short-input``: an LSTM with InputTensor's buffer one element shorter than dmlpy is told, which
Oclgrind must report as an invalid read in ``recurrent_step``.

    python oclgrind_recurrent_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-input]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyopencl as cl

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from dmlpy.runtime.buffer import Buffer
from tests.device.recurrent.cases import BOUND, Network, reference
from tests.helpers.object_model import compile_and_initialize
from tests.helpers.oclgrind_driver import VariantLog, main, sampled_share
from tests.helpers.oclgrind_sweep import without_zero_fill
from tests.helpers.structured_runs import run_structured

CELLS = ("RNN", "LSTM", "GRU", "GRU-LBR")
DIRECTIONS = ("FORWARD", "BACKWARD", "BIDIRECTIONAL")
TYPES = ("FLOAT32", "FLOAT16")
LAYOUTS = ("packed", "strided")
OFFSET = 16
"""A strided variant binds every tensor at this byte offset."""
EVERY_INPUT = frozenset({"bias_tensor", "hidden_init_tensor", "cell_mem_init_tensor", "peephole_tensor"})


def every_variant() -> list[str]:
    return [f"{c} {d} {t} {layout}" for c in CELLS for d in DIRECTIONS for t in TYPES for layout in LAYOUTS]


def sampled_variants() -> list[str]:
    """One of each cell: every direction, both types and both layouts among them."""
    return [
        "RNN BACKWARD FLOAT16 packed",
        "LSTM BIDIRECTIONAL FLOAT32 strided",
        "GRU BIDIRECTIONAL FLOAT16 strided",
        "GRU-LBR FORWARD FLOAT32 packed",
    ]


def network_of(label: str) -> Network:
    cell, direction, data_type, layout = label.split()
    network = Network(
        kind=cell.split("-")[0],
        seq_length=3,
        batch=2,
        input_size=3,
        hidden=4,
        direction=direction,
        optional=EVERY_INPUT,
        lengths=(3, 0) if direction == "BIDIRECTIONAL" else None,
        clip=0.5 if cell == "LSTM" else None,
        linear_before_reset=cell == "GRU-LBR",
        dtype=np.float16 if data_type == "FLOAT16" else np.float32,
    )
    if layout == "strided":
        sizes = network.sizes()
        return Network(**{**network.__dict__, "strided": frozenset(sizes)})
    return network


def step_kernels(device: Any, desc: Any) -> dict[str, str]:
    """The kernel ``desc``'s steps run and their -D defines (dmlpy's program cache makes this compile free)."""
    compiled = device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)
    kernels = {step.lowered.kernel for step in compiled.plan.steps}
    return {"kernel": "+".join(sorted({k.kernel_name for k in kernels})), "CELL": kernels.pop().defines[0][1]}


def run_variant(device: Any, label: str, log: VariantLog, fill_output: bool) -> dict[str, str]:
    log.begin(label)
    network = network_of(label)
    desc = network.desc()
    desc.validate_on(device.feature_level)
    inputs = network.inputs(desc)
    slots = [s for s in (*desc.input_fields(), *desc.output_fields()) if getattr(desc, s) is not None]
    offsets = dict.fromkeys(slots, OFFSET) if label.endswith("strided") else {}
    try:
        got = run_structured(device, desc, inputs, offsets=offsets, slack=0, fill_output=fill_output)
    except AssertionError as error:  # bytes outside the outputs changed
        log.mismatch(f"{label}: {error}")
        return step_kernels(device, desc)
    wanted = reference(network, inputs)
    for name in desc.OUTPUTS:
        error = float(np.abs(got[name].astype(np.float64) - wanted[name]).max())
        if not error <= BOUND[network.dtype]:
            log.mismatch(f"{label}: {name} off by {error}")
    return step_kernels(device, desc)


def short_input(device: Any) -> None:
    """The negative control: an LSTM reading an InputTensor buffer one element shorter than its binding claims (a
    dmlpy Buffer told the full size, so the binding checks pass and only Oclgrind can see the read). Bound here, not
    by oclgrind_sweep.dispatch_short, which binds no temporary resource."""
    network = network_of("LSTM FORWARD FLOAT32 packed")
    desc = network.desc()
    inputs = network.inputs(desc)
    compiled = compile_and_initialize(device, desc)
    bindings = []
    for slot in desc.input_fields():
        if getattr(desc, slot) is None:
            bindings.append(None)
            continue
        total = getattr(desc, slot).desc.total_tensor_size_in_bytes
        host = inputs[slot].reshape(-1)
        host = host[:-1].copy() if slot == "input_tensor" else host.copy()
        memory = cl.Buffer(device.context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
        bindings.append(dml.BufferBinding(Buffer(device, memory, total), 0, total))
    table = device.create_binding_table(compiled)
    table.bind_inputs(bindings)
    outputs = [getattr(desc, slot).desc.total_tensor_size_in_bytes for slot in desc.output_fields()]
    table.bind_outputs([dml.BufferBinding(device.create_buffer(size), 0, size) for size in outputs])
    size = compiled.get_binding_properties().temporary_resource_size
    table.bind_temporary_resource(dml.BufferBinding(device.create_buffer(size), 0, size))
    device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()


def fresh(device: Any) -> Any:
    """A device of its own (a new context) on ``device``'s Oclgrind device, its buffers made without the zero fill:
    the states' region is written by one step and read by the next, and Oclgrind 21.10's uninitialised plugin loses
    such writes to a filled buffer (``without_zero_fill``) and, in one context, to memory an earlier variant freed."""
    own = dml.create_device(cl_device=device.cl_device, launch_profile=device.launch_profile.name)
    without_zero_fill(own)
    return own


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any] | None:
    if args.short_input:
        short_input(device)
        return {"short_input": True}
    fill_output = os.environ.get("OCLGRIND_UNINITIALIZED") != "1"
    log = VariantLog()
    kernels = {
        label: run_variant(fresh(device) if not fill_output else device, label, log, fill_output)
        for label in (sampled_share(sampled_variants()) if args.sample else every_variant())
    }
    return {**log.summary(), "kernels": kernels, "launch_profile": device.launch_profile.name}


if __name__ == "__main__":
    sys.exit(
        main(
            run_all,
            flags=[
                ("--sample", "one variant of each cell, not every one"),
                ("--short-input", "the recurrent.cl negative control: InputTensor's buffer one element short"),
            ],
        )
    )
