"""What the Oclgrind variant scripts share (the oclgrind_*_variants.py files under tests/device): finding Oclgrind's
device, the negative control (a kernel with known defects, to prove the reports are seen), one layout case through
the object model with buffers exactly as large as their bindings, the tally of kernel specs and wrong results (or
the log of named variants and their mismatches), and the ``OCLGRIND_SUMMARY {json}`` line that every script
prints for tests/conftest.py's ``run_oclgrind_script``.

The scripts run in a subprocess whose OCL_ICD_VENDORS names Oclgrind's ICD (tests/conftest.py); each puts the
repository root on ``sys.path`` to import this module.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import pyopencl as cl

import dmlpy as dml

from .object_model import UnaryRun, run_unary

NEGATIVE_CONTROL = """
__kernel void broken(__global const float *input, __global float *output)
{
    float never_set;
    const size_t i = get_global_id(0);
    output[i + 1] = input[i + 1];          /* the last work-item reads and writes one past the end */
    if (i == 0 && never_set > 0.0f)        /* control flow on an uninitialised value */
        output[0] = 2.0f;
}
"""


SWEEP_SHARE = "DMLPY_SWEEP_SHARE"
"""The environment variable that gives a script's sample its share, ``k/n``: every n-th label from the k-th (the
default passes split a sample between them: tests/helpers/oclgrind_suite.py)."""


Item = TypeVar("Item")


def sampled_share(labels: list[Item]) -> list[Item]:
    """``labels`` (a script's sample, or the plans of a script that shares all of them), or the share of them
    ``SWEEP_SHARE`` names."""
    if SWEEP_SHARE not in os.environ:
        return labels
    k, n = (int(part) for part in os.environ[SWEEP_SHARE].split("/"))
    return labels[k::n]


def oclgrind_cl_device() -> Any:
    """Oclgrind's simulated device; exits with status 3 (and says why) when Oclgrind is not a platform."""
    platforms = [p for p in cl.get_platforms() if p.name == "Oclgrind"]
    if not platforms:
        print("no Oclgrind platform; set OCL_ICD_VENDORS to a folder with oclgrind.icd", file=sys.stderr)
        raise SystemExit(3)
    return platforms[0].get_devices()[0]


def print_summary(summary: dict[str, Any]) -> None:
    print("OCLGRIND_SUMMARY " + json.dumps(summary), flush=True)


def negative_control(device: Any) -> None:
    """A kernel with an out-of-bounds read and write and an uninitialised value, to prove the harness sees them."""
    program = cl.Program(device.context, NEGATIVE_CONTROL).build()
    flags = cl.mem_flags
    source = cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=np.ones(4, np.float32))
    target = cl.Buffer(device.context, flags.READ_WRITE, 16)
    program.broken(device.queue, (4,), None, source, target)
    device.queue.finish()
    print_summary({"negative_control": True})


def run_layout_case(
    device: Any, desc: Any, dtype: np.dtype[Any], values: Callable[[int], npt.NDArray[Any]], case: dict[str, Any]
) -> UnaryRun:
    """``desc`` (built from ``case``: helpers.layouts' keyword form) once through the object model, each buffer
    exactly as large as its binding needs (offset + TotalTensorSizeInBytes) so that any access past a tensor
    is an access past its buffer, the output buffer left uninitialised."""
    return run_unary(
        device,
        desc,
        dtype,
        values,
        input_offset=case.get("input_offset", 0),
        output_offset=case.get("output_offset", 0),
        in_place=case.get("in_place", False),
        slack=0,
        fill_output=False,
    )


def _described(spec: Any) -> str:
    """A kernel spec's -D defines, then the tensor types its prelude defines (the element-wise template's)."""
    types = re.findall(r"^#define (TENSOR\d+_T) (\w+)$", spec.prelude, re.MULTILINE)
    return " ".join([*(f"{k}={v}" for k, v in spec.defines), *(f"{k}={v}" for k, v in types)])


@dataclass
class Tally:
    """Dispatches run, the distinct kernel specs they compiled (in all, and per plan where the script names its
    plans: a data type and what runs on it), and the wrong results."""

    specs: set[Any] = field(default_factory=set)
    plan_specs: dict[str, set[Any]] = field(default_factory=dict)
    runs: int = 0
    wrong: int = 0
    failures: list[str] = field(default_factory=list)

    def add(self, spec: Any, wrong: int, label: str, plan: str | None = None) -> None:
        self.specs.add(spec)
        if plan is not None:
            self.plan_specs.setdefault(plan, set()).add(spec)
        self.runs += 1
        self.wrong += wrong
        if wrong:
            self.failures.append(f"{label}: {wrong} wrong")

    def summary(self, wrong_key: str, **extra: Any) -> dict[str, Any]:
        return {
            "variants": self.runs,
            "kernel_specs": len(self.specs),
            "specs": sorted(_described(spec) for spec in self.specs),
            "plan_specs": {plan: sorted(_described(spec) for spec in specs) for plan, specs in self.plan_specs.items()},
            wrong_key: self.wrong,
            **extra,
            "failures": self.failures[:10],
        }


@dataclass
class VariantLog:
    """Named variants, for the scripts whose variants are named cases: the names run, in order, and a line per
    mismatch; ``summary()`` is what the script's run function returns."""

    ran: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)

    def begin(self, name: str) -> None:
        self.ran.append(name)

    def mismatch(self, text: str) -> None:
        self.mismatches.append(text)

    def summary(self) -> dict[str, Any]:
        return {"variants": self.ran, "mismatches": self.mismatches}


def main(
    run_variants: Callable[[Any, argparse.Namespace], dict[str, Any] | None],
    *,
    extensions: bool = False,
    flags: Sequence[tuple[str, str]] = (),
    options: Sequence[tuple[str, str]] = (),
) -> int:
    """Parse ``--negative-control``, ``--launch-profile``, ``--half-bits``, ``flags`` (name, help: on or off) and
    ``options`` (name, help: a value), create a
    dmlpy device on Oclgrind under that launch profile, then run the negative control or
    ``run_variants(device, args)`` and print the summary it returns (if any)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--negative-control", action="store_true", help="run a kernel with known defects")
    parser.add_argument("--launch-profile", choices=("auto", "cpu", "gpu"), default="auto", help="the kernels' shape")
    parser.add_argument(
        "--half-bits",
        action="store_true",
        help="build with -DDML_HALF_BITS=1: the integer-bit half conversions (opencl/half_bits.h) dmlpy uses on PoCL",
    )
    for name, text in flags:
        parser.add_argument(name, action="store_true", help=text)
    for name, text in options:
        parser.add_argument(name, help=text)
    args = parser.parse_args()
    device = dml.create_device(
        cl_device=oclgrind_cl_device(), extensions=extensions, launch_profile=args.launch_profile
    )
    if args.half_bits:
        device.programs.device_options = (*device.programs.device_options, "-DDML_HALF_BITS=1")
    if args.negative_control:
        negative_control(device)
        return 0
    summary = run_variants(device, args)
    if summary is not None:
        print_summary(summary)
    return 0
