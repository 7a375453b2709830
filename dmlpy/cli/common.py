"""What the commands share: exit statuses, the error for unusable input, printing (``say``, which everything the
commands print goes through), the feature-level option, and the options and device choice of the commands that
convert .npy files (``round``, ``quantize``, ``dequantize``)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from dmlpy.enums import FeatureLevel
from dmlpy.errors import DmlError
from dmlpy.modes import MODE_NAMES, AnyRoundingMode, resolve_mode
from dmlpy.ops._base import directml_mode_hint
from dmlpy.problems import did_you_mean, visible

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

    from dmlpy.runtime.device import Device

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130

HIGHEST_LEVEL = max(FeatureLevel)


class CliError(Exception):
    """Input that cannot be read or used (file, JSON syntax, option value, device): exit status 2."""


class Terminated(KeyboardInterrupt):
    """A signal such as SIGTERM turned into an exception, so that cleanup code runs: exit status 128 + signum.

    A KeyboardInterrupt, so that ``except Exception`` does not swallow it and code that must outlast a Ctrl-C
    (the runtime waits for a running kernel before its arrays are freed) outlasts it too.
    """

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"terminated by {signal.Signals(signum).name}")


# ----------------------------------------------------------------------------------------------------- printing


def say(*lines: str, stream: SupportsWrite[str] | None = None, end: str = "\n") -> None:
    """Print ``lines`` on ``stream`` (standard output by default), one a line, each through
    dmlpy.problems.visible (escape sequences in a Name or a file name shown, not acted on; a newline inside a line
    starts no line of its own): the only way the commands write to the terminal. A character the stream's encoding
    cannot hold (a strict ASCII stdout) is written as its escape too. Nothing is written when the stream is closed
    (None)."""
    out = sys.stdout if stream is None else stream
    if out is None:
        return
    text = "\n".join(visible(line) for line in lines) + end
    encoding = getattr(out, "encoding", None)
    if encoding:
        text = text.encode(encoding, "backslashreplace").decode(encoding)
    out.write(text)


@contextmanager
def printed_warnings(prefix: str) -> Iterator[None]:
    """Within the block, a Python warning (a one-liner's, or the command's own) is printed at once as one line,
    ``PREFIX: warning: MESSAGE``, on stderr; Python's filters still decide which are shown (a message repeated
    from one place, once)."""

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        say(f"{prefix}: warning: {message}", stream=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


# ------------------------------------------------------------------------------------------------------ options


def add_descriptor_arguments(parser: argparse.ArgumentParser, level_help: str) -> None:
    parser.add_argument(
        "descriptor", metavar="DESC.json", help="descriptor as JSON, C or snake_case names ('-': stdin)"
    )
    parser.add_argument("--feature-level", metavar="LEVEL", help=level_help)


def feature_level(args: argparse.Namespace) -> FeatureLevel:
    """The --feature-level given, or the highest; CliError naming the levels for anything else."""
    if not args.feature_level:
        return HIGHEST_LEVEL
    try:
        return FeatureLevel.parse(args.feature_level)
    except ValueError:
        known = ", ".join(level.name.removeprefix("FL_") for level in FeatureLevel)
        raise CliError(
            f"--feature-level {args.feature_level!r} is not a DML_FEATURE_LEVEL; use one of {known}"
        ) from None


def rounding_mode(text: str) -> AnyRoundingMode:
    """--mode as resolve_mode reads it; CliError adding what a refused name may have meant: the closest name, or
    for ceil and floor the DirectML operator that does it (and the extension mode that does it here)."""
    try:
        return resolve_mode(text)
    except DmlError as error:
        hint = directml_mode_hint(text)
        if hint:
            direction = "UP" if "no ceil mode" in hint else "DOWN"
            hint += f"; --mode ROUND_{direction} does it here (nGraph's, a dmlpy extension)"
        else:
            hint = did_you_mean(text.strip(), MODE_NAMES)
        raise CliError(f"--mode: {error}{' ' + hint.strip() if hint else ''}") from None


# ---------------------------------------------------------------------------------- commands that convert .npy files


def device_index(text: str) -> int:
    """``--device N``: a number, checked against the devices when one is created."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--device takes a number from `dmlpy devices`, not {text!r}") from None


def pick_device(index: int | None) -> Device | None:
    """The device ``dmlpy devices`` lists as ``index``, with extensions enabled (the commands take every mode
    and dtype the one-liners take); None for None (the one-liners' default device). CliError listing the
    devices there are, for an index there is not; CliError listing the usable ones, for a device whose compiler
    cannot build a kernel."""
    if index is None:
        return None
    from dmlpy.runtime.device import create_device
    from dmlpy.runtime.platforms import list_devices, usable_devices

    entries = list_devices()
    if not 0 <= index < len(entries):
        if not entries:
            listed = "no device (install pocl-binary-distribution or a GPU driver)"
        else:
            names = ", ".join(f"[{entry.index}] {entry.name} ({entry.kind}, {entry.platform})" for entry in entries)
            listed = f"{len(entries)} device{'' if len(entries) == 1 else 's'}: {names}"
        raise CliError(f"--device {index}: no device {index}; `dmlpy devices` lists {listed}")
    if (error := entries[index].compiler_error) is not None:
        raise CliError(
            f"--device {index}: {entries[index].describe()} cannot build kernels (compiler fails: {error}); "
            f"usable: {usable_devices(entries)}"
        )
    return create_device(cl_device=entries[index].cl_device, extensions=True)


def add_file_arguments(parser: argparse.ArgumentParser) -> None:
    """IN.npy, OUT.npy and the options every .npy-converting command takes."""
    parser.add_argument("input", metavar="IN.npy")
    parser.add_argument("output", metavar="OUT.npy", nargs="?", help="may be left out with --in-place")
    parser.add_argument("--device", type=device_index, metavar="N", help="device number from `dmlpy devices`")
    parser.add_argument("--in-place", action="store_true", help="allow OUT to be IN (replaced atomically)")
    parser.add_argument("--progress", action="store_true", help="always show the progress bar (default: > 64 MiB)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary line")
    add_force_argument(parser, "OUT.npy")
    parser.add_argument("--chunk-bytes", type=int, help=argparse.SUPPRESS)


def add_force_argument(parser: argparse.ArgumentParser, output: str) -> None:
    """--force (-f): replace an existing output, which is refused otherwise (a read-only one too)."""
    parser.add_argument(
        "-f",
        "--force",
        action="store_true",
        help=f"replace {output} if it exists, even where its permissions make it read-only (refused otherwise, "
        "with nothing written); it keeps its mode",
    )


def same_file(first: Path, second: Path) -> bool:
    """Whether two names are one file (links and hard links included); never raises, even for a symlink loop."""
    if os.path.realpath(first) == os.path.realpath(second):
        return True
    try:
        return os.path.samefile(first, second)
    except OSError:  # either is missing or unreachable: not the same existing file
        return False


def file_paths(args: argparse.Namespace, *, changes_dtype: str | None = None) -> tuple[Path, Path]:
    """(IN, OUT) of a converting command: OUT is IN with --in-place; OUT that is IN is refused without it, and
    --in-place is refused outright when the command writes another dtype (``changes_dtype`` says which)."""
    source = Path(args.input)
    if args.chunk_bytes is not None and args.chunk_bytes < 1:
        raise CliError("--chunk-bytes must be at least 1")
    if args.in_place and changes_dtype is not None:
        raise CliError(f"--in-place: {args.command} writes {changes_dtype}, not IN's dtype; give OUT.npy")
    if args.output is None:
        if not args.in_place:
            raise CliError("give OUT.npy, or --in-place to replace IN.npy")
        return source, source
    target = Path(args.output)
    if same_file(source, target) and not args.in_place:
        raise CliError(f"{target} is the input file; refusing to overwrite it without --in-place")
    return source, target


def progress_choice(args: argparse.Namespace) -> bool | None:
    """--progress: always; --quiet: never; else None (for large files only)."""
    return True if args.progress else (False if args.quiet else None)
