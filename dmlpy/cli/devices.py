"""``dmlpy devices``: the OpenCL devices, the default, and what dmlpy supports on each."""

from __future__ import annotations

import argparse

from dmlpy.cli.common import EXIT_OK, CliError, say
from dmlpy.ops.element_wise_round import ElementWiseRoundOperatorDesc


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """devices takes no arguments."""


def run(args: argparse.Namespace) -> int:
    """List OpenCL devices, the default, and what dmlpy supports on each."""
    from dmlpy.runtime.device import HIGHEST_FEATURE_LEVEL
    from dmlpy.runtime.platforms import list_devices, preferred_device

    entries = list_devices()
    if not entries:
        raise CliError("no OpenCL device found; install pocl-binary-distribution or a GPU driver")
    default = preferred_device().index
    round_from = ElementWiseRoundOperatorDesc.SUPPORT.introduced
    for entry in entries:
        marker = "*" if entry.index == default else " "
        fp64 = "cl_khr_fp64" in entry.cl_device.extensions
        buffers = "every DML_TENSOR_DATA_TYPE but UNKNOWN" + ("" if fp64 else " and FLOAT64 (no cl_khr_fp64)")
        say(f"{marker} [{entry.index}] {entry.name} | {entry.kind} | {entry.platform} | {entry.version}")
        say(f"      feature level: up to {HIGHEST_FEATURE_LEVEL.c_name} (ELEMENT_WISE_ROUND from {round_from.c_name})")
        say("      ELEMENT_WISE_ROUND data types: FLOAT32, FLOAT16 (stored as half, computed in float)")
        say(f"      buffer data types (CheckFeatureSupport TENSOR_DATA_TYPE_SUPPORT): {buffers}")
    say("* = the default device (the first GPU when present, else the CPU device); pick another with --device N")
    return EXIT_OK
