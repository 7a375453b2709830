"""Golden tests of lowering, without OpenCL: ``dmlpy.kernels.coalesce`` and each operator's ``desc.lower()``.

The coalescing rule (dmlpy/kernels/spec.py): drop size-1 dimensions (a single element keeps one dimension of size 1,
every stride 1); then merge neighbours d, d+1 when, for every tensor, stride[d] == stride[d+1] * size[d+1]. A
layout is packed when it ends at rank 1 with stride 1 in every tensor. Every expected layout below is worked
out by hand from that rule (the comment of each case says how), and every expected -D define from the kernel's
interface (the header comments of opencl/element_wise_round.cl, elementwise.cl, ext_round.cl and
elementwise_ops.h), not read back from dmlpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

import dmlpy as dml
from dmlpy.extensions import (
    ExtElementWiseQuantizeLinearOperatorDesc,
    ExtElementWiseRoundOperatorDesc,
    ExtRoundingMode,
    ExtTensorDataType,
)
from dmlpy.kernels import ElementwiseLayout, KernelSpec, LaunchProfile, LoweredOperator, coalesce
from tests.helpers.modes import NGRAPH_MODES

T = dml.TensorDataType

# (sizes, strides per tensor) -> (sizes, strides per tensor) after coalescing.
COALESCE_CASES = {
    # Packed NCHW in and out: every neighbour pair is contiguous (60 = 20*3, 20 = 5*4, 5 = 1*5) in both
    # tensors, so all four dimensions merge into one run of 120: rank 1, stride 1, packed.
    "packed": (((2, 3, 4, 5), ((60, 20, 5, 1), (60, 20, 5, 1))), ((120,), ((1,), (1,)))),
    # Padded rows read into a packed output: N and C (size 1) are dropped; H, W do not merge because the input
    # row stride 4 is not 1*3 (one element of padding per row), though the output's 3 = 1*3 would.
    "padded_rows": (((1, 1, 2, 3), ((8, 8, 4, 1), (6, 6, 3, 1))), ((2, 3), ((4, 1), (3, 1)))),
    # Broadcast over N (input stride 0): C, HW merge (input 4 = 1*4, output 4 = 1*4), giving 12 elements of
    # stride 1; N stays apart because the input's 0 is not 1*12.
    "broadcast": (((2, 3, 4), ((0, 4, 1), (12, 4, 1))), ((2, 12), ((0, 1), (12, 1)))),
    # A scalar broadcast to every element: 0 = 0*3 for the input and 3 = 1*3 for the output, so both
    # dimensions merge, but the input keeps its 0 stride: rank 1, not packed.
    "broadcast_scalar": (((2, 3), ((0, 0), (3, 1))), ((6,), ((0,), (1,)))),
    # NHWC memory read as NCHW (2, 3, 4, 5): input strides N=H*W*C=60, C=1, H=W*C=15, W=C=3. N|C: 60 != 1*3;
    # C|H: 1 != 15*4; H|W: 15 = 3*5 and the packed output's 5 = 1*5, so H and W merge into 20 of stride 3.
    "permuted_nhwc_as_nchw": (
        ((2, 3, 4, 5), ((60, 1, 15, 3), (60, 20, 5, 1))),
        ((2, 3, 20), ((60, 1, 3), (60, 20, 1))),
    ),
    # Size-1 dimensions dropped, with junk strides on them: (3, 1, 4) keeps (3, 4), and input 8 = 2*4, output
    # 4 = 1*4 merge those into 12 elements; the input's stride 2 keeps the layout from being packed.
    "size_1_dims_dropped": (((3, 1, 4), ((8, 99, 2), (4, 4, 1))), ((12,), ((2,), (1,)))),
    # Size-1 dimensions around a packed 3x4: dropped, then 4 = 1*4 merges the rest: packed rank 1.
    "size_1_dims_packed": (((1, 3, 1, 4), ((12, 4, 4, 1), (12, 4, 4, 1))), ((12,), ((1,), (1,)))),
    # One element: every dimension has size 1, one stays, and any stride reads the same address, so every
    # tensor's stride is 1: packed.
    "single_element": (((1, 1, 1, 1), ((0, 0, 0, 0), (7, 5, 3, 2))), ((1,), ((1,), (1,)))),
    # In place (the same layout on both sides) with the rows of each N padded (24 != 4*3): C and W merge
    # (4 = 1*4 in both), N stays: (2, 12) with strides (24, 1) twice.
    "in_place": (((2, 3, 4), ((24, 4, 1), (24, 4, 1))), ((2, 12), ((24, 1), (24, 1)))),
    # Four tensors as QuantizeLinear binds them, per-axis scale and zero point on C (strides (0, 1, 0)):
    # neither neighbour pair merges for the scale (0 != 1*3, 1 != 0*4), so the rank stays 3.
    "per_axis_parameters": (
        ((2, 3, 4), ((12, 4, 1), (0, 1, 0), (0, 1, 0), (12, 4, 1))),
        ((2, 3, 4), ((12, 4, 1), (0, 1, 0), (0, 1, 0), (12, 4, 1))),
    ),
}


@pytest.mark.parametrize(("given", "expected"), list(COALESCE_CASES.values()), ids=list(COALESCE_CASES))
def test_coalesce(given: Any, expected: Any) -> None:
    sizes, strides = given
    want_sizes, want_strides = expected
    layout = coalesce(sizes, strides)
    count = 1
    for size in sizes:
        count *= size
    assert layout == ElementwiseLayout(element_count=count, sizes=want_sizes, strides=want_strides)
    assert layout.rank == len(want_sizes)
    assert layout.packed == (len(want_sizes) == 1 and all(s == (1,) for s in want_strides))


@pytest.mark.parametrize(
    ("case", "packed"),
    [
        ("packed", True),
        ("padded_rows", False),
        ("broadcast", False),
        ("broadcast_scalar", False),
        ("permuted_nhwc_as_nchw", False),
        ("size_1_dims_dropped", False),
        ("size_1_dims_packed", True),
        ("single_element", True),
        ("in_place", False),
    ],
)
def test_packed_only_for_one_unit_stride_run(case: str, packed: bool) -> None:
    sizes, strides = COALESCE_CASES[case][0]
    assert coalesce(sizes, strides).packed is packed


# --------------------------------------------------------------------------------------------------- descriptors


def buffer(data_type: Any, sizes: Sequence[int], strides: Sequence[int] | None = None) -> dml.BufferTensorDesc:
    return dml.BufferTensorDesc(data_type=data_type, sizes=tuple(sizes), strides=strides)


def round_desc(
    data_type: T = T.FLOAT32,
    mode: dml.RoundingMode = dml.RoundingMode.HALVES_TO_NEAREST_EVEN,
    sizes: Sequence[int] = (2, 3, 4, 5),
    input_strides: Sequence[int] | None = None,
    output_strides: Sequence[int] | None = None,
) -> dml.ElementWiseRoundOperatorDesc:
    return dml.ElementWiseRoundOperatorDesc(
        input_tensor=buffer(data_type, sizes, input_strides),
        output_tensor=buffer(data_type, sizes, output_strides),
        rounding_mode=mode,
    )


def round_defines(half: bool, mode: int, rank: int, *, tiled: bool = False) -> tuple[tuple[str, str], ...]:
    """element_wise_round.cl's interface: DML_FLOAT16 (half storage), ROUNDING_MODE (DML_ROUNDING_MODE's value, the
    only word on the arithmetic: the kernel rounds with elementwise_ops.h's ROUNDING_MODE_<value>, no function name
    comes from Python), RANK (0: the packed vector kernel), VECTOR_WIDTH 8 (float8, one 256-bit register), TILED
    (a transpose, by 8 x 8 tiles), ELEMENTS_PER_ITEM 2048 (a multiple of 8)."""
    return (
        ("DML_FLOAT16", "1" if half else "0"),
        ("ROUNDING_MODE", str(mode)),
        ("RANK", str(rank)),
        ("VECTOR_WIDTH", "8"),
        ("TILED", "1" if tiled else "0"),
        ("GRID_STRIDE", "0"),
        ("ELEMENTS_PER_ITEM", "2048"),
    )


# DirectML's three modes -> (the OpenCL built-in `explain` names, DML_ROUNDING_MODE's value in DirectML.h).
# TOWARD_INFINITY is DirectML's nearest with halves away from zero: OpenCL's round(), not ceil().
ROUND_FUNCTIONS = {
    dml.RoundingMode.HALVES_TO_NEAREST_EVEN: ("rint", 0),
    dml.RoundingMode.TOWARD_ZERO: ("trunc", 1),
    dml.RoundingMode.TOWARD_INFINITY: ("round", 2),
}


GPU = LaunchProfile("gpu", vector_width=4, work_group_size=256, grid_size=256 * 40)
"""A "gpu" launch profile as the runtime would make it for a device of 10 compute units and 1024 work-items per
group (10 x 1024 x 4 = 40 groups of 256)."""


@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
def test_round_packed_under_the_gpu_profile(data_type: T) -> None:
    """The grid-stride shape: GRID_STRIDE 1 and no ELEMENTS_PER_ITEM, 4-wide vectors, one work-item per vector
    of a pass, rounded up to whole work-groups and capped at the profile's grid."""
    small = round_desc(data_type, dml.RoundingMode.TOWARD_ZERO).lower(GPU)
    half = "1" if data_type == T.FLOAT16 else "0"
    assert small.kernel.defines == (
        ("DML_FLOAT16", half),
        ("ROUNDING_MODE", "1"),
        ("RANK", "0"),
        ("VECTOR_WIDTH", "4"),
        ("TILED", "0"),
        ("GRID_STRIDE", "1"),
    )
    assert small.elements_per_work_item == 4 and small.profile == GPU
    assert small.global_size == 256  # 120 elements: 30 vectors, one work-group
    big = dml.BufferTensorDesc(data_type=data_type, sizes=(1, 1, 1000, 1000))
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=big, output_tensor=big)
    assert desc.lower(GPU).global_size == 256 * 40  # 250,000 vectors: the grid, then the loop strides


def test_strided_round_under_the_gpu_profile_steps_by_elements() -> None:
    desc = round_desc(T.FLOAT32, dml.RoundingMode.HALVES_TO_NEAREST_EVEN, input_strides=(1, 1, 1, 10))
    lowered = desc.lower(GPU)
    assert ("GRID_STRIDE", "1") in lowered.kernel.defines and lowered.elements_per_work_item == 1
    assert lowered.global_size == 256  # 120 elements, one element per work-item: one work-group


@pytest.mark.parametrize("mode", list(ROUND_FUNCTIONS), ids=lambda m: m.name)
def test_round_explain_names_the_function_from_the_mode(mode: dml.RoundingMode) -> None:
    function, value = ROUND_FUNCTIONS[mode]
    assert round_desc(T.FLOAT32, mode).explain_lines() == [
        f"RoundingMode {mode.c_name} -> OpenCL built-in {function}()"
        f" (ROUNDING_MODE={value}: elementwise_ops.h's ROUNDING_MODE_{value})"
    ]


@pytest.mark.parametrize(
    ("data_type", "mode"),
    [(t, m) for t in (T.FLOAT32, T.FLOAT16) for m in ROUND_FUNCTIONS],
    ids=lambda value: value.name,
)
def test_round_packed_kernel_spec(data_type: T, mode: dml.RoundingMode) -> None:
    _, value = ROUND_FUNCTIONS[mode]
    lowered = round_desc(data_type, mode).lower()
    defines = round_defines(data_type == T.FLOAT16, value, 0)
    expected = KernelSpec("element_wise_round.cl", "element_wise_round", defines)
    assert lowered == LoweredOperator(
        kernel=expected, layout=ElementwiseLayout(120, (120,), ((1,), (1,))), elements_per_work_item=2048
    )
    assert lowered.kernel.options == ()
    assert lowered.global_size == 1  # 120 elements, 2048 per work-item


@pytest.mark.parametrize("mode", list(ROUND_FUNCTIONS), ids=lambda m: m.name)
@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
def test_round_strided_kernel_spec_has_the_coalesced_rank(data_type: T, mode: dml.RoundingMode) -> None:
    # The NHWC-as-NCHW case above: rank 3 after coalescing, so RANK=3 (not 0, not 4).
    _, value = ROUND_FUNCTIONS[mode]
    lowered = round_desc(data_type, mode, input_strides=(60, 1, 15, 3)).lower()
    assert lowered.kernel.defines == round_defines(data_type == T.FLOAT16, value, 3)
    assert lowered.layout == ElementwiseLayout(120, (2, 3, 20), ((60, 1, 3), (60, 20, 1)))


def test_transposes_lower_to_tiles_on_cpus_only() -> None:
    # (2, 16, 9, 12) read as NHWC from NCHW memory: coalesced (2, 108, 16) with the input contiguous along 108
    # and the output along 16. tile_order puts 108 second to last and 16 last (already so), TILED=1; the "gpu"
    # profile keeps the walk.
    sizes = (2, 9, 12, 16)
    desc = round_desc(T.FLOAT32, dml.RoundingMode.TOWARD_ZERO, sizes=sizes, input_strides=(1728, 12, 1, 108))
    lowered = desc.lower()
    assert lowered.kernel.defines == round_defines(False, 1, 3, tiled=True)
    assert lowered.layout == ElementwiseLayout(3456, (2, 108, 16), ((1728, 1, 108), (1728, 16, 1)))
    assert ("TILED", "0") in desc.lower(GPU).kernel.defines
    # Input and output contiguous along one dimension, or a dimension shorter than a tile: no tiles.
    padded = round_desc(T.FLOAT32, dml.RoundingMode.TOWARD_ZERO, input_strides=(120, 40, 10, 1))
    assert ("TILED", "0") in padded.lower().kernel.defines
    short = round_desc(T.FLOAT32, dml.RoundingMode.TOWARD_ZERO, input_strides=(60, 1, 15, 3))
    assert ("TILED", "0") in short.lower().kernel.defines


# (sizes, input strides, output strides) -> (RANK define, coalesced layout); the layouts are the cases above.
ROUND_LAYOUTS = {
    "padded_rows": (((1, 1, 2, 3), (8, 8, 4, 1), None), (2, ElementwiseLayout(6, (2, 3), ((4, 1), (3, 1))))),
    "broadcast": (((1, 2, 3, 4), (0, 0, 4, 1), None), (2, ElementwiseLayout(24, (2, 12), ((0, 1), (12, 1))))),
    "size_1_dims_dropped": (((1, 3, 1, 4), (0, 8, 99, 2), None), (1, ElementwiseLayout(12, (12,), ((2,), (1,))))),
    "single_element": (((1, 1, 1, 1), (0, 0, 0, 0), None), (0, ElementwiseLayout(1, (1,), ((1,), (1,))))),
    "in_place": (((1, 2, 3, 4), (48, 24, 4, 1), (48, 24, 4, 1)), (2, ElementwiseLayout(24, (2, 12), ((24, 1),) * 2))),
}


@pytest.mark.parametrize(("given", "expected"), list(ROUND_LAYOUTS.values()), ids=list(ROUND_LAYOUTS))
def test_round_layouts(given: Any, expected: Any) -> None:
    sizes, input_strides, output_strides = given
    rank, layout = expected
    lowered = round_desc(sizes=sizes, input_strides=input_strides, output_strides=output_strides).lower()
    assert lowered.layout == layout
    assert dict(lowered.kernel.defines)["RANK"] == str(rank)
    assert lowered.global_size == 1


def test_round_global_size_rounds_up() -> None:
    # 5000 elements at 2048 per work-item: 2 full work-items and one with 904 elements.
    assert round_desc(sizes=(1, 1, 1, 5000)).lower().global_size == 3
    assert round_desc(sizes=(1, 1, 2, 2048)).lower().global_size == 2


# ------------------------------------------------------------------------------------------ Quantize / Dequantize

STORAGE = {
    T.FLOAT32: "float",
    T.FLOAT16: "half",
    T.INT32: "int",
    T.UINT32: "uint",
    T.INT16: "short",
    T.UINT16: "ushort",
    T.INT8: "char",
    T.UINT8: "uchar",
}
"""OpenCL storage type of each tensor type (the template reads half through its bits, as a float)."""


def linear_desc(
    dequantize: bool,
    types: tuple[T, T, T | None, T],
    sizes: Sequence[int] = (1, 3, 4, 5),
    parameter_strides: Sequence[int] = (0, 0, 0, 0),
    desc_class: Any = None,
    **extra: Any,
) -> Any:
    input_type, scale_type, zero_point_type, output_type = types
    if desc_class is None:
        desc_class = (
            dml.ElementWiseDequantizeLinearOperatorDesc if dequantize else dml.ElementWiseQuantizeLinearOperatorDesc
        )
    return desc_class(
        input_tensor=buffer(input_type, sizes),
        scale_tensor=buffer(scale_type, sizes, parameter_strides),
        zero_point_tensor=None if zero_point_type is None else buffer(zero_point_type, sizes, parameter_strides),
        output_tensor=buffer(output_type, sizes),
        **extra,
    )


def template_defines(*, packed: bool, rank: int, rows: bool = False, may_alias: bool = False) -> tuple[Any, ...]:
    """opencl/elementwise.cl's loop shape under the "cpu" profile: PACKED (every tensor steps by 1 or 0 along one
    run) loops over 2048 elements per work-item (dmlpy.kernels.PACKED_RUN); ROWS (unit or 0 inner steps over
    more dimensions) walks the RANK dimensions before the row ROW_DIM, 1024 elements per work-item, as does the
    strided walk. FUSED=0 for a single operator; MAY_ALIAS=1 where it may run in place (no restrict)."""
    shape = (("RANK", str(rank - 1)), ("ROW_DIM", str(rank - 1))) if rows else (("RANK", str(rank)),)
    return (
        ("PACKED", "1" if packed else "0"),
        ("ROWS", "1" if rows else "0"),
        *shape,
        ("FUSED", "0"),
        ("MAY_ALIAS", "1" if may_alias else "0"),
        ("GRID_STRIDE", "0"),
        ("ELEMENTS_PER_ITEM", "2048" if packed else "1024"),
    )


def linear_prelude(
    dequantize: bool,
    types: tuple[T, T, T, T],
    has_zero_point: bool,
    steps: Sequence[int],
    rounding: str = "quantize",
    name: str | None = None,
) -> str:
    """The #define lines the template gets for QuantizeLinear or DequantizeLinear (elementwise.cl's header):
    four tensors (an absent zero point bound as uchar, never read), the one-value scale and zero point read once
    (LOAD_ONE) where every tensor is packed, values in float (FLOAT16 through its bits: LOAD_HALF, TO_HALF,
    STORE_HALF), and the operator's expression of elementwise_ops.h's helpers."""
    input_type, scale_type, zero_point_type, output_type = types
    register = {**STORAGE, T.FLOAT16: "float"}
    storage = [STORAGE[input_type], STORAGE[scale_type], STORAGE[zero_point_type] if has_zero_point else "uchar"]
    storage.append(STORAGE[output_type])
    packed = all(step in (0, 1) for step in steps) and len(steps) == 4

    def load(k: int, data_type: T) -> tuple[str, str]:
        once = packed and steps[k] == 0
        half = "_HALF" if data_type == T.FLOAT16 else ""
        return (
            "prologue" if once else "body"
        ), f"const {register[data_type]} in{k} = LOAD{'_ONE' if once else ''}{half}({k});"

    loads = [load(0, input_type), load(1, scale_type)] + ([load(2, zero_point_type)] if has_zero_point else [])
    zero = "(float)in2" if has_zero_point else "0.0f"
    name = name or ("ELEMENT_WISE_DEQUANTIZE_LINEAR" if dequantize else "ELEMENT_WISE_QUANTIZE_LINEAR")
    if dequantize and input_type in (T.INT32, T.UINT32):  # the difference exact in 64 bits, then one rounding
        value = f"dequantize_wide((long)in0 - {'(long)in2' if has_zero_point else '0'}, in1)"
    elif dequantize:
        value = f"dequantize((float)in0, in1, {zero})"
    else:
        half_input = "true" if input_type == T.FLOAT16 else "false"
        if rounding == "quantize":  # elementwise_ops.h's quantize: rint(input / scale) + zero_point
            quantized = f"quantize((float)in0, in1, {zero}, {half_input})"
        else:  # the extension: another rounding of the quotient
            quantized = f"{rounding}(quantize_quotient((float)in0, in1, {half_input})) + {zero}"
        value = f"saturate_{STORAGE[output_type]}({quantized})"
    if output_type == T.FLOAT16:
        value = f"TO_HALF({value})"
    store = f"STORE{'_HALF' if output_type == T.FLOAT16 else ''}(3, v0);"
    body = [line for where, line in loads if where == "body"]
    body += [f"const {register[output_type]} v0 = {value};  /* {name} */", store]
    prologue = [line for where, line in loads if where == "prologue"]
    lines = [f"// {name}", "#define TENSOR_COUNT 4"]
    for k, (kind, step) in enumerate(zip(storage, steps, strict=True)):
        lines += [f"#define TENSOR{k}_T {kind}", f"#define STEP{k} {step}"]
    lines.append("#define FUSED_PROLOGUE" + "".join(f" \\\n    {line}" for line in prologue))
    lines.append("#define FUSED_BODY" + "".join(f" \\\n    {line}" for line in body))
    return "\n".join(lines) + "\n"


# (dequantize, (input, scale, zero point or None, output)) -> the zero point's storage type when it is null:
# the type it would have had (QuantizeLinear: the output's; DequantizeLinear: the input's).
LINEAR_CASES = {
    "quantize_f32_u8": (False, (T.FLOAT32, T.FLOAT32, T.UINT8, T.UINT8)),
    "quantize_f32_i8_null_zero_point": (False, (T.FLOAT32, T.FLOAT32, None, T.INT8)),
    "quantize_f16_i8": (False, (T.FLOAT16, T.FLOAT16, T.INT8, T.INT8)),
    "quantize_i32_u8": (False, (T.INT32, T.FLOAT32, T.UINT8, T.UINT8)),
    "dequantize_u8_f32": (True, (T.UINT8, T.FLOAT32, T.UINT8, T.FLOAT32)),
    "dequantize_i32_f16": (True, (T.INT32, T.FLOAT16, T.INT32, T.FLOAT16)),
    "dequantize_u16_f32_null_zero_point": (True, (T.UINT16, T.FLOAT32, None, T.FLOAT32)),
}


@pytest.mark.parametrize(("dequantize", "types"), list(LINEAR_CASES.values()), ids=list(LINEAR_CASES))
def test_linear_quantization_kernel_spec(dequantize: bool, types: tuple[T, T, T | None, T]) -> None:
    zero_point_type = types[2] if types[2] is not None else (types[0] if dequantize else types[3])
    lowered = linear_desc(dequantize, types).lower()
    # Per-tensor scale and zero point (all strides 0) over a packed (1, 3, 4, 5): N dropped, the rest merges in
    # every tensor (input 20 = 5*4, 5 = 1*5; the parameters 0 = 0*k; a null zero point has 0 strides too):
    # rank 1, 60 elements. Not a packed layout (the parameters' stride is 0), but the template's PACKED case:
    # one plain loop of up to 2048 elements per work-item -> 1 work-item, the scale and zero point read once.
    layout = ElementwiseLayout(60, (60,), ((1,), (0,), (0,), (1,)))
    # Every template program asks for a correctly rounded float division (QuantizeLinear's), DequantizeLinear's
    # too, so that an operator is built alike alone and fused.
    options = ("-cl-fp32-correctly-rounded-divide-sqrt",)
    filled = (types[0], types[1], zero_point_type, types[3])
    prelude = linear_prelude(dequantize, filled, types[2] is not None, (1, 0, 0, 1))
    expected = KernelSpec("elementwise.cl", "elementwise", template_defines(packed=True, rank=1), options, prelude)
    assert lowered == LoweredOperator(kernel=expected, layout=layout, elements_per_work_item=2048)
    assert not lowered.layout.packed
    assert lowered.global_size == 1


def test_per_axis_parameters_keep_the_rank() -> None:
    # The "per_axis_parameters" coalescing case: a scale on C keeps all three dimensions.
    desc = linear_desc(False, (T.FLOAT32, T.FLOAT32, T.UINT8, T.UINT8), sizes=(2, 3, 4), parameter_strides=(0, 1, 0))
    lowered = desc.lower()
    assert lowered.layout == ElementwiseLayout(24, (2, 3, 4), ((12, 4, 1), (0, 1, 0), (0, 1, 0), (12, 4, 1)))
    # Every tensor steps by 1 or 0 along W: rows of W (ROW_DIM 2) walked over the 2 dimensions before it.
    assert lowered.kernel.defines == template_defines(packed=False, rank=3, rows=True)
    assert lowered.global_size == 1  # 24 elements, 1024 per work-item


@pytest.mark.parametrize("mode", NGRAPH_MODES)
def test_extension_quantize_adds_round_mode(mode: str) -> None:
    # QuantizeLinear's spec rounding with round_in_mode, plus ROUND_MODE, nGraph's mode by its position in
    # elementwise_ops.h's order.
    types = (T.FLOAT32, T.FLOAT32, T.INT8, T.INT8)
    desc = linear_desc(
        False, types, desc_class=ExtElementWiseQuantizeLinearOperatorDesc, rounding_mode=ExtRoundingMode[mode]
    )
    lowered = desc.lower()
    defines = (*template_defines(packed=True, rank=1), ("ROUND_MODE", str(NGRAPH_MODES.index(mode))))
    extension = "DMLPY_EXT_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR"
    prelude = linear_prelude(False, types, True, (1, 0, 0, 1), rounding="round_in_mode", name=extension)
    options = ("-cl-fp32-correctly-rounded-divide-sqrt",)
    expected = KernelSpec("elementwise.cl", "elementwise", defines, options, prelude)
    assert lowered.kernel == expected
    assert lowered.layout == ElementwiseLayout(60, (60,), ((1,), (0,), (0,), (1,)))


# ---------------------------------------------------------------------------------------------- extension Round

# Data type -> (STORAGE, ELEMENT_T): ext_round.cl's header: 1 float, 2 half, 3 double, 4 bfloat16 (ushort bits),
# 5 integer (returned unchanged; ELEMENT_T names the type).
EXT_STORAGE = {
    T.FLOAT32: (1, "float"),
    T.FLOAT16: (2, "half"),
    T.FLOAT64: (3, "double"),
    ExtTensorDataType.BFLOAT16: (4, "ushort"),
    T.INT8: (5, "char"),
    T.UINT8: (5, "uchar"),
    T.INT16: (5, "short"),
    T.UINT16: (5, "ushort"),
    T.INT32: (5, "int"),
    T.UINT32: (5, "uint"),
    T.INT64: (5, "long"),
    T.UINT64: (5, "ulong"),
}
FLOATS = [T.FLOAT32, T.FLOAT16, T.FLOAT64, ExtTensorDataType.BFLOAT16]


def ext_round_desc(
    data_type: Any, mode: str, sizes: Sequence[int] = (2, 3, 4, 5), input_strides: Sequence[int] | None = None
) -> ExtElementWiseRoundOperatorDesc:
    return ExtElementWiseRoundOperatorDesc(
        input_tensor=buffer(data_type, sizes, input_strides),
        output_tensor=buffer(data_type, sizes),
        rounding_mode=ExtRoundingMode[mode],
    )


def ext_defines(data_type: Any, mode_index: int, rank: int, *, packed: bool = False) -> tuple[tuple[str, str], ...]:
    """ext_round.cl's interface; PACKED (both tensors one run) loops over 2048 elements per work-item
    (dmlpy.kernels.PACKED_RUN), the strided walk over 16."""
    storage, element = EXT_STORAGE[data_type]
    return (
        ("STORAGE", str(storage)),
        ("ROUND_MODE", str(mode_index)),
        ("ELEMENT_T", element),
        ("PACKED", "1" if packed else "0"),
        ("RANK", str(rank)),
        ("GRID_STRIDE", "0"),
        ("ELEMENTS_PER_ITEM", "2048" if packed else "16"),
    )


@pytest.mark.parametrize("mode", NGRAPH_MODES)
@pytest.mark.parametrize("data_type", FLOATS, ids=lambda t: t.name)
def test_extension_round_kernel_spec(data_type: Any, mode: str) -> None:
    lowered = ext_round_desc(data_type, mode).lower()
    # Packed (2, 3, 4, 5): rank 1, the plain loop (PACKED=1).
    defines = ext_defines(data_type, NGRAPH_MODES.index(mode), 1, packed=True)
    expected = KernelSpec("ext_round.cl", "ext_round", defines)
    assert lowered == LoweredOperator(
        kernel=expected, layout=ElementwiseLayout(120, (120,), ((1,), (1,))), elements_per_work_item=2048
    )
    assert lowered.global_size == 1  # 120 elements, 2048 per work-item


@pytest.mark.parametrize("mode", NGRAPH_MODES)
@pytest.mark.parametrize("data_type", [t for t in EXT_STORAGE if t not in FLOATS], ids=lambda t: t.name)
def test_extension_round_integers_share_one_program(data_type: Any, mode: str) -> None:
    # Integers come back unchanged in every mode, so every mode lowers to one spec: TOWARD_ZERO's index, 6.
    lowered = ext_round_desc(data_type, mode, input_strides=(60, 1, 15, 3)).lower()
    assert lowered.kernel == KernelSpec("ext_round.cl", "ext_round", ext_defines(data_type, 6, 3))
    assert lowered.layout == ElementwiseLayout(120, (2, 3, 20), ((60, 1, 3), (60, 20, 1)))
