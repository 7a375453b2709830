"""``dmlpy run MODEL.onnx --input NAME=FILE.npy ...``: an ONNX model run through dmlpy.onnx on an OpenCL device,
each output written as ``OUTPUT_NAME.npy`` in ``--output-dir`` (the current folder by default), so that a model can be
tried without writing Python. Every input is read and every output file planned (none replaced without --force)
before the model is prepared, and the outputs are written only when the whole run has succeeded; the stages (read,
prepared, ran, written) are reported with their times on standard error."""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from dmlpy.cli.common import EXIT_OK, CliError, add_force_argument, device_index, pick_device, say
from dmlpy.cli.files import open_regular
from dmlpy.cli.output import plan_output, replacing

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="MODEL.onnx")
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE.npy",
        help="a graph input's values (repeat for each input the model takes)",
    )
    parser.add_argument("--output-dir", type=Path, default=Path("."), metavar="DIR", help="where OUTPUT.npy files go")
    parser.add_argument("--device", type=device_index, metavar="N", help="device number from `dmlpy devices`")
    add_force_argument(parser, "an output file")


def output_file_name(name: str) -> str:
    """The file an output named ``name`` is written to: the name with every character but letters, digits, ``.``,
    ``_`` and ``-`` made ``_`` (a model's names are its author's text, never a path), then ``.npy``."""
    safe = _UNSAFE.sub("_", name).lstrip(".") or "output"
    return f"{safe}.npy"


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    arrays = dict(_read_input(text) for text in args.input)
    from dmlpy.onnx import prepare  # only now: it loads onnx

    device = pick_device(args.device)
    rep = prepare(args.model, dml_device=device)
    missing = [name for name in rep.input_names if name not in arrays]
    unknown = [name for name in arrays if name not in rep.input_names]
    if missing or unknown:
        raise CliError(
            f"{args.model}: its graph inputs are {rep.input_names}"
            + (f"; no --input for {missing}" if missing else "")
            + (f"; --input names {unknown}, which it does not take" if unknown else "")
        )
    files = [output_file_name(name) for name in rep.output_names]
    if len(set(files)) != len(files):
        raise CliError(f"{args.model}: outputs {rep.output_names} would share a file name ({files}); rename them")
    plans = [plan_output(args.output_dir / file, force=args.force) for file in files]
    _stage(f"prepared {args.model} ({len(rep.model.graph.node)} nodes)", started)
    results = rep.run([arrays[name] for name in rep.input_names])
    _stage(f"ran it on {rep.device.name}", started)
    for plan, result, name in zip(plans, results, rep.output_names, strict=True):
        with replacing(plan) as handle:
            np.save(handle, np.asarray(result), allow_pickle=False)
        say(f"{name}: {result.dtype} {list(result.shape)} -> {plan.path}")
    return EXIT_OK


def _read_input(text: str) -> tuple[str, np.ndarray[Any, Any]]:
    name, equals, file = text.partition("=")
    if not name or not equals or not file:
        raise CliError(f"--input {text!r}: give NAME=FILE.npy (the graph input's name, then its .npy file)")
    with open_regular(Path(file), "a .npy file") as handle:
        try:
            return name, np.load(handle, allow_pickle=False)
        except ValueError as error:
            raise CliError(f"{file}: not a .npy file of numbers ({error})") from None


def _stage(what: str, started: float) -> None:
    say(f"// {what}: {time.perf_counter() - started:.2f} s", stream=sys.stderr)
