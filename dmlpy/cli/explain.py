"""``dmlpy explain``: the OpenCL kernel source, build options and launch a descriptor lowers to."""

from __future__ import annotations

import argparse

from dmlpy.cli.common import EXIT_OK, HIGHEST_LEVEL, add_descriptor_arguments, feature_level
from dmlpy.cli.files import read_descriptor
from dmlpy.descriptors_json import DescriptorProblems
from dmlpy.errors import DmlError
from dmlpy.ops import validate
from dmlpy.tensor import TensorDesc


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_descriptor_arguments(parser, f"validate at this level first (default {HIGHEST_LEVEL.c_name})")


def run(args: argparse.Namespace) -> int:
    """Print the OpenCL kernel source and build options a descriptor lowers to."""
    desc = read_descriptor(args.descriptor)
    if isinstance(desc, TensorDesc):
        raise DescriptorProblems(["explain takes an operator descriptor; this is a tensor (try `dmlpy validate`)"])
    level = feature_level(args)
    try:
        validate(desc, level)
    except DmlError as error:
        raise DescriptorProblems([f"invalid at {level.c_name}: {error}"]) from None
    try:
        lowered = desc.lower()
    except NotImplementedError as error:
        raise DescriptorProblems([f"{error} yet"]) from None
    spec, layout = lowered.kernel, lowered.layout
    lines = [f"// {desc.OPERATOR_TYPE.c_name}, validated at {level.c_name}"]
    lines += [f"// {line}" for line in desc.explain_lines()]
    lines += [
        f"// kernel: {spec.kernel_name} in opencl/{spec.source_name}",
        f"// build options: {' '.join(spec.build_options)}",
        f"// layout: {'packed (1-D vectorised kernel)' if layout.packed else f'strided, rank {layout.rank}'}; "
        f"{layout.element_count} elements; coalesced sizes {list(layout.sizes)}; "
        f"strides per tensor {[list(s) for s in layout.strides]}",
        f"// launch: {lowered.global_size} work-items, {lowered.elements_per_work_item} elements each "
        "(sizes and strides are kernel arguments: a new shape does not rebuild the program)",
        "",
        spec.specialised_source().rstrip("\n"),
    ]
    print("\n".join(lines))
    return EXIT_OK
