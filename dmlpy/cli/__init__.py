"""The ``dmlpy`` command (also ``python -m dmlpy``): one module per command, each with ``add_arguments(parser)``
and ``run(args) -> int``; this module builds the parser from the table below and turns errors into statuses.

Commands: ``demo``, ``devices``, ``validate``, ``explain``, ``round``, ``quantize``, ``dequantize``, ``run``,
``schema``;
a bare ``dmlpy`` prints the help and exits 0, as pip does (git exits 1).
Everything printed goes through ``common.say``, which shows control characters and escape sequences from
Names, file names and arguments escaped (``\\x1b``). Errors are one line on stderr and a non-zero status, never
a traceback: 1 for a descriptor that breaks a rule, 2 for input that cannot be read (missing file, bad JSON, bad
option value, unknown device, an existing output without --force), 128 + N when signal N stopped the command
(130 for Ctrl-C, 143 for SIGTERM). Set ``DMLPY_TRACEBACK=1`` to see the traceback of an unexpected error (3).

Descriptor work (``validate``, ``explain``, ``schema``) imports no OpenCL; ``demo``, ``devices`` and the file
commands load the runtime inside ``run``.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn, Protocol

from dmlpy.about import package_version
from dmlpy.cli import demo, devices, explain, quantize, schema, validate
from dmlpy.cli import round as round_command
from dmlpy.cli import run as run_command
from dmlpy.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_OK,
    CliError,
    Terminated,
    say,
)
from dmlpy.descriptors_json import DescriptorProblems
from dmlpy.errors import DeviceSettingError, DmlError

if TYPE_CHECKING:
    from _typeshed import SupportsWrite


class Command(Protocol):
    """What a command module provides."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


COMMANDS: dict[str, tuple[Command, str]] = {
    "demo": (demo, "run the seed example in every rounding mode on the default device"),
    "devices": (devices, "list OpenCL devices, the default, and what dmlpy supports on each"),
    "validate": (validate, "validate descriptors (JSON): one in full (layout, sizes), several one line each"),
    "explain": (
        explain,
        "show the OpenCL kernel a descriptor lowers to: its tensors, build options and launch (--source: its code)",
    ),
    "round": (round_command, "round a .npy file (float, bfloat16 or integer) on an OpenCL device"),
    "quantize": (quantize.QUANTIZE, "quantize a float32/float16/int32 .npy file to uint8 or int8 (QuantizeLinear)"),
    "dequantize": (quantize.DEQUANTIZE, "dequantize an integer .npy file to float32 or float16 (DequantizeLinear)"),
    "run": (run_command, "run an ONNX model on .npy inputs through dmlpy.onnx, each output written as a .npy file"),
    "schema": (schema, "print the JSON Schema of the descriptors"),
}


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error message instead of the usage block, and its printing (help, usage, errors
    that quote the arguments given) through ``say``."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message} (see `{self.prog} --help`)\n")

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        # The one method argparse writes through (print_help, print_usage, exit).
        if message:
            say(*message.removesuffix("\n").split("\n"), stream=file or sys.stderr)


class _VersionAction(argparse.Action):
    """``--version``: prints ``dmlpy X.Y.Z`` and exits 0; the version is read only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="print dmlpy's version")

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        say(f"{parser.prog} {package_version()}")  # on stdout, as argparse's "version" action prints
        parser.exit(EXIT_OK)


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``dmlpy`` parser, and each command's own (which reports the usage errors of its arguments)."""
    parser = _Parser(
        prog="dmlpy",
        description="DirectML's operator-descriptor model on OpenCL. Exit status: 0 ok, 1 invalid descriptor, "
        "2 unreadable input or bad arguments.",
    )
    parser.add_argument("--version", action=_VersionAction)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands: dict[str, argparse.ArgumentParser] = {}
    for name, (command, help_text) in COMMANDS.items():
        commands[name] = subparsers.add_parser(name, help=help_text, description=help_text)
        command.add_arguments(commands[name])
    return parser, commands


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace | None:
    """The arguments, or None for a bare ``dmlpy`` (after printing the help on stdout, as pip does). A usage
    error exits 2 naming the command it belongs to: ``dmlpy validate: unrecognized arguments: ...``."""
    parser, commands = build_parser()
    args, extras = parser.parse_known_args(argv)
    if extras:
        (parser if args.command is None else commands[args.command]).error(
            f"unrecognized arguments: {' '.join(extras)}"
        )
    if args.command is None:
        parser.print_help(sys.stdout)
        return None
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_arguments(argv)
    if args is None:
        return EXIT_OK
    command, _ = COMMANDS[args.command]
    prefix = f"dmlpy {args.command}"
    try:
        with warnings.catch_warnings():
            # Intel's OpenCL CPU runtime (the CPU device where PoCL cannot build) logs every successful build, and
            # pyopencl warns of each non-empty log; a command builds only dmlpy's kernels: the lines are noise.
            warnings.filterwarnings("ignore", message="Non-empty compiler output encountered")
            return command.run(args)
    except CliError as error:
        say(f"{prefix}: {error}", stream=sys.stderr)
        return EXIT_BAD_INPUT
    except DeviceSettingError as error:  # before DmlError, which it is: a bad DMLPY_DEVICE is a bad option
        print(f"{prefix}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except DescriptorProblems as problems:  # before DmlError, which it is: every problem, one line each
        say(*(f"{prefix}: {line}" for line in problems.problems), stream=sys.stderr)
        return EXIT_INVALID
    except DmlError as error:
        first_line = str(error).partition("\n")[0]  # a build error's log follows its message
        say(f"{prefix}: {type(error).__name__}: {first_line}", stream=sys.stderr)
        return EXIT_INVALID
    except BrokenPipeError:
        # The reader went away (`dmlpy schema | head`): stop quietly, as other command-line tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Terminated as signalled:  # before KeyboardInterrupt, which it is: SIGTERM, SIGHUP, ... during `round`
        say(f"{prefix}: {signalled}", stream=sys.stderr)
        return 128 + signalled.signum
    except KeyboardInterrupt:
        say(f"{prefix}: interrupted", stream=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as error:
        where = f": {error.filename}" if error.filename else ""
        say(f"{prefix}: {error.strerror or error}{where}", stream=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as error:
        if os.environ.get("DMLPY_TRACEBACK"):
            raise
        say(
            f"{prefix}: internal error: {type(error).__name__}: {error} (DMLPY_TRACEBACK=1 shows the traceback)",
            stream=sys.stderr,
        )
        return EXIT_INTERNAL
