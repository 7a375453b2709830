"""``dmlpy devices``: the OpenCL devices, the default, and what dmlpy supports on each."""

from __future__ import annotations

import argparse

from dmlpy.cli.common import EXIT_OK, say
from dmlpy.errors import UnsupportedError
from dmlpy.ops.element_wise_round import ElementWiseRoundOperatorDesc


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """devices takes no arguments."""


def run(args: argparse.Namespace) -> int:
    """List OpenCL devices, the default, and what dmlpy supports on each; a device whose compiler cannot build a
    kernel is marked so. Status 1 when none can (the error names the command that adds one), 2 when DMLPY_DEVICE
    names no usable device."""
    from dmlpy.runtime.device import HIGHEST_FEATURE_LEVEL
    from dmlpy.runtime.platforms import list_devices, preferred_device

    entries = list_devices()
    no_default: UnsupportedError | None = None
    try:
        default: int | None = preferred_device().index
    except UnsupportedError as error:  # raised after the list, so the devices it speaks of are shown above it
        default, no_default = None, error
    round_from = ElementWiseRoundOperatorDesc.SUPPORT.introduced
    for entry in entries:
        marker = "*" if entry.index == default else " "
        say(f"{marker} [{entry.index}] {entry.name} | {entry.kind} | {entry.runtime} | {entry.version}")
        if entry.compiler_error is not None:
            say(f"      compiler fails: {entry.compiler_error} (never the default; dmlpy cannot run here)")
            continue
        fp64 = "cl_khr_fp64" in entry.cl_device.extensions
        buffers = "every DML_TENSOR_DATA_TYPE but UNKNOWN" + ("" if fp64 else " and FLOAT64 (no cl_khr_fp64)")
        say(f"      feature level: up to {HIGHEST_FEATURE_LEVEL.c_name} (ELEMENT_WISE_ROUND from {round_from.c_name})")
        say("      ELEMENT_WISE_ROUND data types: FLOAT32, FLOAT16 (stored as half, computed in float)")
        say(f"      buffer data types (CheckFeatureSupport TENSOR_DATA_TYPE_SUPPORT): {buffers}")
    if no_default is not None:
        raise no_default
    say(
        "* = the default device (among those whose compiler works: the first GPU, else a PoCL CPU device, else "
        "any other); pick another with --device N or DMLPY_DEVICE=N"
    )
    return EXIT_OK
