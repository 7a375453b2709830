"""The kernel of a graph's group anchored by a reduction or a normalization (dmlpy/graph/anchored.py): the anchor's
own kernel (``opencl/reduce.cl``, ``opencl/normalize.cl``) with FUSED 1 and ``opencl/anchored.h``'s #define lines
written before it: the group's tensors, the prologue's statements computing each element the anchor reads, and
the epilogue's statements taking each result to the group's stores.

The statements are the element-wise template's (dmlpy/kernels/elementwise.py: ``Statement``, ``load_name``,
``value_name``), each one operator's ``expression``, rounded to its edge's data type as the nodes one by one
store it; the vector walks run the prologue once per lane, each lane's statements in a block of their own, so the
one list of statements serves every walk. Values are named by position and operators by their type alone: no user
text reaches the source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dmlpy.kernels.elementwise import Statement, ValueType, load_name, macro, statement_line
from dmlpy.kernels.launch import LaunchProfile, LoweredOperator
from dmlpy.kernels.reduction import LANES, reduce_walk, reduction_kernel, reduction_layout

ANCHOR_VALUE = "anchor"
"""The name of the anchor's result, rounded to its output's data type, in the epilogue's statements."""

_LAID_OUT = frozenset({"KEPT_RANK", "REDUCED_RANK", "WALK", "BAND", "REDUCTION_TENSORS"})
"""The anchor's -D options that follow from the layout, which the group's tensors change: set again here."""


@dataclass(frozen=True)
class AnchoredGroup:
    """What the anchored kernel computes, over tensors named by their position in binding order."""

    tensors: tuple[ValueType, ...]
    stored: frozenset[int]
    """The tensors the kernel writes (the others it only reads)."""
    element_loads: tuple[int, ...]
    """The tensors the prologue reads at each element (the anchor's input itself when there is no prologue)."""
    prologue: tuple[Statement, ...]
    """The statements computing the element, values named ``value_name(n)`` for n from 0."""
    element: str
    """The name of the element the anchor reads: a load, or the prologue's last value."""
    result: ValueType
    """The anchor's output type."""
    epilogue_loads: tuple[int, ...]
    epilogue: tuple[Statement, ...]
    """The statements after the anchor, values named ``value_name(n)`` for n from ``len(prologue)``."""
    stores: tuple[tuple[int, str], ...]
    """(tensor, value name) written at each result's place."""
    anchor_reads: tuple[tuple[str, int], ...] = ()
    """The anchor's own other inputs as normalize.cl reads them (SCALE_AT, BIAS_AT) and the tensor bound for each."""


def anchored_kernel(
    anchor: LoweredOperator,
    group: AnchoredGroup,
    sizes: Sequence[int],
    strides: Sequence[Sequence[int]],
    axes: Sequence[int],
    profile: LaunchProfile,
    *,
    vectorised: bool = False,
) -> LoweredOperator:
    """``anchor`` (the anchor operator's own lowering: its kernel and -D options) over ``group``'s tensors, of
    ``strides`` (one tuple per tensor, in the anchor input's ``sizes``, 0 where a tensor holds one element along a
    dimension) reduced along ``axes``. reduce.cl walks with vectors where they serve the function (``vectorised``,
    reduction.py's vector_walks) and every tensor the prologue reads steps by 1 where the walk reads (reduce_walk)."""
    layout, kept_rank = reduction_layout(sizes, strides, axes)
    spec = anchor.kernel
    defines = [(name, value) for name, value in spec.defines if name not in _LAID_OUT]
    defines += [("FUSED", "1"), ("REDUCTION_TENSORS", str(len(group.tensors)))]
    groups_per_work_item = 1
    if any(name == "WALK" for name, _ in spec.defines):
        walk, groups_per_work_item = reduce_walk(layout, kept_rank, vectorised, group.element_loads)
        defines += walk
    prelude = spec.prelude + _prelude(group)
    return reduction_kernel(
        spec.source_name, spec.kernel_name, tuple(defines), layout, kept_rank, profile, prelude, groups_per_work_item
    )


def _prelude(group: AnchoredGroup) -> str:
    """anchored.h's #define lines for ``group``."""
    count = len(group.tensors)
    pointers = [
        f"__global {'' if k in group.stored else 'const '}{tensor.element} *tensor{k}"
        for k, tensor in enumerate(group.tensors)
    ]
    title = " -> ".join(s.operator for s in (*group.prologue, *group.epilogue))
    lines = [
        f"// Fused around the anchor: {title}",
        "#define FUSED_PARAMETERS " + ", ".join(f"{p}, ulong tensor{k}_offset" for k, p in enumerate(pointers)),
        "#define FUSED_STRIDES " + "".join(f", uint8 strides{k}" for k in range(count)),
        "#define FUSED_MEMBERS " + " ".join(f"{p};" for p in pointers),
        "#define FUSED_POINTERS {" + ", ".join(f"tensor{k}" for k in range(count)) + "}",
        "#define FUSED_STRIDE_LIST {" + ", ".join(f"strides{k}" for k in range(count)) + "}",
        "#define FUSED_OFFSET_LIST {" + ", ".join(f"tensor{k}_offset" for k in range(count)) + "}",
    ]
    prologue = [statement_line(n, statement) for n, statement in enumerate(group.prologue)]
    element = [*_loads(group, group.element_loads, "(i)"), *prologue, f"return {group.element};"]
    lines.append(macro("FUSED_ELEMENT(t, at, i)", element))
    lines.append(macro("FUSED_LANES(t, at, i)", _lanes(group, prologue)))
    result = group.result
    rounded = "TO_HALF(result)" if result.half else f"({result.register})result"
    store = [f"const {result.register} {ANCHOR_VALUE} = {rounded};"]
    store += _loads(group, group.epilogue_loads, "0")
    store += [statement_line(n, statement) for n, statement in enumerate(group.epilogue, len(group.prologue))]
    for k, name in group.stores:
        value = f"half_value_bits({name})" if group.tensors[k].half else name
        store.append(f"(t)->tensor{k}[(at)[{k}]] = {value};")
    lines.append(macro("FUSED_STORE(t, result, at)", store))
    for name, k in group.anchor_reads:
        lines.append(f"#define {name}(t, at) {_read(group.tensors[k], k, '0')}")
    return "\n".join(lines) + "\n"


def _read(tensor: ValueType, k: int, i: str) -> str:
    """Tensor ``k``'s element at its place (at)[k] + ``i``, as a value."""
    element = f"(t)->tensor{k}[(at)[{k}] + {i}]"
    return f"half_bits_to_float({element})" if tensor.half else element


def _loads(group: AnchoredGroup, tensors: Sequence[int], i: str) -> list[str]:
    """The loads of ``tensors`` at their places + ``i``, each named ``load_name(k)``."""
    return [f"const {group.tensors[k].register} {load_name(k)} = {_read(group.tensors[k], k, i)};" for k in tensors]


def _lanes(group: AnchoredGroup, prologue: Sequence[str]) -> list[str]:
    """FUSED_LANES: each tensor's eight elements from (at)[k] + i read as one vector (reduce.cl's LOAD8), then per
    lane, in a block of its own (the same names in each), the loads of that lane and the prologue's statements, the
    element kept as a scalar of its own; the float8 is made of them at once (a vector written component by
    component reads, to Oclgrind's uninitialised pass, as one read before it was written)."""
    lines = []
    for k in group.element_loads:
        element = group.tensors[k].element
        lines.append(f"const {element}{LANES} lanes{k} = ({element}{LANES})LOAD8((t)->tensor{k} + (at)[{k}] + (i));")
    lines.append("float " + ", ".join(f"element{lane}" for lane in range(LANES)) + ";")
    for lane in range(LANES):
        block = []
        for k in group.element_loads:
            tensor = group.tensors[k]
            component = f"lanes{k}.s{lane}"
            value = f"half_bits_to_float({component})" if tensor.half else component
            block.append(f"const {tensor.register} {load_name(k)} = {value};")
        block += prologue
        block.append(f"element{lane} = {group.element};")
        lines.append("{ " + " ".join(block) + " }")
    lines.append(f"return (float{LANES})(" + ", ".join(f"element{lane}" for lane in range(LANES)) + ");")
    return lines
