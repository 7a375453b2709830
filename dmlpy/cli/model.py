"""``dmlpy explain model.onnx``: what an ONNX model becomes in DirectML (``dmlpy.onnx.explained``), for the input
shapes its graph declares or ``--shape NAME=D,D,...``: the DirectML operators of its nodes and their counts, the
kernels compile_graph launches (the fused ones), what became views; ``--svg`` draws the DirectML graph."""

from __future__ import annotations

import argparse

from dmlpy.cli.common import EXIT_OK, CliError, say
from dmlpy.cli.pictures import svg_target, write_picture


def is_model(path: str) -> bool:
    """Whether ``explain`` was given an ONNX model (by its name: a descriptor is JSON)."""
    return path.lower().endswith(".onnx")


def parsed_shapes(given: list[str] | None) -> dict[str, tuple[int, ...]]:
    """``--shape NAME=D,D,...`` arguments as shapes by input name; CliError naming a malformed one."""
    shapes: dict[str, tuple[int, ...]] = {}
    for text in given or []:
        name, _, dims = text.partition("=")
        try:
            shape = tuple(int(d) for d in dims.split(",")) if dims else ()
        except ValueError:
            shape = None
        if not name or not dims or shape is None or any(d < 1 for d in shape):
            raise CliError(f"--shape {text!r}: give NAME=D,D,... (the graph input's name, its sizes, each at least 1)")
        shapes[name] = shape
    return shapes


def explain_model_file(args: argparse.Namespace) -> list[str]:
    """The lines ``dmlpy explain model.onnx`` prints (the picture written first with --svg)."""
    from dmlpy.onnx import prepare  # only for a model: it loads onnx and a device
    from dmlpy.onnx.explained import explain_model

    target = svg_target(args, args.descriptor)
    explained = explain_model(prepare(args.descriptor), parsed_shapes(args.shape))
    lines = explained.lines()
    if target is not None:
        lines.append(f"// {write_picture(target, explained.picture())}")
    return lines


def run_on_model(args: argparse.Namespace) -> int:
    say(*explain_model_file(args))
    return EXIT_OK
