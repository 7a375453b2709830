"""``dmlpy explain``: the kernel a descriptor lowers to: its tensors, build options, launch and the lines the
generator writes; ``--source`` adds the OpenCL source the compiler sees (the template and its headers: about 1,500
lines a kernel); ``--cpp`` prints instead the DirectML C++ that fills the same structs (``dmlpy.cpp``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from dmlpy.cli.common import EXIT_OK, HIGHEST_LEVEL, add_descriptor_arguments, feature_level, say
from dmlpy.cli.files import read_descriptor
from dmlpy.cli.model import is_model, run_on_model
from dmlpy.cli.pictures import add_svg_argument, descriptor_picture, svg_target, write_picture
from dmlpy.cpp import cpp_lines
from dmlpy.descriptors_json import Descriptor, DescriptorProblems
from dmlpy.enums import FeatureLevel
from dmlpy.errors import DmlError, UnsupportedError
from dmlpy.graph.desc import GraphDesc
from dmlpy.graph.fusion import TensorRef, plan_graph
from dmlpy.graph.validation import validate
from dmlpy.kernels import CPU_PROFILE, KernelSpec, LoweredOperator
from dmlpy.kernels.plan import OperatorPlan, PlanRef
from dmlpy.layout import describe_layout
from dmlpy.ops._base import OperatorDescBase
from dmlpy.tensor import TensorDesc


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_descriptor_arguments(parser, f"validate at this level first (default {HIGHEST_LEVEL.c_name})")
    parser.add_argument(
        "--source",
        action="store_true",
        help="also print the whole OpenCL source of each kernel, as the compiler sees it (about 1,500 lines each)",
    )
    parser.add_argument(
        "--cpp",
        action="store_true",
        help="print instead the DirectML C++ that fills the same structs (tensor, operator or graph), creates and "
        "compiles it, with the Direct3D 12 steps as comments, in the style of Microsoft's HelloDirectML sample",
    )
    parser.add_argument(
        "--shape",
        action="append",
        metavar="NAME=D,D,...",
        help="an ONNX model's graph input shape, where its graph does not fix it (repeat for several inputs)",
    )
    add_svg_argument(parser, "its tensors, a graph with its kernels outlined, or the DirectML graph of a model,")


def run(args: argparse.Namespace) -> int:
    """Print the kernel a descriptor lowers to: tensors, build options, launch; its source with --source. An ONNX
    model: what it becomes in DirectML (dmlpy.cli.model)."""
    if is_model(args.descriptor):
        return run_on_model(args)
    target = svg_target(args, args.descriptor)
    desc: Descriptor | None = None
    try:
        desc = read_descriptor(args.descriptor)
        level, lines = explain(desc, args)
    except UnsupportedError:
        # An operator dmlpy validates but does not run: nothing to explain, but its picture says what it means.
        if target is not None and desc is not None:
            say(f"// {write_picture(target, descriptor_picture(desc, feature_level(args)))}")
        raise
    except DescriptorProblems as refused:
        if target is None:
            raise
        why = "explain draws a valid operator or graph; `dmlpy validate --svg` draws tensors and where a refusal breaks"
        raise DescriptorProblems([*refused.problems, f"no picture written to {args.svg}: {why}"]) from None
    if target is not None:
        lines.append(f"// {write_picture(target, descriptor_picture(desc, level))}")
    say(*lines)
    return EXIT_OK


def explain(desc: Descriptor, args: argparse.Namespace) -> tuple[FeatureLevel, list[str]]:
    """The level ``desc`` was validated at and the lines that explain it: its tensors, each kernel's build options
    and launch, and the kernel source (whole with ``args.source``, else only what the generator writes);
    DescriptorProblems when it cannot be explained, UnsupportedError for an operator dmlpy does not run."""
    if args.cpp:
        return cpp_explained(desc, args)
    if isinstance(desc, TensorDesc):
        raise DescriptorProblems(
            ["explain takes an operator or graph descriptor; this is a tensor (try `dmlpy validate`)"]
        )
    level = feature_level(args)
    try:
        validate(desc, level)
    except DmlError as error:
        raise DescriptorProblems([f"invalid at {level.c_name}: {error}"]) from None
    if isinstance(desc, GraphDesc):
        return level, explain_graph(desc, level, with_source=args.source)
    try:
        plan = desc.plan(CPU_PROFILE)
    except NotImplementedError as error:
        raise DescriptorProblems([f"{error} yet"]) from None
    lines = [f"// {desc.OPERATOR_TYPE.c_name}, validated at {level.c_name}"]
    lines += [f"// {line}" for line in desc.explain_lines()]
    lines += tensor_lines(desc)
    if len(plan.steps) > 1:
        lines += plan_lines(plan, with_source=args.source)
        return level, lines
    step = plan.steps[0]
    spec, layout = step.lowered.kernel, step.lowered.layout
    lines += [
        f"// kernel: {spec.kernel_name} in opencl/{spec.source_name}",
        f"// build options: {' '.join(spec.build_options)}",
        f"// layout: {'packed (1-D vectorised kernel)' if layout.packed else f'strided, rank {layout.rank}'}; "
        f"{layout.element_count} elements; coalesced sizes {list(layout.sizes)}; "
        f"strides per tensor {[list(s) for s in layout.strides]}",
        f"// launch: {step.lowered.global_size} work-items, {step.lowered.elements_per_work_item} elements each "
        "(sizes and strides are kernel arguments: a new shape does not rebuild the program)",
    ]
    if any(ref is not None and ref.shift for ref in step.tensors):
        lines.append(f"// tensors bound, in argument order: {bound_tensors(step.tensors)}")
    lines += parameter_lines(step.lowered)
    if plan.temporaries:
        lines.append(f"// TemporaryResourceSize {plan.temporary_regions().size}")
    lines += kernel_source(spec, with_source=args.source)
    return level, lines if args.source else [*lines, left_out([spec])]


def plan_lines(plan: OperatorPlan, *, with_source: bool) -> list[str]:
    """An operator of several launches: how many and the temporary resource they need, then each launch as
    ``explain_graph`` shows a graph's kernels: the tensors it binds (with the shift of a view that starts inside
    one), its build options, launch, kernel parameters and source."""
    lines = [f"// {len(plan.steps)} kernels, TemporaryResourceSize {plan.temporary_regions().size}"]
    for index, step in enumerate(plan.steps):
        spec = step.lowered.kernel
        title = f"{index + 1} of {len(plan.steps)}: {spec.kernel_name} in opencl/{spec.source_name}"
        lines += launch_lines(title, step.tensors, step.lowered, with_source=with_source)
    if not with_source:
        lines += ["", left_out([step.lowered.kernel for step in plan.steps])]
    return lines


def launch_lines(
    title: str, refs: Sequence[PlanRef | TensorRef | None], lowered: LoweredOperator, *, with_source: bool
) -> list[str]:
    """One launch of an operator's plan or a graph's: its title, the tensors it binds, its build options, launch
    size, kernel parameters and source."""
    spec = lowered.kernel
    return [
        "",
        f"// ==== kernel {title}",
        f"// tensors bound, in argument order: {bound_tensors(refs)}",
        f"// build options: {' '.join(spec.build_options)}",
        f"// launch: {lowered.global_size} work-items, {lowered.elements_per_work_item} elements each",
        *parameter_lines(lowered),
        *kernel_source(spec, with_source=with_source),
    ]


def bound_tensors(refs: Sequence[PlanRef | TensorRef | None]) -> str:
    """What a launch binds, in argument order: ``input 1``, ``output 0 +24 elements`` for a view that starts
    24 elements into the tensor (JOIN's part in its output), ``null`` for an absent optional tensor."""
    return ", ".join(
        "null" if ref is None else f"{ref.kind} {ref.index}" + (f" +{ref.shift} elements" if ref.shift else "")
        for ref in refs
    )


def parameter_lines(lowered: LoweredOperator) -> list[str]:
    """The kernel's arguments after the element-wise convention's (a window's start and step per dimension, a
    padding value's bits), as OpenCL types and numbers; none for most kernels."""
    if not lowered.parameters:
        return []
    listed = ", ".join(f"{parameter.kind} {list(parameter.values)}" for parameter in lowered.parameters)
    return [f"// kernel parameters, after the tensors and layout: {listed}"]


def cpp_explained(desc: Descriptor, args: argparse.Namespace) -> tuple[FeatureLevel, list[str]]:
    """``--cpp``: the C++ of a tensor, or of an operator or graph valid at the level asked for (the device is
    created at that level); DescriptorProblems when it is invalid there or is a dmlpy extension."""
    level = feature_level(args)
    try:
        if not isinstance(desc, TensorDesc):
            validate(desc, level)
        return level, cpp_lines(desc, level)
    except DmlError as error:
        raise DescriptorProblems([f"no C++ at {level.c_name}: {error}"]) from None


def tensor_lines(desc: OperatorDescBase) -> list[str]:
    """Each tensor in binding order, one line: its type, Sizes and Strides, and the kind of layout in
    ``dmlpy validate``'s words (which says the rest: bytes, offsets, binding)."""
    lines = []
    for field in desc.tensor_fields():
        tensor: TensorDesc | None = getattr(desc, field)
        if tensor is None:
            continue
        name, buffer = desc.c_field(field), tensor.desc
        kind = next(line.strip() for line in describe_layout(name, buffer) if line.startswith("  layout: "))
        strides = "null" if buffer.strides is None else list(buffer.strides)
        lines.append(f"// {name}: {buffer.data_type.name}, Sizes {list(buffer.sizes)}, Strides {strides}; {kind}")
    return lines


def kernel_source(spec: KernelSpec, *, with_source: bool) -> list[str]:
    """A kernel's source after a blank line: whole as the compiler sees it with ``with_source``, otherwise only
    the lines the generator writes (the element-wise template's specialisation; none for Round's own kernel)."""
    text = spec.specialised_source() if with_source else spec.prelude
    return ["", *text.rstrip("\n").split("\n")] if text else []


def left_out(specs: list[KernelSpec]) -> str:
    """The line that says which source the brief output leaves out, and how to see it."""
    files = ", ".join(sorted({f"opencl/{spec.source_name}" for spec in specs}))
    count = sum(spec.source.count("\n") - spec.prelude.count("\n") for spec in specs)
    return f"// left out: the source of {files}, its headers inlined: {count} lines (--source prints them)"


def explain_graph(desc: GraphDesc, level: FeatureLevel, *, with_source: bool = True) -> list[str]:
    """Each kernel compile_graph would build on a CPU device, in launch order, with its source (whole with
    ``with_source``, else what the generator writes)."""
    plan = plan_graph(desc, desc.validate_on(level), CPU_PROFILE)
    lines = [
        f"// DML_GRAPH_DESC of {len(desc.nodes)} nodes, validated at {level.c_name}: {len(plan.steps)} kernel(s), "
        f"TemporaryResourceSize {plan.temporary_size}"
    ]
    for index, step in enumerate(plan.steps):
        nodes = " -> ".join(desc.node_label(node) for node in step.nodes)
        what = "fused: one read of each input, one write of each output" if step.fused else "one node"
        title = f"{index + 1} of {len(plan.steps)}: {nodes} ({what})"
        lines += launch_lines(title, step.tensors, step.lowered, with_source=with_source)
    if not with_source:
        lines += ["", left_out([step.lowered.kernel for step in plan.steps])]
    return lines
