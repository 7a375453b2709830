"""The ``dmlpy`` command (also ``python -m dmlpy``).

Commands: ``demo``, ``devices``, ``validate``, ``explain``, ``round``, ``schema``. Errors are one line on stderr
and a non-zero status, never a traceback: 1 for a descriptor that breaks a rule, 2 for input that cannot be
read (missing file, bad JSON, bad option value, unknown device). Set ``DMLPY_TRACEBACK=1`` to see the traceback
of an unexpected error.

Descriptor work (``validate``, ``explain``, ``schema``) imports no OpenCL; ``demo``, ``devices`` and ``round``
load the runtime.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn, cast

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ValidationError

from dmlpy.codegen import coalesce
from dmlpy.dtypes import element_size
from dmlpy.enums import (
    DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT,
    DmlEnum,
    DmlFlag,
    FeatureLevel,
    OperatorType,
    RoundingMode,
    TensorDataType,
    TensorFlags,
    TensorType,
)
from dmlpy.errors import DmlError
from dmlpy.modes import MODE_ALIASES, AnyRoundingMode, resolve_mode
from dmlpy.ops import OPERATORS, OperatorDesc, validate
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops.element_wise_round import ROUNDING_FUNCTIONS, ElementWiseRoundOperatorDesc
from dmlpy.tensor import BufferTensorDesc, TensorDesc, calc_buffer_tensor_size, check_buffer_tensor

if TYPE_CHECKING:
    from dmlpy.runtime.device import Device

SEED = np.array([-4.5, -1.9, -1.5, 0.5, 0.9, 1.5, 2.3, 2.5], dtype=np.float32)

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130

HIGHEST_LEVEL = max(FeatureLevel)

MODE_VOCABULARY: dict[RoundingMode, tuple[str, str, str, str]] = {
    # DirectML mode: (meaning, ONNX, OpenVINO Round-5, nGraph) -- peers.md §2
    RoundingMode.HALVES_TO_NEAREST_EVEN: ("nearest, ties to even", "Round", "half_to_even", "NEAREST_TOWARD_EVEN"),
    RoundingMode.TOWARD_ZERO: ("truncate", "-", "-", "TOWARD_ZERO"),
    RoundingMode.TOWARD_INFINITY: (
        "nearest, ties away from 0",
        "-",
        "half_away_from_zero",
        "NEAREST_TOWARD_INFINITY",
    ),
}
"""Per DirectML mode: what it does, and the name ONNX, OpenVINO and nGraph give the same rounding."""

OTHER_MODE_NAMES: dict[str, str] = {
    "half_to_even": "HALVES_TO_NEAREST_EVEN",
    "half_away_from_zero": "TOWARD_INFINITY",
    "toward_zero": "TOWARD_ZERO",
    "round_nearest_toward_even": "HALVES_TO_NEAREST_EVEN",
    "round_nearest_toward_infinity": "TOWARD_INFINITY",
    "round_toward_zero": "TOWARD_ZERO",
}
"""Other systems' names that a descriptor's RoundingMode does not take, and the DirectML name to use instead."""


class CliError(Exception):
    """Input that cannot be read or used (file, JSON syntax, option value, device): exit status 2."""


class DescriptorProblems(Exception):
    """A descriptor that breaks DirectML's rules: the teaching messages, one per problem; exit status 1."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error message instead of the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


# --------------------------------------------------------------------------------------------------------------
# Reading descriptors


def read_json(path: str) -> Any:
    """The JSON value in ``path`` (``-`` for stdin); CliError for an unreadable file or bad syntax."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a directory, not a JSON file") from None
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise CliError(f"{path}: cannot read: {reason}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise CliError(f"{path}: not valid JSON: {error.msg} at line {error.lineno} column {error.colno}") from None


def _c_field_names() -> dict[str, str]:
    names: dict[str, str] = {}
    models: list[type[BaseModel]] = [OperatorDesc, TensorDesc, BufferTensorDesc, *OPERATORS.values()]
    for model in models:
        for name, field in model.model_fields.items():
            names[name] = field.alias or name
    return names


_C_FIELDS = _c_field_names()
_ENUM_FIELDS: dict[str, type[DmlEnum] | type[DmlFlag]] = {
    "DataType": TensorDataType,
    "Flags": TensorFlags,
    "RoundingMode": RoundingMode,
}


def _field_path(root: str, loc: Sequence[int | str]) -> tuple[str, str]:
    """``ELEMENT_WISE_ROUND.InputTensor.Sizes[1]`` for a pydantic location, and the last field's C name."""
    path, last = root, ""
    for part in loc:
        if isinstance(part, str) and "[" in part:
            continue  # a union member tag such as "int-enum[TensorDataType]"
        if isinstance(part, int):
            path += f"[{part}]"
            continue
        name = _C_FIELDS.get(part, part)
        if name == "Desc" and path != root:
            continue  # InputTensor.Desc.DataType reads as InputTensor.DataType, as DirectML's messages do
        path += f".{name}"
        last = name
    return path, last


def _members(enum_class: type[DmlEnum] | type[DmlFlag]) -> list[DmlEnum | DmlFlag]:
    return cast(list[DmlEnum | DmlFlag], list(enum_class))


def _enum_choices(enum_class: type[DmlEnum] | type[DmlFlag]) -> str:
    members = _members(enum_class)
    choices = ", ".join(f"{member.name} ({member.value})" for member in members)
    example = members[0]
    return f"one of {choices}: the C name ({example.c_name}), the short name or the number"


def _show(value: Any) -> str:
    return json.dumps(value) if isinstance(value, (str, int, float, bool, list, dict)) or value is None else repr(value)


def describe_validation_error(error: ValidationError, root: str) -> list[str]:
    """One teaching line per problem pydantic found, with C field names."""
    lines: list[str] = []
    seen: set[str] = set()
    for problem in error.errors(include_url=False):
        path, last = _field_path(root, problem["loc"])
        if path in seen:
            continue  # one line per field, even when a union tried several types
        seen.add(path)
        kind, given = problem["type"], problem.get("input")
        message = problem["msg"].removeprefix("Value error, ")
        if kind == "enum":
            enum_class: type[DmlEnum] | type[DmlFlag] | None = _ENUM_FIELDS.get(last)
            if last == "Type":
                enum_class = OperatorType if path == f"{root}.Type" else TensorType
            line = f"{path} is {_show(given)}; it must be " + (_enum_choices(enum_class) if enum_class else message)
            if isinstance(given, str) and given.lower() in OTHER_MODE_NAMES:
                line += f" ({given!r} is another system's name; DirectML calls it {OTHER_MODE_NAMES[given.lower()]})"
            if isinstance(given, str) and given.upper() in {"CEIL", "UP", "ROUND_UP"}:
                line += " (DirectML has no ceil mode; TOWARD_INFINITY rounds halves away from zero, it is not ceil)"
            lines.append(line)
        elif kind == "missing":
            lines.append(f"{path} is missing; it is required")
        elif kind == "extra_forbidden":
            lines.append(f"{path} is not a field here (given {_show(given)}); check its spelling")
        elif kind == "greater_than_equal":
            lines.append(f"{path} is {_show(given)}; it must be a whole number from {problem.get('ctx', {}).get('ge')}")
        elif kind == "less_than_equal":
            limit = problem.get("ctx", {}).get("le")
            width = "UINT64" if limit == 2**64 - 1 else "UINT" if limit == 2**32 - 1 else "field"
            lines.append(f"{path} is {_show(given)}; a C {width} holds at most {limit}")
        elif kind in {"model_type", "model_attributes_type", "dict_type"}:
            lines.append(f"{path} is {_show(given)}; it must be a JSON object with the descriptor's fields")
        elif kind == "value_error":
            lines.append(f"{path}: {message}")
        else:
            lines.append(f"{path} is {_show(given)}: {message}")
    return lines


Descriptor = OperatorDescBase | TensorDesc


def _keys(data: dict[str, Any], *names: str) -> bool:
    return any(name in data for name in names)


def _field_spellings(model: type[BaseModel]) -> set[str]:
    return {spelling for name, field in model.model_fields.items() for spelling in (name, field.alias or name)}


def bare_operator_class(data: dict[str, Any]) -> type[OperatorDescBase]:
    """The operator descriptor whose fields a bare (unwrapped) descriptor uses; Round when in doubt."""
    fitting = [cls for cls in OPERATORS.values() if set(data) <= _field_spellings(cls)]
    if len(fitting) > 1 and ElementWiseRoundOperatorDesc not in fitting:
        names = " or ".join(cls.OPERATOR_TYPE.c_name for cls in fitting)
        raise DescriptorProblems(
            [f'these fields fit {names}; wrap the descriptor as {{"Type": "<operator>", "Desc": {{...}}}}']
        )
    return fitting[0] if len(fitting) == 1 else ElementWiseRoundOperatorDesc


def parse_descriptor(data: Any) -> Descriptor:
    """An operator descriptor from JSON: ``{"Type": ..., "Desc": {...}}`` (DML_OPERATOR_DESC), a bare Round
    descriptor (``{"InputTensor": ...}``), or a tensor (DML_BUFFER_TENSOR_DESC, or DML_TENSOR_DESC around one).
    C or snake_case field names. DescriptorProblems lists every structural problem."""
    if not isinstance(data, dict):
        raise DescriptorProblems(
            [
                f"the JSON holds {type(data).__name__ if data is not None else 'null'}; a descriptor is a JSON object "
                'such as {"Type": "DML_OPERATOR_ELEMENT_WISE_ROUND", "Desc": {...}}'
            ]
        )
    inner = data.get("Desc", data.get("desc"))
    is_tensor = _keys(data, "DataType", "data_type", "Sizes", "sizes") or (
        isinstance(inner, dict) and _keys(inner, "DataType", "data_type", "Sizes", "sizes")
    )
    try:
        if is_tensor:
            return TensorDesc.model_validate(data)
        if _keys(data, "Type", "type", "Desc", "desc"):
            return OperatorDesc.model_validate(data).desc
        return bare_operator_class(data).model_validate(data)
    except ValidationError as error:
        if is_tensor:
            root = "DML_BUFFER_TENSOR_DESC"
        elif _keys(data, "Type", "type", "Desc", "desc"):
            try:
                raw_type: Any = data.get("Type", data.get("type"))
                root = OperatorType.parse(raw_type).name
            except (ValueError, TypeError):
                root = "DML_OPERATOR_DESC"
        else:
            root = bare_operator_class(data).OPERATOR_TYPE.name
        raise DescriptorProblems(describe_validation_error(error, root)) from None


def parse_feature_level(text: str) -> FeatureLevel:
    try:
        return FeatureLevel.parse(text)
    except ValueError:
        known = ", ".join(level.name.removeprefix("FL_") for level in FeatureLevel)
        raise CliError(f"--feature-level {text!r} is not a DML_FEATURE_LEVEL; use one of {known}") from None


def check_descriptor(desc: Descriptor, level: FeatureLevel) -> None:
    """Raise DmlError for the first rule ``desc`` breaks at ``level``."""
    if isinstance(desc, TensorDesc):
        check_buffer_tensor(desc, "DML_BUFFER_TENSOR_DESC", is_output=False)
    else:
        validate(desc, level)


def valid_levels(desc: Descriptor) -> list[FeatureLevel]:
    levels = []
    for level in FeatureLevel:
        try:
            check_descriptor(desc, level)
        except DmlError:
            continue
        levels.append(level)
    return levels


# --------------------------------------------------------------------------------------------------------------
# Describing descriptors


def c_names(value: Any) -> Any:
    """A model_dump(by_alias=True) with enums as their C spellings and tuples as lists (JSON-ready)."""
    if isinstance(value, (DmlEnum, DmlFlag)):
        return value.c_name
    if isinstance(value, dict):
        return {key: c_names(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [c_names(item) for item in value]
    return value


def compact_json(value: Any, indent: str = "") -> str:
    """JSON with objects one field a line and lists of numbers on one line, as C initialisers read."""
    if isinstance(value, dict) and value:
        inner = indent + "  "
        fields = [f"{inner}{json.dumps(key)}: {compact_json(item, inner)}" for key, item in value.items()]
        return "{\n" + ",\n".join(fields) + f"\n{indent}}}"
    return json.dumps(value)


def normalised(desc: Descriptor) -> dict[str, Any]:
    """The descriptor with every field filled in, C names throughout."""
    if isinstance(desc, TensorDesc):
        return dict(c_names(desc.model_dump(by_alias=True)))
    wrapped = OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc)
    return dict(c_names(wrapped.model_dump(by_alias=True)))


def describe_layout(name: str, desc: BufferTensorDesc, *, max_rows: int = 8) -> list[str]:
    """How a buffer tensor lies in memory: strides, the class of layout, sizes, and where its elements are."""
    sizes, strides = desc.sizes, desc.effective_strides
    itemsize = element_size(desc.data_type)
    count = desc.element_count
    span = sum((n - 1) * s for n, s in zip(sizes, strides, strict=True)) + 1 if count else 0
    stated = "null (packed)" if desc.strides is None else list(desc.strides)
    lines = [
        f"{name}: {desc.data_type}, {itemsize} bytes per element, Flags {desc.flags}",
        f"  Sizes {list(sizes)}, DimensionCount {desc.dimension_count}, {count} elements",
        f"  Strides {stated}; in elements {list(strides)}, in bytes {[s * itemsize for s in strides]}",
    ]
    broadcast = [d for d, (n, s) in enumerate(zip(sizes, strides, strict=True)) if s == 0 and n > 1]
    moving = [s for n, s in zip(sizes, strides, strict=True) if n > 1 and s > 0]
    kinds: list[str] = []
    if count and coalesce(sizes, (strides,)).packed:
        kinds.append("packed: one contiguous run in row-major order")
    else:
        if broadcast:
            kinds.append(f"broadcast: dimension(s) {broadcast} have stride 0, so their elements share memory")
        if moving != sorted(moving, reverse=True):
            kinds.append("permuted: strides are not in decreasing order (e.g. NHWC data described as NCHW)")
        if not broadcast and span > count:
            gap = span - count
            kinds.append(f"padded: spans {span} element slots for {count} elements ({gap} of padding)")
        if not kinds:
            kinds.append("strided")
    lines.append("  layout: " + "; ".join(kinds))
    terms = " + ".join(f"{s}*i{d}" for d, s in enumerate(strides))
    lines.append(f"  element [i0..i{len(sizes) - 1}] is at byte offset {itemsize} * ({terms})")
    calc = calc_buffer_tensor_size(desc.data_type, sizes, desc.strides)
    extra = "" if calc == desc.total_tensor_size_in_bytes else f" (DMLCalcBufferTensorSize gives {calc})"
    lines.append(
        f"  spans {span} elements = {span * itemsize} bytes; DMLCalcBufferTensorSize = {calc} "
        f"(rounded up to a multiple of 4); TotalTensorSizeInBytes {desc.total_tensor_size_in_bytes}{extra}"
    )
    alignment = max(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, desc.guaranteed_base_offset_alignment)
    lines.append(
        f"  bind with DML_BUFFER_BINDING.SizeInBytes >= {desc.total_tensor_size_in_bytes} at an Offset that is "
        f"a multiple of {alignment}"
    )
    if 0 < count <= 64 and len(sizes) >= 1:
        lines.append("  element offsets, one row per innermost run:")
        row_length = sizes[-1]
        outer = [s for s in sizes[:-1]]
        for rows, index in enumerate(np.ndindex(*outer) if outer else [()]):
            if rows == max_rows:
                lines.append("    ...")
                break
            base = sum(i * s for i, s in zip(index, strides, strict=False))
            offsets = [base + j * strides[-1] for j in range(row_length)]
            label = ",".join(str(i) for i in index) + ("," if index else "")
            lines.append(f"    [{label}:] -> {' '.join(str(o) for o in offsets)}")
    return lines


def _same_layout(a: BufferTensorDesc, b: BufferTensorDesc) -> bool:
    return (
        a.data_type == b.data_type
        and a.sizes == b.sizes
        and a.effective_strides == b.effective_strides
        and a.total_tensor_size_in_bytes == b.total_tensor_size_in_bytes
    )


def report(desc: Descriptor, level: FeatureLevel) -> list[str]:
    """What ``validate`` prints for a valid descriptor."""
    lines = [f"valid at {level.c_name}", "", "Normalised descriptor (C field names):"]
    lines += compact_json(normalised(desc)).splitlines()
    lines += ["", "Memory layout:"]
    if isinstance(desc, TensorDesc):
        lines += describe_layout("Tensor", desc.desc)
        return lines
    tensors: list[tuple[str, BufferTensorDesc]] = []
    for field in (*desc.INPUTS, *desc.OUTPUTS):
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
        if _same_layout(first, second):
            lines.append("  in place: allowed; input and output have identical layouts, so one binding may serve both")
        else:
            lines.append("  in place: no; input and output layouts differ, so bind them to disjoint ranges")
    levels = valid_levels(desc)
    if levels:
        lines += ["", f"Feature levels: valid from {levels[0].c_name} to {levels[-1].c_name}"]
    return lines


# --------------------------------------------------------------------------------------------------------------
# Commands


def _validation_line(desc: ElementWiseRoundOperatorDesc, level: FeatureLevel) -> str:
    try:
        validate(desc, level)
    except DmlError as error:
        return f"   {level.c_name:<24} refused: {type(error).__name__}: {error}"
    return f"   {level.c_name:<24} valid"


def command_demo(args: argparse.Namespace) -> int:
    """Describe, validate at two feature levels, then run Round in every mode on the default device."""
    from dmlpy.runtime import default_device, round

    print("1. Describe a 4-D and a 5-D FLOAT32 tensor and a Round operator for each, then validate them")
    for sizes in ((1, 1, 2, 4), (1, 1, 1, 2, 4)):
        tensor = BufferTensorDesc(data_type=TensorDataType.FLOAT32, sizes=sizes)
        desc = ElementWiseRoundOperatorDesc(input_tensor=tensor, output_tensor=tensor)
        print(f"   Sizes {sizes}: TotalTensorSizeInBytes {tensor.total_tensor_size_in_bytes}")
        for level in (FeatureLevel.FL_2_1, FeatureLevel.FL_3_0):
            print(_validation_line(desc, level))
    device = default_device()
    print(f"2. Round the seed example in every mode on {device.name}, {device.feature_level.c_name}")
    modes = list(RoundingMode)
    width = max(len(mode.name) for mode in modes) + 2
    print(f"   {'input':>8}" + "".join(f"{mode.name:>{width}}" for mode in modes))
    # The name dml.round and `dmlpy round --mode` also take for each mode.
    alias = {mode: name for name, mode in MODE_ALIASES.items()}
    print(f"   {'':>8}" + "".join(f"{'(' + alias[mode] + ')':>{width}}" for mode in modes))
    results = {mode: round(SEED, mode) for mode in modes}
    for index, value in enumerate(SEED):
        print(f"   {value!s:>8}" + "".join(f"{results[mode][index]!s:>{width}}" for mode in modes))
    print("   TOWARD_INFINITY rounds halves away from zero (OpenVINO's half_away_from_zero): it is not ceil.")
    return EXIT_OK


def command_devices(args: argparse.Namespace) -> int:
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
        print(f"{marker} [{entry.index}] {entry.name} | {entry.kind} | {entry.platform} | {entry.version}")
        print(
            f"      feature level: up to {HIGHEST_FEATURE_LEVEL.c_name} (ELEMENT_WISE_ROUND from {round_from.c_name})"
        )
        print("      ELEMENT_WISE_ROUND data types: FLOAT32, FLOAT16 (stored as half, computed in float)")
        print(f"      buffer data types (CheckFeatureSupport TENSOR_DATA_TYPE_SUPPORT): {buffers}")
    print("* = the default device (the first GPU when present, else the CPU device); pick another with --device N")
    return EXIT_OK


def _load_descriptor(path: str) -> Descriptor:
    return parse_descriptor(read_json(path))


def command_validate(args: argparse.Namespace) -> int:
    """Validate a descriptor given as JSON at a feature level; print the problems or the normalised form."""
    level = parse_feature_level(args.feature_level) if args.feature_level else HIGHEST_LEVEL
    try:
        desc = _load_descriptor(args.descriptor)
    except DescriptorProblems as problems:
        count = len(problems.problems)
        print(f"invalid: {count} problem{'s' if count != 1 else ''} in the JSON")
        print("\n".join(f"  {line}" for line in problems.problems))
        return EXIT_INVALID
    try:
        check_descriptor(desc, level)
    except DmlError as error:
        lines = [f"invalid at {level.c_name}", f"  {type(error).__name__} (HRESULT {error.hresult:#010x}): {error}"]
        later = [candidate for candidate in valid_levels(desc) if candidate > level]
        if later:
            lines.append(
                f"  it is valid from {later[0].c_name}: create the device with "
                f"minimum_feature_level={later[0].name} (DMLCreateDevice1's minimumFeatureLevel)"
            )
        print("\n".join(lines))
        return EXIT_INVALID
    print("\n".join(report(desc, level)))
    return EXIT_OK


def command_explain(args: argparse.Namespace) -> int:
    """Print the OpenCL kernel source and build options a descriptor lowers to."""
    desc = _load_descriptor(args.descriptor)
    if isinstance(desc, TensorDesc):
        raise DescriptorProblems(["explain takes an operator descriptor; this is a tensor (try `dmlpy validate`)"])
    level = parse_feature_level(args.feature_level) if args.feature_level else HIGHEST_LEVEL
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
    if isinstance(desc, ElementWiseRoundOperatorDesc):
        mode = desc.rounding_mode
        lines.append(f"// RoundingMode {mode.c_name} -> OpenCL built-in {ROUNDING_FUNCTIONS[mode]}()")
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


def command_schema(args: argparse.Namespace) -> int:
    """Print the JSON Schema of the descriptors dmlpy reads."""
    print(json.dumps(descriptor_schema(), indent=2))
    return EXIT_OK


# --------------------------------------------------------------------------------------------------------------
# JSON Schema


def _enum_schema(enum_class: type[DmlEnum] | type[DmlFlag], description: str) -> dict[str, Any]:
    members = _members(enum_class)
    names = [m.c_name for m in members] + [m.name or "" for m in members]
    if enum_class is FeatureLevel:
        names += [m.name.removeprefix("FL_") for m in members if m.name]
    return {
        "title": enum_class.__name__,
        "description": description + " The C name, the short name (case-insensitive) or the number.",
        "anyOf": [
            {"type": "integer", "enum": [m.value for m in members]},
            {"type": "string", "enum": names},
        ],
    }


def _model_defs(models: Sequence[type[BaseModel]]) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for model in models:
        schema = model.model_json_schema(by_alias=True, ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        defs[model.__name__] = schema
    return defs


def descriptor_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of the descriptors ``validate`` and ``explain`` read, in C field names.

    pydantic's schema of OperatorDesc types Desc as the abstract base; here Desc is tied to Type per
    operator, enums take their spellings as well as numbers, and a tensor may be a bare DML_BUFFER_TENSOR_DESC.
    snake_case field names are accepted by dmlpy too but are not listed.
    """
    desc_classes = list(OPERATORS.values())
    defs = _model_defs([BufferTensorDesc, TensorDesc, *desc_classes])
    for name, value in list(defs.items()):
        enum_class = next(
            (c for c in (TensorDataType, TensorFlags, TensorType, RoundingMode, OperatorType) if c.__name__ == name),
            None,
        )
        if enum_class is not None:
            defs[name] = _enum_schema(enum_class, value.get("description", ""))
    wrapped_tensor = defs["TensorDesc"]
    defs["TensorDesc"] = {
        "title": "TensorDesc",
        "description": "DML_TENSOR_DESC {Type, Desc}, or the DML_BUFFER_TENSOR_DESC it points to.",
        "anyOf": [wrapped_tensor, {"$ref": "#/$defs/BufferTensorDesc"}],
    }
    variants: list[dict[str, Any]] = []
    for operator_type, desc_class in OPERATORS.items():
        spellings: list[Any] = [operator_type.value, operator_type.c_name, operator_type.name]
        variants.append(
            {
                "title": f"DML_OPERATOR_DESC for {operator_type.c_name}",
                "type": "object",
                "properties": {
                    "Type": {"enum": spellings},
                    "Desc": {"$ref": f"#/$defs/{desc_class.__name__}"},
                },
                "required": ["Type", "Desc"],
                "additionalProperties": False,
            }
        )
    defs["OperatorDesc"] = {
        "title": "OperatorDesc",
        "description": OperatorDesc.__doc__ or "",
        "oneOf": variants,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/dmlpy/dmlpy/schema/descriptor.json",
        "title": "dmlpy descriptor",
        "description": (
            "What `dmlpy validate` and `dmlpy explain` read: a DML_OPERATOR_DESC, a bare "
            "DML_ELEMENT_WISE_ROUND_OPERATOR_DESC, or a tensor (validate only). C field names shown; "
            "dmlpy also accepts the snake_case names."
        ),
        "oneOf": [
            {"$ref": "#/$defs/OperatorDesc"},
            *({"$ref": f"#/$defs/{c.__name__}"} for c in desc_classes),
            {"$ref": "#/$defs/TensorDesc"},
        ],
        "$defs": defs,
    }


# --------------------------------------------------------------------------------------------------------------
# round: a .npy file through ELEMENT_WISE_ROUND

PROGRESS_THRESHOLD_BYTES = 64 * 2**20
CHUNK_BYTES = 16 * 2**20


def _bytes(count: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count:,.0f} {unit}" if unit == "B" else f"{count:,.1f} {unit}"
        count /= 1024
    return f"{count:,.1f} GiB"


class Progress:
    """A one-line progress bar on stderr, redrawn in place; silent when disabled."""

    def __init__(self, total: int, enabled: bool, label: str = "rounding") -> None:
        self.total, self.enabled, self.label = total, enabled, label
        self.started = time.perf_counter()

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        fraction = done / self.total if self.total else 1.0
        filled = int(fraction * 30)
        elapsed = time.perf_counter() - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        bar = "#" * filled + "." * (30 - filled)
        sys.stderr.write(f"\r{self.label} [{bar}] {fraction:6.1%} {_bytes(done)}/{_bytes(self.total)} {_bytes(rate)}/s")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _pick_device(index: int | None) -> Device | None:
    if index is None:
        return None
    from dmlpy.runtime.device import create_device
    from dmlpy.runtime.platforms import device_by_index

    try:
        entry = device_by_index(index)
    except DmlError as error:
        raise CliError(f"--device {index}: {error}") from None
    # Extensions on: the command takes every mode dml.round takes (nGraph's too).
    return create_device(cl_device=entry.cl_device, extensions=True)


def _parse_mode(text: str) -> AnyRoundingMode:
    try:
        return resolve_mode(text)
    except DmlError as error:
        raise CliError(f"--mode: {error}") from None


def _load_npy(path: Path) -> npt.NDArray[Any]:
    try:
        with path.open("rb") as handle:
            magic = handle.read(6)
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a directory, not a .npy file") from None
    except OSError as error:
        raise CliError(f"{path}: cannot read: {error.strerror or error}") from None
    if magic.startswith(b"PK"):
        raise CliError(f"{path}: is a .npz archive of several arrays; give one .npy file")
    if magic != b"\x93NUMPY":
        raise CliError(f"{path}: not a .npy file (it does not start with NumPy's \\x93NUMPY header)")
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a directory, not a .npy file") from None
    except PermissionError:
        raise CliError(f"{path}: permission denied") from None
    except (ValueError, OSError, EOFError) as error:
        raise CliError(f"{path}: not a readable .npy file ({error})") from None
    if not isinstance(array, np.ndarray):
        raise CliError(f"{path}: holds several arrays (.npz); give one .npy file")
    if array.dtype.kind != "f" or array.dtype.itemsize not in (2, 4):
        raise CliError(
            f"{path}: holds {array.dtype} data; Round takes float32 or float16 "
            "(DML_TENSOR_DATA_TYPE_FLOAT32, FLOAT16; DirectML's Round has no integer or FLOAT64 form)"
        )
    return array


def _chunks(total: int, step: int) -> Iterator[tuple[int, int]]:
    for start in range(0, total, step):
        yield start, min(total, start + step)


def round_file(
    source_path: Path,
    target_path: Path,
    mode: AnyRoundingMode,
    device: Device | None,
    *,
    chunk_bytes: int = CHUNK_BYTES,
    progress: bool | None = None,
) -> int:
    """Round ``source_path`` into ``target_path`` chunk by chunk; the target appears only when complete.

    Returns the number of elements rounded.
    """
    from dmlpy.runtime import round as dml_round

    source = _load_npy(source_path)
    fortran = bool(source.flags.f_contiguous and not source.flags.c_contiguous)
    order: Literal["C", "F"] = "F" if fortran else "C"
    native = source.dtype.newbyteorder("=")
    show = progress if progress is not None else source.nbytes > PROGRESS_THRESHOLD_BYTES
    bar = Progress(source.nbytes, show)
    temporary = target_path.with_name(f".{target_path.name}.{os.getpid()}.tmp")
    try:
        if source.size == 0:
            with temporary.open("wb") as handle:
                np.save(handle, np.asarray(source), allow_pickle=False)
        else:
            target = np.lib.format.open_memmap(
                temporary, mode="w+", dtype=source.dtype, shape=source.shape, fortran_order=fortran
            )
            flat_source = source.reshape(-1, order=order)
            flat_target = target.reshape(-1, order=order)
            step = max(1, chunk_bytes // source.itemsize)
            work = np.empty(min(step, source.size), dtype=native)
            for start, stop in _chunks(source.size, step):
                chunk = work[: stop - start]
                chunk[...] = flat_source[start:stop]
                dml_round(chunk, mode, out=chunk, device=device)
                flat_target[start:stop] = chunk
                bar.update(stop * source.itemsize)
            target.flush()
            del target, flat_target
        os.replace(temporary, target_path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    finally:
        bar.close()
    return int(source.size)


def command_round(args: argparse.Namespace) -> int:
    """Round a .npy file with ELEMENT_WISE_ROUND; refuse to overwrite the input unless --in-place."""
    source = Path(args.input)
    target = Path(args.output) if args.output is not None else None
    if target is None:
        if not args.in_place:
            raise CliError("give OUT.npy, or --in-place to replace IN.npy")
        target = source
    mode = _parse_mode(args.mode)
    same = source.resolve() == target.resolve() or (
        source.exists() and target.exists() and os.path.samefile(source, target)
    )
    if same and not args.in_place:
        raise CliError(f"{target} is the input file; refusing to overwrite it without --in-place")
    if target.is_dir():
        raise CliError(f"{target} is a directory; give the output file's name")
    if not target.parent.is_dir():
        raise CliError(f"{target.parent}: no such directory for the output")
    if not os.access(target.parent, os.W_OK):
        raise CliError(f"{target.parent}: not writable, so {target.name} cannot be written there")
    if args.chunk_bytes is not None and args.chunk_bytes < 1:
        raise CliError("--chunk-bytes must be at least 1")
    device = _pick_device(args.device)
    progress = True if args.progress else (False if args.quiet else None)
    count = round_file(source, target, mode, device, chunk_bytes=args.chunk_bytes or CHUNK_BYTES, progress=progress)
    if not args.quiet:
        plural = "" if count == 1 else "s"
        print(f"rounded {count} element{plural} ({mode.c_name}) from {source} into {target}", file=sys.stderr)
    return EXIT_OK


# --------------------------------------------------------------------------------------------------------------
# The parser and main


def _add_descriptor_arguments(parser: argparse.ArgumentParser, level_help: str) -> None:
    parser.add_argument(
        "descriptor", metavar="DESC.json", help="descriptor as JSON, C or snake_case names ('-': stdin)"
    )
    parser.add_argument("--feature-level", metavar="LEVEL", help=level_help)


def _device_index(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--device takes a number from `dmlpy devices`, not {text!r}") from None


COMMANDS: dict[str, tuple[Callable[[argparse.Namespace], int], str]] = {
    "demo": (command_demo, "run the seed example in every rounding mode on the default device"),
    "devices": (command_devices, "list OpenCL devices, the default, and what dmlpy supports on each"),
    "validate": (command_validate, "validate a descriptor (JSON) and show its memory layout and sizes"),
    "explain": (command_explain, "show the OpenCL kernel source and build options for a descriptor"),
    "round": (command_round, "round a float32/float16 .npy file on an OpenCL device"),
    "schema": (command_schema, "print the JSON Schema of the descriptors"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dmlpy",
        description="DirectML's operator-descriptor model on OpenCL. Exit status: 0 ok, 1 invalid descriptor, "
        "2 unreadable input or bad arguments.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    parsers = {
        name: commands.add_parser(name, help=help_text, description=help_text)
        for name, (_, help_text) in COMMANDS.items()
    }
    _add_descriptor_arguments(
        parsers["validate"], f"2_1, 2.1 or DML_FEATURE_LEVEL_2_1 (default: the highest, {HIGHEST_LEVEL.c_name})"
    )
    _add_descriptor_arguments(parsers["explain"], f"validate at this level first (default {HIGHEST_LEVEL.c_name})")
    rounder = parsers["round"]
    rounder.add_argument("input", metavar="IN.npy")
    rounder.add_argument("output", metavar="OUT.npy", nargs="?", help="may be left out with --in-place")
    rounder.add_argument(
        "--mode",
        default="half_to_even",
        help="half_to_even (default), half_away_from_zero, toward_zero, or a DML_ROUNDING_MODE name or number",
    )
    rounder.add_argument("--device", type=_device_index, metavar="N", help="device number from `dmlpy devices`")
    rounder.add_argument("--in-place", action="store_true", help="allow OUT to be IN (replaced atomically)")
    rounder.add_argument("--progress", action="store_true", help="always show the progress bar (default: > 64 MiB)")
    rounder.add_argument("--quiet", action="store_true", help="no progress bar and no summary line")
    rounder.add_argument("--chunk-bytes", type=int, help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler, _ = COMMANDS[args.command]
    prefix = f"dmlpy {args.command}"
    try:
        return handler(args)
    except CliError as error:
        print(f"{prefix}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except DescriptorProblems as problems:
        for line in problems.problems:
            print(f"{prefix}: {line}", file=sys.stderr)
        return EXIT_INVALID
    except DmlError as error:
        print(f"{prefix}: {type(error).__name__}: {str(error).splitlines()[0]}", file=sys.stderr)
        return EXIT_INVALID
    except BrokenPipeError:
        # The reader went away (`dmlpy schema | head`): stop quietly, as other command-line tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        print(f"{prefix}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as error:
        print(
            f"{prefix}: {error.strerror or error}" + (f": {error.filename}" if error.filename else ""), file=sys.stderr
        )
        return EXIT_BAD_INPUT
    except Exception as error:
        if os.environ.get("DMLPY_TRACEBACK"):
            raise
        print(
            f"{prefix}: internal error: {type(error).__name__}: {error} (DMLPY_TRACEBACK=1 shows the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
