"""``dmlpy validate``: check a JSON descriptor at a feature level; print its problems, or its normalised form,
memory layout, binding and the feature levels that accept it."""

from __future__ import annotations

import argparse
import base64
import json
import sys
from typing import Any

from dmlpy.binding import same_layout
from dmlpy.cli.common import EXIT_BAD_INPUT, EXIT_INVALID, EXIT_OK, HIGHEST_LEVEL, CliError, feature_level, say
from dmlpy.cli.files import read_descriptor
from dmlpy.cli.output import OutputPlan
from dmlpy.cli.pictures import add_svg_argument, descriptor_picture, svg_target, write_picture
from dmlpy.descriptors_json import Descriptor, DescriptorProblems
from dmlpy.enums import DmlEnum, DmlFlag, FeatureLevel
from dmlpy.errors import DmlError
from dmlpy.graph.desc import GraphDesc
from dmlpy.graph.fusion import plan_graph
from dmlpy.graph.validation import validate
from dmlpy.kernels import CPU_PROFILE
from dmlpy.layout import describe_layout
from dmlpy.ops import OperatorDesc
from dmlpy.tensor import BufferTensorDesc, TensorDesc, check_buffer_tensor


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "descriptors",
        metavar="DESC.json",
        nargs="+",
        help="descriptors as JSON, C or snake_case names ('-': stdin); several get one verdict line each",
    )
    parser.add_argument(
        "--feature-level",
        metavar="LEVEL",
        help=f"2_1, 2.1 or DML_FEATURE_LEVEL_2_1 (default: the highest, {HIGHEST_LEVEL.c_name})",
    )
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="print only the descriptors that are refused or unreadable, one verdict each",
    )
    add_svg_argument(parser, "its layout, or where a refused one breaks,")


def check_descriptor(desc: Descriptor, level: FeatureLevel) -> None:
    """Raise DmlError for the first rule ``desc`` breaks at ``level``."""
    if isinstance(desc, TensorDesc):
        check_buffer_tensor(desc, "DML_BUFFER_TENSOR_DESC", is_output=False)
    else:
        validate(desc, level)  # an operator or a graph


def valid_levels(desc: Descriptor) -> list[FeatureLevel]:
    levels = []
    for level in FeatureLevel:
        try:
            check_descriptor(desc, level)
        except DmlError:
            continue
        levels.append(level)
    return levels


def c_names(value: Any) -> Any:
    """A model_dump(by_alias=True) with enums as their C spellings and tuples as lists (JSON-ready)."""
    if isinstance(value, (DmlEnum, DmlFlag)):
        return value.c_name
    if isinstance(value, dict):
        return {key: c_names(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [c_names(item) for item in value]
    if isinstance(value, bytes):  # constant data, as its JSON holds it
        return base64.b64encode(value).decode("ascii")
    return value


def compact_json(value: Any, indent: str = "") -> str:
    """JSON with objects one field a line and lists of numbers on one line, as C initialisers read."""
    if isinstance(value, dict) and value:
        inner = indent + "  "
        fields = [f"{inner}{json.dumps(key)}: {compact_json(item, inner)}" for key, item in value.items()]
        return "{\n" + ",\n".join(fields) + f"\n{indent}}}"
    if isinstance(value, list) and any(isinstance(item, dict) for item in value):
        inner = indent + "  "
        return "[\n" + ",\n".join(inner + compact_json(item, inner) for item in value) + f"\n{indent}]"
    return json.dumps(value)


def normalised(desc: Descriptor) -> dict[str, Any]:
    """The descriptor with every field filled in, C names throughout."""
    if isinstance(desc, TensorDesc):
        return dict(c_names(desc.model_dump(by_alias=True)))
    if isinstance(desc, GraphDesc):
        return dict(c_names(desc.model_dump(by_alias=True)))
    wrapped = OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc)
    return dict(c_names(wrapped.model_dump(by_alias=True)))


def report(desc: Descriptor, level: FeatureLevel) -> list[str]:
    """What ``validate`` prints for a valid descriptor."""
    lines = [f"valid at {level.c_name}", "", "Normalised descriptor (C field names):"]
    lines += compact_json(normalised(desc)).splitlines()
    if isinstance(desc, GraphDesc):
        return lines + graph_report(desc, level)
    lines += ["", "Memory layout:"]
    if isinstance(desc, TensorDesc):
        lines += describe_layout("Tensor", desc.desc)
        return lines
    tensors: list[tuple[str, BufferTensorDesc]] = []
    for field in desc.tensor_fields():
        tensor: TensorDesc | None = getattr(desc, field)
        if tensor is not None:
            tensors.append((desc.c_field(field), tensor.desc))
    for name, tensor_desc in tensors:
        lines += describe_layout(name, tensor_desc)
    lines += ["", "Binding:"]
    lines.append(
        f"  binding properties: RequiredDescriptorCount {len(tensors)}, TemporaryResourceSize 0, "
        "PersistentResourceSize 0"
    )
    if desc.SUPPORTS_IN_PLACE and len(tensors) == 2:
        (_, first), (_, second) = tensors
        if same_layout(first, second):
            lines.append("  in place: allowed; input and output have identical layouts, so one binding may serve both")
        else:
            lines.append("  in place: no; input and output layouts differ, so bind them to disjoint ranges")
    levels = valid_levels(desc)
    if levels:
        lines += ["", f"Feature levels: valid from {levels[0].c_name} to {levels[-1].c_name}"]
    return lines


def graph_report(desc: GraphDesc, level: FeatureLevel) -> list[str]:
    """A valid graph: its inputs and outputs as bound, its nodes in order, and how it would run (the kernels
    compile_graph plans, fused or not, and the temporary resource)."""
    analysis = desc.validate_on(level)
    lines = ["", "Bound as (binding order):"]
    lines += [f"  graph input {k}: {tensor.describe()}" for k, tensor in enumerate(analysis.input_descs)]
    lines += [f"  graph output {k}: {tensor.describe()}" for k, tensor in enumerate(analysis.output_descs)]
    lines += ["", "Nodes in the order they run:"]
    reads: dict[int, list[str]] = {}  # per node, what its inputs read in binding order
    for (target, _), s in sorted(analysis.sources.items()):
        reads.setdefault(target, []).append(f"graph input {s.index}" if s.kind == "input" else desc.node_label(s.index))
    for node in analysis.order:
        lines.append(f"  {desc.node_label(node)} <- {', '.join(reads[node])}")
    plan = plan_graph(desc, analysis, CPU_PROFILE)
    lines += ["", f"Kernels (compile_graph on a CPU device): {len(plan.steps)}"]
    for index, step in enumerate(plan.steps):
        kind = "fused, values in registers" if step.fused else "the operator's own kernel"
        nodes = " -> ".join(desc.node_label(node) for node in step.nodes)
        lines.append(f"  {index + 1}. {nodes} ({kind})")
    lines += [
        "",
        "Binding:",
        f"  binding properties: RequiredDescriptorCount {desc.input_count + desc.output_count}, "
        f"TemporaryResourceSize {plan.temporary_size}, PersistentResourceSize 0",
        "  in place: no; a graph's outputs never share memory with its inputs",
    ]
    levels = valid_levels(desc)
    if levels:
        lines += ["", f"Feature levels: valid from {levels[0].c_name} to {levels[-1].c_name}"]
    return lines


def run(args: argparse.Namespace) -> int:
    """Validate descriptors given as JSON at a feature level. One file: its problems, or its normalised form,
    layout and binding. Several (or --quiet): one verdict line each, linter style; the status is the worst."""
    level = feature_level(args)
    paths: list[str] = args.descriptors
    if args.svg is not None and (len(paths) > 1 or args.quiet):
        raise CliError(
            f"--svg draws one descriptor beside its report; give one DESC.json without --quiet (given: "
            f"{len(paths)} file{'s' if len(paths) != 1 else ''}{', --quiet' if args.quiet else ''})"
        )
    if len(paths) == 1 and not args.quiet:
        return report_one(paths[0], level, svg_target(args, paths[0]))
    return max(verdict(path, level, quiet=args.quiet) for path in paths)


def _problem_lines(problems: DescriptorProblems) -> list[str]:
    count = len(problems.problems)
    return [
        f"invalid: {count} problem{'s' if count != 1 else ''} in the JSON",
        *(f"  {line}" for line in problems.problems),
    ]


def _refusal(desc: Descriptor, level: FeatureLevel, error: DmlError) -> list[str]:
    """What a descriptor refused at ``level`` prints: the verdict with the error, and the level that takes it."""
    lines = [f"invalid at {level.c_name}", f"  {type(error).__name__} (HRESULT {error.hresult:#010x}): {error}"]
    later = [candidate for candidate in valid_levels(desc) if candidate > level]
    if later:
        lines.append(
            f"  it is valid from {later[0].c_name}: create the device with "
            f"minimum_feature_level={later[0].name} (DMLCreateDevice1's minimumFeatureLevel)"
        )
    return lines


def report_one(path: str, level: FeatureLevel, target: OutputPlan | None) -> int:
    """One descriptor in full: its problems, or its normalised form, layout and binding; its picture to
    ``target``."""
    try:
        desc = read_descriptor(path)
    except DescriptorProblems as problems:
        say(*_problem_lines(problems))
        if target is not None:
            say(f"no picture written to {target.path}: the JSON does not make a descriptor to draw")
        return EXIT_INVALID
    try:
        check_descriptor(desc, level)
    except DmlError as error:
        lines = _refusal(desc, level, error)
        if target is not None:
            lines.append(write_picture(target, descriptor_picture(desc, level, str(error))))
        say(*lines)
        return EXIT_INVALID
    lines = report(desc, level)
    if target is not None:
        lines += ["", write_picture(target, descriptor_picture(desc, level))]
    say(*lines)
    return EXIT_OK


def verdict(path: str, level: FeatureLevel, *, quiet: bool) -> int:
    """One descriptor among several: ``PATH: valid at ...`` (left out when ``quiet``), or ``PATH: invalid ...``
    with the problems indented below it; an unreadable file is reported on stderr and the next one checked."""
    try:
        desc = read_descriptor(path)
    except CliError as error:
        say(f"dmlpy validate: {error}", stream=sys.stderr)
        return EXIT_BAD_INPUT
    except DescriptorProblems as problems:
        first, *rest = _problem_lines(problems)
        say(f"{path}: {first}", *rest)
        return EXIT_INVALID
    try:
        check_descriptor(desc, level)
    except DmlError as error:
        first, *rest = _refusal(desc, level, error)
        say(f"{path}: {first}", *rest)
        return EXIT_INVALID
    if not quiet:
        say(f"{path}: valid at {level.c_name}")
    return EXIT_OK
