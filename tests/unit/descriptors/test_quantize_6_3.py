"""FL 6_3's DML_QUANTIZE_OPERATOR_DESC and DML_DEQUANTIZE_OPERATOR_DESC without OpenCL: every validation rule
with its message; the support tables written out by hand from Microsoft's page
(ns-directml-dml_quantize_operator_desc.md: InputTensor FLOAT32/FLOAT16, QuantizationTensors
FLOAT32/FLOAT16/INT8/INT4/UINT8/UINT4, OutputTensor INT8/INT4/UINT8/UINT4, 1 to 8 dimensions; DEQUANTIZE
mirrored); JSON and the schema; DMLCalcBufferTensorSize for 4-bit tensors; the blocked layouts lowering walks;
and dmlpy.nibbles' packing (element 2i in the low nibble of byte i: DirectML's own example, [1, 2, 3, 4, 5] as
UINT4 is the bytes [0x21, 0x43, 0x05]).

Every expected layout is worked out by hand in the comment next to it: a blocked dimension of size n whose
quantization tensors hold b values along it is split into (b, n / b), the quantization tensors stepping by 0
along the block; then the usual coalescing (size-1 dimensions dropped, neighbours contiguous in every tensor
merged).
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import ml_dtypes
import numpy as np
import pytest

import dmlpy as dml
from dmlpy import nibbles
from dmlpy.descriptors_json import parse_descriptor
from dmlpy.kernels import ElementwiseLayout
from tests.helpers.schema import schema_validator

T = dml.TensorDataType
FL = dml.FeatureLevel
QT = dml.QuantizationType
INT4, UINT4 = np.dtype(ml_dtypes.int4), np.dtype(ml_dtypes.uint4)

# Microsoft's table, by hand (not dmlpy's SupportTable, which is under test).
FLOATS = {T.FLOAT32, T.FLOAT16}
QUANTIZED = {T.INT8, T.INT4, T.UINT8, T.UINT4}
QUANTIZATION_TENSOR_TYPES = FLOATS | QUANTIZED
TABLES = {
    "QUANTIZE": {"InputTensor": FLOATS, "QuantizationTensors": QUANTIZATION_TENSOR_TYPES, "OutputTensor": QUANTIZED},
    "DEQUANTIZE": {"InputTensor": QUANTIZED, "QuantizationTensors": QUANTIZATION_TENSOR_TYPES, "OutputTensor": FLOATS},
}
ALL_TYPES = [t for t in T if t != T.UNKNOWN]


def tensor(data_type: T, sizes: tuple[int, ...], strides: tuple[int, ...] | None = None) -> dml.BufferTensorDesc:
    return dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides)


def make(
    op: str,
    *,
    real: T = T.FLOAT32,
    quantized: T = T.INT4,
    sizes: tuple[int, ...] = (4, 6),
    scale_sizes: tuple[int, ...] = (4, 2),
    zero_point: bool = True,
    **fields: Any,
) -> Any:
    """A valid QUANTIZE (real -> quantized) or DEQUANTIZE (quantized -> real) with a blocked scale; ``fields``
    (C names) replace any part of it."""
    source, target = (real, quantized) if op == "QUANTIZE" else (quantized, real)
    quantization = [tensor(real, scale_sizes)] + ([tensor(quantized, scale_sizes)] if zero_point else [])
    desc: dict[str, Any] = {
        "InputTensor": tensor(source, sizes),
        "QuantizationType": QT.SCALE_ZERO_POINT if zero_point else QT.SCALE,
        "QuantizationTensors": quantization,
        "OutputTensor": tensor(target, sizes),
    }
    desc.update(fields)
    cls = dml.QuantizeOperatorDesc if op == "QUANTIZE" else dml.DequantizeOperatorDesc
    return cls(**desc)


OPS = pytest.mark.parametrize("op", ["QUANTIZE", "DEQUANTIZE"])


def refused(desc: Any, fragment: str, error: type[Exception] = dml.InvalidArgumentError) -> str:
    with pytest.raises(error) as caught:
        dml.validate(desc, FL.FL_6_3)
    assert fragment in str(caught.value), str(caught.value)
    return str(caught.value)


# ------------------------------------------------------------------------------------------------ valid descriptors


@OPS
@pytest.mark.parametrize("level", [FL.FL_6_3, FL.FL_6_4], ids=["6_3", "6_4"])
def test_every_type_pair_of_the_table_validates(op: str, level: FL) -> None:
    for real in sorted(FLOATS):
        for quantized in sorted(QUANTIZED):
            for zero_point in (True, False):
                dml.validate(make(op, real=real, quantized=quantized, zero_point=zero_point), level)


@OPS
@pytest.mark.parametrize(
    "scale_sizes",
    [(1, 1), (4, 1), (1, 6), (4, 6), (1, 3), (2, 6), (2, 3), (4, 2)],
    ids=["per-tensor", "per-row", "per-column", "per-element", "blocked-inner", "blocked-outer", "blocked-both", "mix"],
)
def test_quantization_tensor_sizes_one_full_or_a_divisor(op: str, scale_sizes: tuple[int, int]) -> None:
    desc = make(op, scale_sizes=scale_sizes)
    dml.validate(desc, FL.FL_6_3)
    assert desc.quantization_tensor_count == 2  # derived from QuantizationTensors when left out


@OPS
@pytest.mark.parametrize("rank", [1, 8])
def test_one_to_eight_dimensions(op: str, rank: int) -> None:
    dml.validate(make(op, sizes=(2,) * rank, scale_sizes=(1,) * rank), FL.FL_6_3)


# ------------------------------------------------------------------------------------------------ the rules


@OPS
@pytest.mark.parametrize("level", [level for level in FL if level < FL.FL_6_3], ids=lambda level: level.name)
def test_below_6_3_refused(op: str, level: FL) -> None:
    with pytest.raises(dml.UnsupportedError, match=f"{op} needs DML_FEATURE_LEVEL_6_3 or higher; it was validated"):
        dml.validate(make(op), level)


@OPS
def test_count_must_count_the_tensors(op: str) -> None:
    refused(
        make(op, QuantizationTensorCount=1),
        f"{op}.QuantizationTensorCount is 1 but QuantizationTensors has 2 entries; it must count them",
    )
    refused(make(op, QuantizationTensorCount=3), f"{op}.QuantizationTensorCount is 3 but QuantizationTensors has 2")


@OPS
@pytest.mark.parametrize("entries", [0, 1, 2])
def test_quantization_type_none_refused(op: str, entries: int) -> None:
    scale = [tensor(T.FLOAT32, (4, 2)), tensor(T.INT4, (4, 2))][:entries]
    desc = make(op, QuantizationType=QT.NONE, QuantizationTensors=scale)
    refused(desc, f"{op}.QuantizationType is DML_QUANTIZATION_TYPE_NONE; {op} takes DML_QUANTIZATION_TYPE_SCALE")


@OPS
def test_tensor_count_for_the_type(op: str) -> None:
    refused(
        make(op, QuantizationType=QT.SCALE),
        f"{op}.QuantizationTensors has 2 entries; DML_QUANTIZATION_TYPE_SCALE takes 1 (the scale)",
    )
    refused(
        make(op, zero_point=False, QuantizationType=QT.SCALE_ZERO_POINT),
        f"{op}.QuantizationTensors has 1 entries; DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT takes 2 (the scale, "
        "then the zero point)",
    )


@OPS
@pytest.mark.parametrize("field", ["QuantizationTensors[0]", "QuantizationTensors[1]", "OutputTensor"])
def test_dimension_counts_must_match_the_input(op: str, field: str) -> None:
    desc = make(op)
    if field == "OutputTensor":
        output = desc.output_tensor.desc
        desc = make(op, OutputTensor=tensor(output.data_type, (4, 6, 1)))
    else:
        tensors = [t.desc for t in desc.quantization_tensors]
        index = int(field[-2])
        tensors[index] = tensor(tensors[index].data_type, (4, 2, 1))
        desc = make(op, QuantizationTensors=tensors)
    refused(desc, f"{op}.{field}.DimensionCount is 3; it must equal InputTensor.DimensionCount (2)")


@OPS
def test_output_sizes_must_be_the_input_sizes(op: str) -> None:
    output = make(op).output_tensor.desc
    refused(
        make(op, OutputTensor=tensor(output.data_type, (4, 2))),
        f"{op}.OutputTensor.Sizes is (4, 2); it must equal InputTensor.Sizes ((4, 6))",
    )


@OPS
@pytest.mark.parametrize(("scale_sizes", "dim", "divisors"), [((4, 4), 1, "1, 2, 3, 6"), ((3, 2), 0, "1, 2, 4")])
def test_a_non_divisor_scale_size_refused(op: str, scale_sizes: tuple[int, int], dim: int, divisors: str) -> None:
    size = (4, 6)[dim]
    refused(
        make(op, scale_sizes=scale_sizes),
        f"{op}.QuantizationTensors[0].Sizes[{dim}] is {scale_sizes[dim]} (Sizes {scale_sizes}); each dimension of a "
        f"quantization tensor must be 1, InputTensor's ({size}), or a divisor of it, which gives a scale per block "
        f"of {size} / Sizes[{dim}] elements: one of {divisors} here",
    )


@OPS
def test_a_scale_larger_than_the_input_refused(op: str) -> None:
    # 12 is a multiple of 6, not a divisor: there is no block of 6 / 12 elements.
    refused(make(op, scale_sizes=(4, 12)), f"{op}.QuantizationTensors[0].Sizes[1] is 12 (Sizes (4, 12))")


@OPS
def test_zero_point_sizes_must_be_the_scale_sizes(op: str) -> None:
    scale, zero_point = (t.desc for t in make(op).quantization_tensors)
    desc = make(op, QuantizationTensors=[scale, tensor(zero_point.data_type, (4, 1))])
    refused(desc, f"{op}.QuantizationTensors[1].Sizes is (4, 1); it must equal QuantizationTensors[0].Sizes ((4, 2))")


@pytest.mark.parametrize(
    ("op", "real_field"), [("QUANTIZE", "InputTensor"), ("DEQUANTIZE", "OutputTensor")], ids=["QUANTIZE", "DEQUANTIZE"]
)
@pytest.mark.parametrize("scale_type", [T.FLOAT16, T.INT8, T.UINT4])
def test_scale_type_is_the_real_sides(op: str, real_field: str, scale_type: T) -> None:
    zero_point = make(op).quantization_tensors[1].desc
    desc = make(op, QuantizationTensors=[tensor(scale_type, (4, 2)), zero_point])
    refused(
        desc,
        f"{op}.QuantizationTensors[0].DataType is {scale_type.c_name}; it must equal {real_field}.DataType "
        "(DML_TENSOR_DATA_TYPE_FLOAT32)",
    )


@pytest.mark.parametrize(
    ("op", "quantized_field"),
    [("QUANTIZE", "OutputTensor"), ("DEQUANTIZE", "InputTensor")],
    ids=["QUANTIZE", "DEQUANTIZE"],
)
@pytest.mark.parametrize("zero_point_type", [T.INT8, T.UINT4, T.FLOAT32])
def test_zero_point_type_is_the_quantized_sides(op: str, quantized_field: str, zero_point_type: T) -> None:
    scale = make(op).quantization_tensors[0].desc
    desc = make(op, QuantizationTensors=[scale, tensor(zero_point_type, (4, 2))])
    refused(
        desc,
        f"{op}.QuantizationTensors[1].DataType is {zero_point_type.c_name}; it must equal {quantized_field}.DataType "
        "(DML_TENSOR_DATA_TYPE_INT4)",
    )


def _outside(op: str, field: str) -> list[Any]:
    table = TABLES[op]["QuantizationTensors" if field.startswith("Quantization") else field]
    return [pytest.param(op, field, t, id=f"{op}-{field}-{t.name}") for t in ALL_TYPES if t not in table]


OUTSIDE = [
    case
    for op in TABLES
    for field in ("InputTensor", "QuantizationTensors[0]", "QuantizationTensors[1]", "OutputTensor")
    for case in _outside(op, field)
]


@pytest.mark.parametrize(("op", "field", "data_type"), OUTSIDE)
def test_types_outside_the_table_refused(op: str, field: str, data_type: T) -> None:
    desc = make(op)
    if field.startswith("Quantization"):
        tensors = [t.desc for t in desc.quantization_tensors]
        tensors[int(field[-2])] = tensor(data_type, (4, 2))
        desc = make(op, QuantizationTensors=tensors)
    else:
        desc = make(op, **{field: tensor(data_type, (4, 6))})
    message = refused(desc, f"{op}.{field}.DataType is {data_type.c_name}; DML_FEATURE_LEVEL_6_3 allows ")
    allowed = TABLES[op]["QuantizationTensors" if field.startswith("Quantization") else field]
    listed = message.split(" allows ")[1]
    assert {t for t in ALL_TYPES if t.c_name in listed.split(", ")} == allowed


@OPS
def test_nine_dimensions_refused(op: str) -> None:
    refused(
        make(op, sizes=(1,) * 9, scale_sizes=(1,) * 9),
        f"{op}.InputTensor.DimensionCount is 9; DML_FEATURE_LEVEL_6_3 allows 1 to 8",
    )


# ------------------------------------------------------------------------------------------------ JSON and schema


@pytest.fixture(scope="module")
def schema() -> Any:
    return schema_validator()


@OPS
@pytest.mark.parametrize("zero_point", [True, False], ids=["scale-zero-point", "scale"])
def test_json_round_trip_and_schema(op: str, zero_point: bool, schema: Any) -> None:
    desc = make(op, quantized=T.UINT4, scale_sizes=(2, 3), zero_point=zero_point)
    wrapped = dml.OperatorDesc(type=dml.OperatorType[op], desc=desc)
    for by_alias in (True, False):
        document = json.loads(wrapped.model_dump_json(by_alias=by_alias))
        schema.validate(document)
        assert parse_descriptor(document) == desc
    document = json.loads(wrapped.model_dump_json(by_alias=True))
    assert document["Type"] == {"QUANTIZE": 173, "DEQUANTIZE": 174}[op]  # DirectML.h's enum positions
    assert document["Desc"]["QuantizationTensorCount"] == (2 if zero_point else 1)


@OPS
def test_json_written_by_hand(op: str, schema: Any) -> None:
    # C names, QuantizationTensorCount left out (derived), the data types spelled as a person would.
    source, target = ("FLOAT16", "UINT4") if op == "QUANTIZE" else ("UINT4", "FLOAT16")
    document = {
        "Type": f"DML_OPERATOR_{op}",
        "Desc": {
            "InputTensor": {"Type": "BUFFER", "Desc": {"DataType": source, "Sizes": [3, 15]}},
            "QuantizationType": "DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT",
            "QuantizationTensors": [
                {"Type": "BUFFER", "Desc": {"DataType": "FLOAT16", "Sizes": [3, 3]}},
                {"Type": "BUFFER", "Desc": {"DataType": "UINT4", "Sizes": [3, 3]}},
            ],
            "OutputTensor": {"Type": "BUFFER", "Desc": {"DataType": target, "Sizes": [3, 15]}},
        },
    }
    schema.validate(document)
    desc = parse_descriptor(document)
    assert desc == make(op, real=T.FLOAT16, quantized=T.UINT4, sizes=(3, 15), scale_sizes=(3, 3))
    assert desc.quantization_tensor_count == 2
    dml.validate(desc, FL.FL_6_3)


@pytest.mark.parametrize(
    "change",
    [
        {"QuantizationType": "DML_QUANTIZATION_TYPE_BLOCKWISE"},
        {"QuantizationTensors": {"Type": "BUFFER"}},
        {"QuantizationTensorCount": -1},
    ],
    ids=["unknown_quantization_type", "tensors_not_a_list", "negative_count"],
)
def test_what_dmlpy_refuses_the_schema_refuses(change: dict[str, Any], schema: Any) -> None:
    document = json.loads(
        dml.OperatorDesc(type=dml.OperatorType.QUANTIZE, desc=make("QUANTIZE")).model_dump_json(by_alias=True)
    )
    document["Desc"].update(change)
    with pytest.raises(dml.InvalidArgumentError):
        parse_descriptor(document)
    with pytest.raises(jsonschema.ValidationError):
        schema.validate(document)


# ------------------------------------------------------------------------------------------------ 4-bit sizes

CALC = [
    # (data type, sizes, strides, expected bytes)   bits = 4 * (last index + 1); ceil(bits / 8); round up to 4
    pytest.param(T.INT4, (3,), None, 4, id="int4-3"),  # 12 bits -> 2 B -> 4
    pytest.param(T.UINT4, (7,), None, 4, id="uint4-7"),  # 28 bits -> 4 B -> 4
    pytest.param(T.INT4, (3, 5), None, 8, id="int4-3x5"),  # 15 elements, 60 bits -> 8 B -> 8
    pytest.param(T.UINT4, (25,), None, 16, id="uint4-25"),  # 100 bits -> 13 B -> 16
    pytest.param(T.INT4, (1, 1, 1), None, 4, id="int4-one-element"),  # 4 bits -> 1 B -> 4
    pytest.param(T.INT4, (3, 5), (6, 1), 12, id="int4-3x5-padded"),  # last 2*6+4 = 16, 17 * 4 = 68 bits -> 9 B -> 12
    pytest.param(T.UINT4, (3, 5), (1, 3), 8, id="uint4-3x5-column-major"),  # last 2+12 = 14, 60 bits -> 8 B -> 8
    pytest.param(T.UINT4, (4, 9), (0, 1), 8, id="uint4-broadcast-rows"),  # last 8, 36 bits -> 5 B -> 8
    pytest.param(T.INT4, (5, 5), (0, 0), 4, id="int4-broadcast-scalar"),  # last 0, 4 bits -> 1 B -> 4
    pytest.param(T.INT4, (2, 3), (33, 1), 20, id="int4-odd-row-stride"),  # last 33+2 = 35, 144 bits -> 18 B -> 20
]


@pytest.mark.parametrize(("data_type", "sizes", "strides", "expected"), CALC)
def test_calc_buffer_tensor_size_of_4_bit_tensors(
    data_type: T, sizes: tuple[int, ...], strides: tuple[int, ...] | None, expected: int
) -> None:
    assert dml.calc_buffer_tensor_size(data_type, sizes, strides) == expected
    assert tensor(data_type, sizes, strides).total_tensor_size_in_bytes == expected


# ------------------------------------------------------------------------------------------------ blocked layouts


def layout(op: str, sizes: tuple[int, ...], scale_sizes: tuple[int, ...], **fields: Any) -> ElementwiseLayout:
    return make(op, sizes=sizes, scale_sizes=scale_sizes, **fields).lower().layout


LAYOUTS = {
    # One blocked axis: (4, 6) with scale (4, 2) splits 6 into (2, 3); input strides (6, 3, 1), scale (2, 1, 0).
    # 4|2: input 6 = 3*2 and scale 2 = 1*2 merge into 8 blocks; 2|3 does not (scale 1 != 0*3): (8, 3).
    "one_blocked_axis": (
        (4, 6),
        (4, 2),
        ElementwiseLayout(24, (8, 3), ((3, 1), (1, 0), (1, 0), (3, 1))),
    ),
    # Two blocked axes: (4, 6) with (2, 3): (2, 2, 3, 2), input (12, 6, 2, 1), scale (3, 0, 1, 0): nothing
    # merges (the scale's 0 never equals a positive stride times a size, its 3 and 1 never 0).
    "two_blocked_axes": (
        (4, 6),
        (2, 3),
        ElementwiseLayout(24, (2, 2, 3, 2), ((12, 6, 2, 1), (3, 0, 1, 0), (3, 0, 1, 0), (12, 6, 2, 1))),
    ),
    # Three blocked axes: (4, 6, 8) with (2, 3, 4): (2, 2, 3, 2, 4, 2); the scale (12, 0, 4, 0, 1, 0).
    "three_blocked_axes": (
        (4, 6, 8),
        (2, 3, 4),
        ElementwiseLayout(
            192,
            (2, 2, 3, 2, 4, 2),
            ((96, 48, 16, 8, 2, 1), (12, 0, 4, 0, 1, 0), (12, 0, 4, 0, 1, 0), (96, 48, 16, 8, 2, 1)),
        ),
    ),
    # A broadcast axis before a blocked one: (4, 6) with (1, 2): the scale steps 0 along the 4 rows, then
    # (2, 3) with (1, 0): (4, 2, 3), nothing merges (scale 0 != 1*2, 1 != 0*3).
    "broadcast_then_blocked": (
        (4, 6),
        (1, 2),
        ElementwiseLayout(24, (4, 2, 3), ((6, 3, 1), (0, 1, 0), (0, 1, 0), (6, 3, 1))),
    ),
    # Blocked, then per element, with a broadcast batch: (2, 4, 6) with (1, 2, 6): (2, 2, 2, 6); the scale
    # (0, 6, 0, 1). 2|6 of the blocks: input 6 = 1*6, scale 0 != 1*6: apart.
    "broadcast_blocked_per_element": (
        (2, 4, 6),
        (1, 2, 6),
        ElementwiseLayout(48, (2, 2, 2, 6), ((24, 12, 6, 1), (0, 6, 0, 1), (0, 6, 0, 1), (24, 12, 6, 1))),
    ),
    # Per row (no block): (4, 6) with (4, 1) is per-axis: (4, 6), the scale (1, 0).
    "per_axis": ((4, 6), (4, 1), ElementwiseLayout(24, (4, 6), ((6, 1), (1, 0), (1, 0), (6, 1)))),
    # Per tensor: every scale stride 0, so both dimensions merge: (24,), scale (0,).
    "per_tensor": ((4, 6), (1, 1), ElementwiseLayout(24, (24,), ((1,), (0,), (0,), (1,)))),
    # An odd block: (3, 15) with (3, 3) is 9 blocks of 5 (the rows merge with the blocks: 5*3 = 15, 1*3 = 3).
    "odd_block": ((3, 15), (3, 3), ElementwiseLayout(45, (9, 5), ((5, 1), (1, 0), (1, 0), (5, 1)))),
}


@OPS
@pytest.mark.parametrize(("sizes", "scale_sizes", "expected"), LAYOUTS.values(), ids=LAYOUTS.keys())
def test_blocked_layouts(
    op: str, sizes: tuple[int, ...], scale_sizes: tuple[int, ...], expected: ElementwiseLayout
) -> None:
    assert layout(op, sizes, scale_sizes) == expected


@OPS
def test_a_strided_scale_is_split_with_its_own_strides(op: str) -> None:
    # The scale (4, 2) padded to rows of 3 (strides (3, 1)): (8, 3) no longer merges its rows and blocks
    # (scale 3 != 1*2), so (4, 2, 3) with the scale (3, 1, 0); the zero point packed (2, 1, 0).
    real, quantized = T.FLOAT32, T.INT4
    scale, zero_point = tensor(real, (4, 2), (3, 1)), tensor(quantized, (4, 2))
    desc = make(op, QuantizationTensors=[scale, zero_point])
    assert desc.lower().layout == ElementwiseLayout(24, (4, 2, 3), ((6, 3, 1), (3, 1, 0), (2, 1, 0), (6, 3, 1)))


@OPS
def test_without_zero_point_three_tensors_are_walked(op: str) -> None:
    lowered = make(op, zero_point=False).lower()
    assert lowered.layout == ElementwiseLayout(24, (8, 3), ((3, 1), (1, 0), (3, 1)))


@OPS
def test_more_than_eight_dimensions_after_splitting_refused(op: str) -> None:
    # Five dimensions of 4, each blocked in 2: ten dimensions after splitting, none mergeable; four are eight.
    assert layout(op, (4,) * 4, (2,) * 4).rank == 8
    desc = make(op, sizes=(4,) * 5, scale_sizes=(2,) * 5)
    dml.validate(desc, FL.FL_6_3)  # DirectML's rules allow it; dmlpy's kernels cannot walk it
    with pytest.raises(
        dml.UnsupportedError,
        match="its blocks split the input into 10 dimensions after merging, and dmlpy's kernels walk at most 8",
    ):
        desc.lower()


def test_a_strided_4_bit_output_is_refused_by_lowering() -> None:
    desc = make("QUANTIZE", OutputTensor=tensor(T.INT4, (4, 6), (7, 1)))
    dml.validate(desc, FL.FL_6_3)
    with pytest.raises(
        dml.UnsupportedError,
        match=r"QUANTIZE.OutputTensor is .*INT4 with Strides \(7, 1\); dmlpy writes a 4-bit output packed only",
    ):
        desc.lower()


@pytest.mark.parametrize(("op", "pairs"), [("QUANTIZE", True), ("DEQUANTIZE", False)])
def test_a_4_bit_output_stores_nibbles_in_pairs(op: str, pairs: bool) -> None:
    defines = dict(make(op).lower().kernel.defines)
    assert (defines.get("NIBBLE_PAIRS") == "1") is pairs


# ------------------------------------------------------------------------------------------------ nibbles


def test_directmls_own_example() -> None:
    # ne-directml-dml_tensor_data_type.md: UINT4 [1, 2, 3, 4, 5] is the bytes [0x21, 0x43, 0x05].
    packed = nibbles.pack(np.array([1, 2, 3, 4, 5], UINT4))
    assert packed.dtype == np.uint8 and packed.tolist() == [0x21, 0x43, 0x05]
    assert nibbles.unpack(np.array([0x21, 0x43, 0xF5], np.uint8), 5, UINT4).tolist() == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(("dtype", "low"), [(INT4, -8), (UINT4, 0)], ids=["int4", "uint4"])
def test_every_pair_of_values_round_trips(dtype: np.dtype[Any], low: int) -> None:
    values = np.arange(low, low + 16)
    pairs = np.stack(np.meshgrid(values, values, indexing="ij"), axis=-1).reshape(-1)  # all 256 (even, odd)
    packed = nibbles.pack(pairs.astype(dtype))
    assert packed.size == 256
    # Byte i holds element 2i in its low nibble and 2i + 1 in its high one, two's complement for int4.
    assert packed.tolist() == [(int(a) & 15) | ((int(b) & 15) << 4) for a, b in pairs.reshape(-1, 2)]
    assert sorted(set(packed.tolist())) == list(range(256))
    unpacked = nibbles.unpack(packed, pairs.size, dtype)
    assert unpacked.dtype == dtype and unpacked.astype(np.int64).tolist() == pairs.tolist()


@pytest.mark.parametrize("count", range(1, 10))
@pytest.mark.parametrize(("dtype", "low"), [(INT4, -8), (UINT4, 0)], ids=["int4", "uint4"])
def test_odd_and_even_counts(dtype: np.dtype[Any], low: int, count: int) -> None:
    values = (np.arange(count) * 5 % 16 + low).astype(dtype)
    packed = nibbles.pack(values)
    assert packed.size == (count + 1) // 2
    if count % 2:
        assert packed[-1] >> 4 == 0  # the pad nibble
    # Whatever the unused high nibble of a half-filled last byte holds, it is not an element.
    junk = packed.copy()
    junk[-1] |= 0xF0 if count % 2 else 0
    assert np.array_equal(nibbles.unpack(junk, count, dtype), values)


def test_pack_reads_c_order_of_any_array() -> None:
    values = np.arange(-8, 4).astype(INT4).reshape(3, 4)
    assert nibbles.pack(values.T).tolist() == nibbles.pack(np.ascontiguousarray(values.T).reshape(-1)).tolist()
    assert nibbles.unpack(nibbles.pack(values.T), 12, INT4).reshape(4, 3).tolist() == values.T.tolist()
