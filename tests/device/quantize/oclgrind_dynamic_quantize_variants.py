"""Run DYNAMIC_QUANTIZE_LINEAR's plan (reduce.cl's MIN and MAX, dynamic_quantize.cl, the element-wise template's
QuantizeLinear) on Oclgrind's simulated device: every input type (FLOAT32, FLOAT16) and output type (UINT8, INT8) of
its table, values of both signs and of one sign only, packed and strided (rows padded, every tensor bound at a byte
offset), through the object model (tests/helpers/structured_runs.py) with each buffer exactly as large as its
binding, every output compared bit for bit with dynamic_quantize_cases.py's reference. Under the uninitialised pass
(OCLGRIND_UNINITIALIZED=1) the output buffers are left unwritten, so a read of the scale or zero point before
dynamic_quantize.cl writes it is reported; the memory pass fills them with sentinel bytes and checks that none
outside their elements changed.

Started by test_dynamic_quantize_linear_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind
(tests/conftest.py's ``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the
kernels each ran, and the mismatches. ``--short-scale``: OutputScaleTensor's buffer one element (4 bytes) shorter
than dmlpy is told, which Oclgrind must report as an invalid write in ``quantization_parameters``.

    python oclgrind_dynamic_quantize_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control]
        [--short-scale]
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
from tests.device.quantize.dynamic_quantize_cases import T, desc_of, reference, values
from tests.device.recurrent.oclgrind_recurrent_variants import fresh
from tests.helpers.object_model import compile_and_initialize
from tests.helpers.oclgrind_driver import VariantLog, main, sampled_share
from tests.helpers.structured_runs import run_structured

SIGNS = {"both": 0.0, "positive": 20.0, "negative": -20.0}
OFFSET = 16
"""A strided variant binds every tensor at this byte offset (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT)."""


def every_variant() -> list[str]:
    return [
        f"{i} {o} {sign} {layout}"
        for i in ("FLOAT32", "FLOAT16")
        for o in ("UINT8", "INT8")
        for sign in SIGNS
        for layout in ("packed", "strided")
    ]


def sampled_variants() -> list[str]:
    """Both input types, both output types, both layouts, a one-sided range."""
    return ["FLOAT32 UINT8 both strided", "FLOAT16 INT8 negative packed"]


def kernels_of(device: Any, desc: Any) -> list[str]:
    """The kernels ``desc``'s plan runs, in order (dmlpy's program cache makes this compile free)."""
    compiled = device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)
    return [step.lowered.kernel.kernel_name for step in compiled.plan.steps]


def run_variant(device: Any, label: str, log: VariantLog, fill_output: bool) -> list[str]:
    log.begin(label)
    input_type, output_type, sign, layout = label.split()
    strided = layout == "strided"
    x = values(T[input_type], every_variant().index(label), SIGNS[sign])
    desc = desc_of(T[input_type], T[output_type], x.shape, strided)
    desc.validate_on(device.feature_level)
    slots = (*desc.input_fields(), *desc.output_fields())
    offsets = dict.fromkeys(slots, OFFSET) if strided else {}
    try:
        got = run_structured(device, desc, {"input_tensor": x}, offsets=offsets, slack=0, fill_output=fill_output)
    except AssertionError as error:  # bytes outside an output changed
        log.mismatch(f"{label}: {error}")
        return kernels_of(device, desc)
    y, scale, zero_point = reference(x, T[output_type])
    for name, want in (("output_tensor", y), ("output_scale_tensor", scale), ("output_zero_point_tensor", zero_point)):
        if not np.array_equal(got[name].reshape(np.shape(want)), want):
            log.mismatch(f"{label}: {name} differs from the reference")
    return kernels_of(device, desc)


def short_scale(device: Any) -> None:
    """The negative control: OutputScaleTensor's buffer one element shorter than its binding claims (a dmlpy Buffer
    told the full size, so the binding checks pass and only Oclgrind can see the write)."""
    x = values(T.FLOAT32, 0)
    desc = desc_of(T.FLOAT32, T.UINT8, x.shape, False)
    compiled = compile_and_initialize(device, desc)
    source = device.create_buffer(x.nbytes)
    source.write(x.reshape(-1).view(np.uint8))
    outputs = []
    for slot in desc.output_fields():
        total = getattr(desc, slot).desc.total_tensor_size_in_bytes
        if slot == "output_scale_tensor":
            memory = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, 16)  # the smallest buffer; bound as 16 + 4
            outputs.append(dml.BufferBinding(Buffer(device, memory, 20), 16, total))
        else:
            outputs.append(dml.BufferBinding(device.create_buffer(total), 0, total))
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(source, 0, x.nbytes)])
    table.bind_outputs(outputs)
    size = compiled.get_binding_properties().temporary_resource_size
    table.bind_temporary_resource(dml.BufferBinding(device.create_buffer(size), 0, size))
    device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any] | None:
    if args.short_scale:
        short_scale(device)
        return {"short_scale": True}
    fill_output = os.environ.get("OCLGRIND_UNINITIALIZED") != "1"
    log = VariantLog()
    # Under the uninitialised pass each variant gets a device of its own, buffers unfilled (``fresh``): the
    # extremes' regions are written by one step and read by the next, which Oclgrind 21.10 loses otherwise.
    kernels = {
        label: run_variant(device if fill_output else fresh(device), label, log, fill_output)
        for label in (sampled_share(sampled_variants()) if args.sample else every_variant())
    }
    return {**log.summary(), "kernels": kernels, "launch_profile": device.launch_profile.name}


if __name__ == "__main__":
    sys.exit(
        main(
            run_all,
            flags=[
                ("--sample", "two variants, not every one"),
                ("--short-scale", "the negative control: OutputScaleTensor's buffer one element short"),
            ],
        )
    )
