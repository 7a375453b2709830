"""The ``dmlpy`` command (also ``python -m dmlpy``). Errors are one line on stderr and a non-zero status."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

import numpy as np

from dmlpy.enums import FeatureLevel, RoundingMode, TensorDataType
from dmlpy.errors import DmlError
from dmlpy.ops import validate
from dmlpy.ops.element_wise_round import ElementWiseRoundOperatorDesc
from dmlpy.tensor import BufferTensorDesc

SEED = np.array([-4.5, -1.9, -1.5, 0.5, 0.9, 1.5, 2.3, 2.5], dtype=np.float32)

EXIT_INVALID = 1
EXIT_BAD_INPUT = 2


class CliError(Exception):
    """A problem with the command line or its files: printed as one line, exit status 2."""


def _validation_line(desc: ElementWiseRoundOperatorDesc, level: FeatureLevel) -> str:
    try:
        validate(desc, level)
    except DmlError as error:
        return f"  {level.c_name:<24} refused: {type(error).__name__}: {error}"
    return f"  {level.c_name:<24} valid"


def command_demo(args: argparse.Namespace) -> int:
    """Describe, validate at two feature levels, then run Round in every mode on the default device."""
    from dmlpy.runtime import default_device, round

    print("1. Describe: a 4-D and a 5-D FLOAT32 tensor, and a Round operator for each")
    for sizes in ((1, 1, 2, 4), (1, 1, 1, 2, 4)):
        tensor = BufferTensorDesc(data_type=TensorDataType.FLOAT32, sizes=sizes)
        desc = ElementWiseRoundOperatorDesc(input_tensor=tensor, output_tensor=tensor)
        print(f"   Sizes {sizes}: TotalTensorSizeInBytes {tensor.total_tensor_size_in_bytes}")
        print("2. Validate it against two feature levels")
        for level in (FeatureLevel.FL_2_1, FeatureLevel.FL_3_0):
            print(_validation_line(desc, level))
    device = default_device()
    print(f"3. Run on {device.name}, {device.feature_level.c_name}")
    header = f"   {'input':>8}" + "".join(f"{mode.name:>24}" for mode in RoundingMode)
    print(header)
    results = {mode: round(SEED, mode) for mode in RoundingMode}
    for index, value in enumerate(SEED):
        print(f"   {value!s:>8}" + "".join(f"{results[mode][index]!s:>24}" for mode in RoundingMode))
    print("   (TOWARD_INFINITY rounds halves away from zero: it is not ceil)")
    return 0


def command_devices(args: argparse.Namespace) -> int:
    """List OpenCL devices, the default, and what dmlpy supports on each."""
    from dmlpy.runtime.device import HIGHEST_FEATURE_LEVEL
    from dmlpy.runtime.platforms import list_devices, preferred_device

    entries = list_devices()
    if not entries:
        raise CliError("no OpenCL device found; install pocl-binary-distribution or a GPU driver")
    default = preferred_device().index
    for entry in entries:
        marker = "*" if entry.index == default else " "
        fp64 = "cl_khr_fp64" in entry.cl_device.extensions
        types = "FLOAT32, FLOAT16" + (" (FLOAT64 buffers: cl_khr_fp64)" if fp64 else "")
        print(f"{marker} [{entry.index}] {entry.name} | {entry.kind} | {entry.platform} | {entry.version}")
        print(f"      feature level up to {HIGHEST_FEATURE_LEVEL.c_name}; Round data types {types}")
    print("* = the default device (a GPU when present, else the CPU device)")
    return 0


COMMANDS: dict[str, tuple[Callable[[argparse.Namespace], int], str]] = {
    "demo": (command_demo, "run the seed example in every rounding mode on the default device"),
    "devices": (command_devices, "list OpenCL devices and what dmlpy supports on each"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dmlpy", description="DirectML's operator model on OpenCL")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, (_, help_text) in COMMANDS.items():
        commands.add_parser(name, help=help_text, description=help_text)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler, _ = COMMANDS[args.command]
    try:
        return handler(args)
    except CliError as error:
        print(f"dmlpy {args.command}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except DmlError as error:
        print(f"dmlpy {args.command}: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_INVALID


if __name__ == "__main__":
    sys.exit(main())
