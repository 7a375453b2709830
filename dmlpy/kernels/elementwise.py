"""The element-wise source generator: the specialisation of the one template, ``opencl/elementwise.cl``, for a
single operator (``OperatorDescBase.lower``) and for a graph's fused group (dmlpy/graph/fusion.py) alike.

The caller names the values: a tensor read by the kernel is ``load_name(k)`` (k its position in binding order),
the value of the n-th statement ``value_name(n)``; each statement is one operator's ``expression`` of those
names, built from the helpers of ``opencl/elementwise_ops.h``. The generated #define lines hold the types, the
statements and the loop shape, never user text: values are named by position, operators by their type alone,
so kernels of one shape share one program (the source is the program cache's key).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dmlpy.dtypes import DATA_TYPES, AnyDataType
from dmlpy.enums import TensorDataType
from dmlpy.kernels.coalescing import ElementwiseLayout
from dmlpy.kernels.launch import ACROSS_GROUP, PACKED_RUN, LaunchProfile, LoweredOperator
from dmlpy.kernels.source import KernelSpec

MAX_TENSORS = 9
"""Tensors the template binds at most (opencl/elementwise.cl's parameter list): ELEMENT_WISE_QUANTIZED_LINEAR_ADD's
eight inputs and its output."""
ELEMENTS_PER_ITEM = 1024
"""Consecutive elements per work-item under the "cpu" profile when not packed (rows or the strided walk)."""
LANES = 4
"""Consecutive elements per work-item and step under the "gpu" profile when packed (elementwise.cl's LANES loop), for
every type: on an NVIDIA H100, 16 lanes for 8-bit tensors (16 bytes a vector) measured slower than 4 (16M UINT8
LOGICAL_AND: 0.41 against 0.84 of the copy kernel), and FLOAT32 and the mixed rows ran at 1.05-1.20 at 4."""

_REGISTER_TYPES: dict[AnyDataType, str] = {
    TensorDataType.FLOAT32: "float",
    TensorDataType.FLOAT16: "float",  # a half's value, exact in float
    TensorDataType.UINT32: "uint",
    TensorDataType.UINT16: "ushort",
    TensorDataType.UINT8: "uchar",
    TensorDataType.INT32: "int",
    TensorDataType.INT16: "short",
    TensorDataType.INT8: "char",
    TensorDataType.UINT64: "ulong",
    TensorDataType.INT64: "long",
    TensorDataType.UINT4: "uchar",  # two a byte in memory (elementwise.cl's LOAD_UINT4, STORE_UINT4)
    TensorDataType.INT4: "char",
}
"""The type a value of each data type has in the kernel's registers."""

_ACCESS: dict[AnyDataType, str] = {
    TensorDataType.FLOAT16: "_HALF",
    TensorDataType.INT4: "_INT4",
    TensorDataType.UINT4: "_UINT4",
}
"""elementwise.cl's load and store macros for the types not read and written plainly."""

_BITS_TYPES = {8: "uchar", 16: "ushort", 32: "uint", 64: "ulong"}
"""The unsigned type a copy moves an element of each width as: its bits, unchanged."""


@dataclass(frozen=True)
class ValueType:
    """How the kernel holds one tensor: its buffer's OpenCL type, its values' type, and how elementwise.cl's
    loads and stores reach it: plainly, ``_HALF`` (a FLOAT16 through its bits, as a float,
    ``opencl/half_bits.h``), or ``_INT4`` / ``_UINT4`` (a 4-bit element, two a byte)."""

    storage: str
    register: str
    access: str = ""

    @property
    def half(self) -> bool:
        return self.access == "_HALF"

    @property
    def nibble(self) -> bool:
        return self.access in ("_INT4", "_UINT4")

    @property
    def element(self) -> str:
        """The type of an element as the kernel reads and writes it: a half's bits (``ushort``), else ``storage``."""
        return "ushort" if self.half else self.storage


ABSENT = ValueType("uchar", "uchar")
"""An absent optional tensor of a single operator: bound (the argument convention has every slot), never read."""


def value_type(data_type: AnyDataType) -> ValueType | None:
    """``data_type``'s values as arithmetic sees them (a FLOAT16 as a float), None where the kernel has no
    register type for them (FLOAT64: double needs cl_khr_fp64, which no DirectML operator may ask of a device)."""
    register = _REGISTER_TYPES.get(data_type)
    if register is None:
        return None
    return ValueType(DATA_TYPES[data_type].opencl_storage, register, _ACCESS.get(data_type, ""))


def bits_type(data_type: AnyDataType) -> ValueType:
    """``data_type``'s elements as the unsigned integer of their width, for a copy: NaN payloads, signalling
    NaNs, -0 and 64-bit types move unchanged (FLOAT64 needs no cl_khr_fp64)."""
    bits = _BITS_TYPES[DATA_TYPES[data_type].bits]
    return ValueType(bits, bits)


def load_name(tensor: int) -> str:
    """The name of tensor ``tensor``'s value (its position in binding order) in the statements."""
    return f"in{tensor}"


def value_name(position: int) -> str:
    """The name of the value the statement at ``position`` computes."""
    return f"v{position}"


@dataclass(frozen=True)
class Statement:
    """One operator's output: its expression of earlier names, the type it is stored as, and the operator's
    name (a comment in the source)."""

    expression: str
    value: ValueType
    operator: str


def statement_line(position: int, statement: Statement) -> str:
    """``statement`` as the source writes it: its value, named ``value_name(position)``, rounded to a FLOAT16
    edge's data type (TO_HALF, the nearest half as a float) where the nodes one by one would store it."""
    expression = f"TO_HALF({statement.expression})" if statement.value.half else statement.expression
    return f"const {statement.value.register} {value_name(position)} = {expression};  /* {statement.operator} */"


TEMPLATE_OPTIONS = ("-cl-fp32-correctly-rounded-divide-sqrt",)
"""Every template program's build options: OpenCL's float division and sqrt are otherwise allowed 2.5 and 3 ULPs of
error, and QuantizeLinear's true division, SQRT and RECIP must be correctly rounded. Every program has them, not only
those that divide, so that an operator alone and in any fused group is built alike: a built-in may divide inside
(NVIDIA inlines its math library into the module), and its bits must not depend on its neighbours."""


def elementwise_kernel(
    tensors: Sequence[ValueType],
    loads: Sequence[int],
    statements: Sequence[Statement],
    stores: Sequence[tuple[int, int]],
    layout: ElementwiseLayout,
    profile: LaunchProfile,
    *,
    fused: bool,
    may_alias: bool,
) -> LoweredOperator:
    """The template specialised: ``tensors`` bound in binding order, ``loads`` (tensor positions) read into
    ``load_name`` values, ``statements`` computed in order, ``stores`` (tensor, statement) written, over
    ``layout`` (coalesced over ``tensors``) on devices of ``profile``'s kind. ``fused`` names the kernel
    fused_elementwise; ``may_alias`` (a single operator that may run in place) drops restrict and reads every
    value where it is used."""
    inner = [strides[-1] for strides in layout.strides]
    packed = layout.rank == 1 and all(step in (0, 1) for step in inner)
    rows = not packed and not profile.grid_stride and all(step in (0, 1) for step in inner)
    prologue: list[str] = []
    body: list[str] = []
    once_loaded = [k for k in loads if packed and inner[k] == 0 and not may_alias]
    for k in loads:
        tensor = tensors[k]
        once = k in once_loaded
        target = prologue if once else body
        target.append(f"const {tensor.register} {load_name(k)} = LOAD{'_ONE' if once else ''}{tensor.access}({k});")
    body += [statement_line(position, statement) for position, statement in enumerate(statements)]
    for k, position in stores:
        body.append(f"STORE{tensors[k].access}({k}, {value_name(position)});")
    title = " -> ".join(statement.operator for statement in statements)
    lines = [f"// Fused: {title}" if fused else f"// {title}", f"#define TENSOR_COUNT {len(tensors)}"]
    for k, tensor in enumerate(tensors):
        lines.append(f"#define TENSOR{k}_T {tensor.storage}")
        lines.append(f"#define STEP{k} {inner[k] if inner[k] in (0, 1) else 1}")
    lines.append(macro("FUSED_PROLOGUE", prologue))
    lines.append(macro("FUSED_BODY", body))
    defines = [("PACKED", "1" if packed else "0"), ("ROWS", "1" if rows else "0")]
    if rows:
        defines += [("RANK", str(layout.rank - 1)), ("ROW_DIM", str(layout.rank - 1))]
    else:
        defines += [("RANK", str(layout.rank))]
    defines += [("FUSED", "1" if fused else "0"), ("MAY_ALIAS", "1" if may_alias else "0")]
    # A group of lanes a step where every tensor is packed (each output stepping by 1) and none holds 4-bit elements.
    grouped = packed and profile.grid_stride and all(inner[k] == 1 for k, _ in stores)
    lanes = LANES if grouped and not any(tensor.nibble for tensor in tensors) else 1
    if lanes > 1:
        defines += [("LANES", str(lanes))]
        lines += _lane_macros(tensors, [k for k in loads if k not in once_loaded], [k for k, _ in stores], inner, lanes)
    pairs = any(tensors[k].nibble for k, _ in stores)
    if pairs:
        defines += [("NIBBLE_PAIRS", "1")]
    paired = (packed or rows) and _pairs_align(tensors, layout)
    if paired:
        defines += [("PAIRED", "1")]
        nibble_outputs = [k for k, _ in stores if tensors[k].nibble]
        lines.append(macro("PAIR_BEGIN", [f"uchar nibbles{k} = 0;" for k in nibble_outputs]))
        lines.append(macro("PAIR_END", [f"STORE_PAIR({k});" for k in nibble_outputs]))
    kernel = KernelSpec(
        "elementwise.cl",
        "fused_elementwise" if fused else "elementwise",
        tuple(defines),
        TEMPLATE_OPTIONS,
        "\n".join(lines) + "\n",
    )
    # Under the "gpu" shape a work-item takes a group of lanes per step, or a pair where stores are paired or loops
    # count pairs.
    in_pairs = pairs or paired
    if (
        packed and profile.lanes_across_work_items and not profile.grid_stride
    ):  # one element a work-item (one pair: the two share a byte)
        return profile.lowered(kernel, layout, 2 if in_pairs else 1, work_group_size=ACROSS_GROUP)
    run_length = PACKED_RUN if packed else ELEMENTS_PER_ITEM  # even, as NIBBLE_PAIRS needs
    return profile.lowered(kernel, layout, run_length, vector_width=2 if in_pairs else lanes)


def _lane_macros(
    tensors: Sequence[ValueType], loads: Sequence[int], stores: Sequence[int], inner: Sequence[int], lanes: int
) -> list[str]:
    """elementwise.cl's LANES macros: each of ``loads`` read as a vector of ``lanes`` elements of group ``group``
    (a tensor stepping by 0: its one value in every lane), each of ``stores`` declared as one and written."""
    loaded = []
    for k in loads:
        element = tensors[k].element
        pointer = f"(__global const {element} *)tensor{k} + tensor{k}_offset"
        vector = f"vload{lanes}(group, {pointer})" if inner[k] else f"({element}{lanes})(*({pointer}))"
        loaded.append(f"const {element}{lanes} lanes{k} = {vector};")
    return [
        macro("LANE_LOADS", loaded),
        macro("LANE_OUTPUTS", [f"{tensors[k].element}{lanes} lanes{k};" for k in stores]),
        macro(
            "LANE_STORES",
            [
                f"vstore{lanes}(lanes{k}, group, (__global {tensors[k].element} *)tensor{k} + tensor{k}_offset);"
                for k in stores
            ],
        ),
    ]


def _pairs_align(tensors: Sequence[ValueType], layout: ElementwiseLayout) -> bool:
    """Whether a plain loop (PACKED or ROWS) can take two elements an iteration (elementwise.cl's PAIRED): there
    are 4-bit tensors, and each one stepping by 1 starts every row at an even element (tensors start at even
    elements: binding offsets count bytes). Rows start at even elements of the walk where the row length is
    even (or there is one row) and every outer stride is."""
    nibbles = [k for k, tensor in enumerate(tensors) if tensor.nibble]
    if not nibbles:
        return False
    *outer_sizes, row_length = layout.sizes
    stepping = [k for k in nibbles if layout.strides[k][-1] == 1]
    even_rows = not outer_sizes or row_length % 2 == 0
    return even_rows and all(stride % 2 == 0 for k in stepping for stride in layout.strides[k][:-1])


def macro(name: str, statements: Sequence[str]) -> str:
    """A #define of ``statements``, one per continued line, as the program's source shows it."""
    if not statements:
        return f"#define {name}"
    body = " \\\n".join(f"    {statement}" for statement in statements)
    return f"#define {name} \\\n{body}"
