"""``--svg FILE`` of ``validate`` and ``explain``: the descriptor's picture (dmlpy.drawing), written safely (a
temporary renamed over FILE when complete). A refused descriptor's picture shows where it breaks: the message in
red, and the tensor, node or edge it names drawn red."""

from __future__ import annotations

import argparse
from pathlib import Path

from dmlpy.cli.common import CliError, add_force_argument, same_file
from dmlpy.cli.output import OutputPlan, plan_output, replacing
from dmlpy.descriptors_json import Descriptor
from dmlpy.drawing import DrawnKernel, Picture
from dmlpy.enums import FeatureLevel
from dmlpy.graph.desc import GraphDesc
from dmlpy.graph.fusion import plan_graph
from dmlpy.kernels import CPU_PROFILE
from dmlpy.tensor import TensorDesc


def add_svg_argument(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--svg", metavar="FILE", type=Path, help=f"also write {what} as an SVG picture to FILE")
    add_force_argument(parser, "the --svg FILE")


def descriptor_picture(desc: Descriptor, level: FeatureLevel, problem: str | None = None) -> Picture:
    """The picture of ``desc``: a tensor's layout, an operator's tensors, or a graph; a valid graph with the
    kernels compile_graph plans on a CPU device outlined. ``problem`` is the message of a refusal at ``level``."""
    if isinstance(desc, TensorDesc):
        return desc.picture(problem=problem)
    if isinstance(desc, GraphDesc):
        if problem is not None:
            return desc.picture(problem=problem)
        plan = plan_graph(desc, desc.validate_on(level), CPU_PROFILE)
        return desc.picture([DrawnKernel(step.nodes, step.fused) for step in plan.steps])
    return desc.picture(problem)


def svg_target(args: argparse.Namespace, descriptor: str) -> OutputPlan | None:
    """Where --svg writes the picture of the file ``descriptor``, checked before any work, so a bad path costs
    no verdict: CliError for the descriptor's own file, a path that cannot be written, or an existing file
    without --force; None without --svg."""
    if args.svg is None:
        return None
    if descriptor != "-" and same_file(Path(descriptor), args.svg):
        raise CliError(f"--svg {args.svg} is the descriptor file itself; refusing to overwrite it with its picture")
    return plan_output(args.svg, force=args.force)


def write_picture(target: OutputPlan, picture: Picture) -> str:
    """Write ``picture`` to ``target`` (replacing it only when complete); the line that says so."""
    with replacing(target) as handle:
        handle.write(picture.svg.encode("utf-8"))
    return f"picture written to {target.path}"
