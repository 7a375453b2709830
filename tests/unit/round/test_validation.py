"""dml.validate: every buffer-tensor rule (directml-spec.md §3) and every ELEMENT_WISE_ROUND rule (§4).

Each rule is a pair: a valid descriptor that is accepted, and one that differs from it in the rule's field and is
refused with the right exception and a message naming the operator, the C field, the value and the allowed range.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest

import dmlpy as dml
from tests.helpers.factory import both, round_op, tensor
from tests.helpers.modes import DML_MODE_IDS

T = dml.TensorDataType
FL = dml.FeatureLevel
E_INVALIDARG = 0x80070057
DXGI_ERROR_UNSUPPORTED = 0x887A0004

OpFactory = Callable[[], dml.ElementWiseRoundOperatorDesc]


@dataclass(frozen=True)
class Rule:
    """One rule: ``good`` passes at ``good_level``; ``bad`` fails at ``bad_level`` with ``error`` and ``parts``."""

    good: OpFactory
    bad: OpFactory
    parts: tuple[str, ...]
    error: type[dml.DmlError] = dml.InvalidArgumentError
    good_level: object = FL.FL_3_0
    bad_level: object = FL.FL_3_0


def _invalid_type(slot: str) -> OpFactory:
    def build() -> dml.ElementWiseRoundOperatorDesc:
        broken = dml.TensorDesc(type=dml.TensorType.INVALID, desc=tensor())
        return round_op(broken, tensor()) if slot == "input" else round_op(tensor(), broken)

    return build


# Output layouts over Sizes (1, 2, 3, 4).
PADDED = (40, 20, 5, 1)  # each row padded from 4 to 5 elements: all addresses distinct
PERMUTED = (24, 1, 8, 2)  # channels innermost (NHWC-like): c + 2w + 8h covers 0..23 exactly once
OVERLAPPING = (24, 12, 2, 1)  # H stride 2 < W span 4: element (h=1, w=0) aliases (h=0, w=2)
ZERO_STRIDE_ON_C = (24, 0, 4, 1)  # C has 2 elements at the same address
ZERO_STRIDE_ON_N = (0, 12, 4, 1)  # N has size 1: a 0 stride there shares nothing

RULES: dict[str, Rule] = {
    "Type-must-be-BUFFER-input": Rule(
        good=lambda: round_op(dml.TensorDesc(type="BUFFER", desc=tensor()), tensor()),
        bad=_invalid_type("input"),
        parts=("ELEMENT_WISE_ROUND.InputTensor.Type", "DML_TENSOR_TYPE_INVALID", "DML_TENSOR_TYPE_BUFFER"),
    ),
    "Type-must-be-BUFFER-output": Rule(
        good=lambda: round_op(tensor(), dml.TensorDesc(type="BUFFER", desc=tensor())),
        bad=_invalid_type("output"),
        parts=("ELEMENT_WISE_ROUND.OutputTensor.Type", "DML_TENSOR_TYPE_INVALID", "DML_TENSOR_TYPE_BUFFER"),
    ),
    "DataType-not-UNKNOWN-input": Rule(
        good=lambda: round_op(tensor(data_type=T.FLOAT32), tensor()),
        bad=lambda: round_op(tensor(data_type=T.UNKNOWN), tensor()),
        parts=("ELEMENT_WISE_ROUND.InputTensor.DataType", "DML_TENSOR_DATA_TYPE_UNKNOWN"),
    ),
    "DataType-not-UNKNOWN-output": Rule(
        good=lambda: round_op(tensor(), tensor(data_type=T.FLOAT32)),
        bad=lambda: round_op(tensor(), tensor(data_type=T.UNKNOWN)),
        parts=("ELEMENT_WISE_ROUND.OutputTensor.DataType", "DML_TENSOR_DATA_TYPE_UNKNOWN"),
    ),
    "DimensionCount-at-least-1": Rule(
        good=lambda: both(sizes=(5,)),
        bad=lambda: both(sizes=()),
        parts=("ELEMENT_WISE_ROUND.InputTensor.DimensionCount is 0", "1 to 8"),
    ),
    "DimensionCount-at-most-8": Rule(
        good=lambda: both(sizes=(1, 1, 1, 1, 1, 1, 2, 3)),
        bad=lambda: both(sizes=(1, 1, 1, 1, 1, 1, 1, 2, 3)),
        parts=("ELEMENT_WISE_ROUND.InputTensor.DimensionCount is 9", "1 to 8"),
    ),
    "Sizes-non-zero": Rule(
        good=lambda: both(sizes=(1, 1, 3, 4)),
        bad=lambda: both(sizes=(1, 0, 3, 4)),
        parts=("ELEMENT_WISE_ROUND.InputTensor.Sizes[1] is 0", "(1, 0, 3, 4)", "at least 1"),
    ),
    "Total-at-least-calc-input": Rule(
        good=lambda: round_op(tensor(total_tensor_size_in_bytes=96), tensor()),  # 24 * 4
        bad=lambda: round_op(tensor(total_tensor_size_in_bytes=92), tensor()),
        parts=("ELEMENT_WISE_ROUND.InputTensor.TotalTensorSizeInBytes is 92", "at least", "96"),
    ),
    "Total-at-least-calc-output": Rule(
        good=lambda: round_op(tensor(), tensor(total_tensor_size_in_bytes=96)),
        bad=lambda: round_op(tensor(), tensor(total_tensor_size_in_bytes=0)),
        parts=("ELEMENT_WISE_ROUND.OutputTensor.TotalTensorSizeInBytes is 0", "96"),
    ),
    "Total-at-least-calc-strided": Rule(
        # last = 0*40 + 1*20 + 2*5 + 3*1 = 33 -> 34 elements * 4 B = 136
        good=lambda: round_op(tensor(strides=PADDED, total_tensor_size_in_bytes=136), tensor()),
        bad=lambda: round_op(tensor(strides=PADDED, total_tensor_size_in_bytes=132), tensor()),
        parts=("ELEMENT_WISE_ROUND.InputTensor.TotalTensorSizeInBytes is 132", "136"),
    ),
    "Total-multiple-of-4": Rule(
        good=lambda: round_op(tensor(total_tensor_size_in_bytes=100), tensor()),  # larger than 96 is fine
        bad=lambda: round_op(tensor(total_tensor_size_in_bytes=98), tensor()),
        parts=("ELEMENT_WISE_ROUND.InputTensor.TotalTensorSizeInBytes is 98", "multiple of 4"),
    ),
    "Elements-at-most-2^32-1": Rule(
        good=lambda: both(sizes=(1, 1, 65535, 65537)),  # 65535 * 65537 = 2^32 - 1 = 4294967295
        bad=lambda: both(sizes=(1, 1, 65536, 65536)),  # 2^32 = 4294967296
        parts=("ELEMENT_WISE_ROUND.InputTensor", "4294967296", "4294967295"),
    ),
    "GBOA-zero-or-power-of-two": Rule(
        good=lambda: round_op(tensor(guaranteed_base_offset_alignment=16), tensor()),
        bad=lambda: round_op(tensor(guaranteed_base_offset_alignment=24), tensor()),
        parts=("ELEMENT_WISE_ROUND.InputTensor.GuaranteedBaseOffsetAlignment is 24", "power of two"),
    ),
    "GBOA-at-least-element-size-float32": Rule(
        good=lambda: round_op(tensor(guaranteed_base_offset_alignment=4), tensor()),
        bad=lambda: round_op(tensor(guaranteed_base_offset_alignment=2), tensor()),
        parts=("ELEMENT_WISE_ROUND.InputTensor.GuaranteedBaseOffsetAlignment is 2", "4 bytes", "FLOAT32"),
    ),
    "GBOA-at-least-element-size-float16": Rule(
        good=lambda: both(data_type=T.FLOAT16, guaranteed_base_offset_alignment=2),
        bad=lambda: both(data_type=T.FLOAT16, guaranteed_base_offset_alignment=1),
        parts=("GuaranteedBaseOffsetAlignment is 1", "2 bytes", "FLOAT16"),
    ),
    "GBOA-on-output": Rule(
        good=lambda: round_op(tensor(), tensor(guaranteed_base_offset_alignment=256)),
        bad=lambda: round_op(tensor(), tensor(guaranteed_base_offset_alignment=48)),
        parts=("ELEMENT_WISE_ROUND.OutputTensor.GuaranteedBaseOffsetAlignment is 48", "power of two"),
    ),
    "OWNED_BY_DML-never-on-output": Rule(
        good=lambda: round_op(tensor(flags=dml.TensorFlags.OWNED_BY_DML), tensor()),
        bad=lambda: round_op(tensor(), tensor(flags=dml.TensorFlags.OWNED_BY_DML)),
        parts=("ELEMENT_WISE_ROUND.OutputTensor.Flags", "DML_TENSOR_FLAG_OWNED_BY_DML", "inputs only"),
    ),
    "output-zero-stride-refused-input-broadcast-ok": Rule(
        good=lambda: round_op(tensor(strides=ZERO_STRIDE_ON_C), tensor()),
        bad=lambda: round_op(tensor(), tensor(strides=ZERO_STRIDE_ON_C)),
        parts=("ELEMENT_WISE_ROUND.OutputTensor.Strides", "(24, 0, 4, 1)", "share memory"),
    ),
    "output-zero-stride-on-size-1-ok": Rule(
        good=lambda: round_op(tensor(), tensor(strides=ZERO_STRIDE_ON_N)),
        bad=lambda: round_op(tensor(), tensor(strides=ZERO_STRIDE_ON_C)),
        parts=("ELEMENT_WISE_ROUND.OutputTensor.Strides", "share memory"),
    ),
    "output-overlap-refused-padded-ok": Rule(
        good=lambda: round_op(tensor(), tensor(strides=PADDED)),
        bad=lambda: round_op(tensor(), tensor(strides=OVERLAPPING)),
        parts=("ELEMENT_WISE_ROUND.OutputTensor.Strides", "(24, 12, 2, 1)", "share memory"),
    ),
    "output-overlap-refused-permuted-ok": Rule(
        good=lambda: round_op(tensor(), tensor(strides=PERMUTED)),
        bad=lambda: round_op(tensor(), tensor(strides=(24, 1, 6, 2))),  # h stride 6 < c+w span 8: aliases
        parts=("ELEMENT_WISE_ROUND.OutputTensor.Strides", "(24, 1, 6, 2)", "share memory"),
    ),
    "output-overlap-input-may-overlap": Rule(
        good=lambda: round_op(tensor(strides=OVERLAPPING), tensor()),
        bad=lambda: round_op(tensor(), tensor(strides=OVERLAPPING)),
        parts=("ELEMENT_WISE_ROUND.OutputTensor.Strides", "share memory"),
    ),
    "ROUND-same-DataType": Rule(
        good=lambda: round_op(tensor(data_type=T.FLOAT16), tensor(data_type=T.FLOAT16)),
        bad=lambda: round_op(tensor(data_type=T.FLOAT32), tensor(data_type=T.FLOAT16)),
        parts=(
            "ELEMENT_WISE_ROUND.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16",
            "InputTensor.DataType (DML_TENSOR_DATA_TYPE_FLOAT32)",
        ),
    ),
    "ROUND-same-DimensionCount": Rule(
        good=lambda: round_op(tensor(sizes=(2, 3, 4)), tensor(sizes=(2, 3, 4))),
        bad=lambda: round_op(tensor(sizes=(1, 2, 3, 4)), tensor(sizes=(2, 3, 4))),
        parts=("ELEMENT_WISE_ROUND.OutputTensor.DimensionCount is 3", "InputTensor.DimensionCount (4)"),
    ),
    "ROUND-same-Sizes": Rule(
        good=lambda: round_op(tensor(sizes=(1, 2, 4, 3)), tensor(sizes=(1, 2, 4, 3))),
        bad=lambda: round_op(tensor(sizes=(1, 2, 3, 4)), tensor(sizes=(1, 2, 4, 3))),
        parts=("ELEMENT_WISE_ROUND.OutputTensor.Sizes is (1, 2, 4, 3)", "InputTensor.Sizes ((1, 2, 3, 4))"),
    ),
    "ROUND-strides-may-differ": Rule(
        good=lambda: round_op(tensor(strides=(0, 0, 4, 1)), tensor(strides=PERMUTED)),
        bad=lambda: round_op(tensor(strides=(0, 0, 4, 1)), tensor(sizes=(1, 2, 3, 5), strides=PADDED)),
        parts=("ELEMENT_WISE_ROUND.OutputTensor.Sizes is (1, 2, 3, 5)",),
    ),
    "ROUND-float-only-INT32": Rule(
        good=lambda: both(data_type=T.FLOAT32),
        bad=lambda: both(data_type=T.INT32),
        parts=(
            "ELEMENT_WISE_ROUND.InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT32",
            "DML_FEATURE_LEVEL_3_0 allows",
            "DML_TENSOR_DATA_TYPE_FLOAT32",
            "DML_TENSOR_DATA_TYPE_FLOAT16",
        ),
    ),
    "ROUND-float-only-output": Rule(
        good=lambda: round_op(tensor(data_type=T.FLOAT16), tensor(data_type=T.FLOAT16)),
        bad=lambda: round_op(tensor(data_type=T.FLOAT16), tensor(data_type=T.INT16)),
        parts=("ELEMENT_WISE_ROUND.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_INT16", "DML_FEATURE_LEVEL_3_0"),
    ),
    "ROUND-introduced-at-2_1-vs-2_0": Rule(
        good=lambda: round_op(),
        bad=lambda: round_op(),
        good_level=FL.FL_2_1,
        bad_level=FL.FL_2_0,
        error=dml.UnsupportedError,
        parts=("ELEMENT_WISE_ROUND", "DML_FEATURE_LEVEL_2_1 or higher", "DML_FEATURE_LEVEL_2_0"),
    ),
    "ROUND-introduced-at-2_1-vs-1_0": Rule(
        good=lambda: round_op(),
        bad=lambda: round_op(),
        good_level=FL.FL_2_1,
        bad_level=FL.FL_1_0,
        error=dml.UnsupportedError,
        parts=("ELEMENT_WISE_ROUND", "DML_FEATURE_LEVEL_2_1", "DML_FEATURE_LEVEL_1_0"),
    ),
    "ROUND-exactly-4-dims-at-2_1-five": Rule(
        good=lambda: both(sizes=(1, 2, 3, 4)),
        bad=lambda: both(sizes=(1, 1, 2, 3, 4)),
        good_level=FL.FL_2_1,
        bad_level=FL.FL_2_1,
        parts=(
            "ELEMENT_WISE_ROUND.InputTensor.DimensionCount is 5; DML_FEATURE_LEVEL_2_1 allows exactly 4 "
            "(1 to 8 from DML_FEATURE_LEVEL_3_0)",
        ),
    ),
    "ROUND-exactly-4-dims-at-2_1-three": Rule(
        good=lambda: both(sizes=(2, 3, 4)),
        bad=lambda: both(sizes=(2, 3, 4)),
        good_level=FL.FL_3_0,
        bad_level=FL.FL_2_1,
        parts=(
            "ELEMENT_WISE_ROUND.InputTensor.DimensionCount is 3; DML_FEATURE_LEVEL_2_1 allows exactly 4 "
            "(1 to 8 from DML_FEATURE_LEVEL_3_0)",
        ),
    ),
    "ROUND-1-to-8-dims-from-3_0": Rule(
        good=lambda: both(sizes=(1, 1, 1, 1, 1, 2, 3, 4)),
        bad=lambda: both(sizes=(1, 1, 1, 1, 1, 1, 2, 3, 4)),
        good_level=FL.FL_3_0,
        bad_level=FL.FL_3_0,
        parts=("ELEMENT_WISE_ROUND.InputTensor.DimensionCount is 9", "1 to 8"),
    ),
}


@pytest.mark.parametrize("rule", list(RULES.values()), ids=list(RULES))
def test_rule_valid_side(rule: Rule) -> None:
    assert dml.validate(rule.good(), rule.good_level) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("rule", list(RULES.values()), ids=list(RULES))
def test_rule_invalid_side(rule: Rule) -> None:
    with pytest.raises(rule.error) as info:
        dml.validate(rule.bad(), rule.bad_level)  # type: ignore[arg-type]
    message = str(info.value)
    for part in rule.parts:
        assert part in message, f"{part!r} not in {message!r}"
    assert type(info.value) is rule.error
    expected_hresult = E_INVALIDARG if rule.error is dml.InvalidArgumentError else DXGI_ERROR_UNSUPPORTED
    assert info.value.hresult == expected_hresult


def test_dimension_count_message_at_2_1_is_verbatim() -> None:
    with pytest.raises(dml.InvalidArgumentError) as info:
        dml.validate(both(sizes=(1, 1, 2, 3, 4)), "2_1")
    assert str(info.value) == (
        "ELEMENT_WISE_ROUND.InputTensor.DimensionCount is 5; DML_FEATURE_LEVEL_2_1 allows exactly 4 "
        "(1 to 8 from DML_FEATURE_LEVEL_3_0)"
    )


@pytest.mark.parametrize("sizes", [(), (1,) * 9], ids=["0-dims", "9-dims"])
def test_dimension_count_message_below_3_0_names_the_level(sizes: tuple[int, ...]) -> None:
    # Below DML_FEATURE_LEVEL_3_0 the hard cap is DML_TENSOR_DIMENSION_COUNT_MAX = 5 and ROUND allows exactly 4;
    # the message must say what FL 2_1 allows, not "1 to 8".
    with pytest.raises(dml.InvalidArgumentError) as info:
        dml.validate(both(sizes=sizes), "2_1")
    assert "DML_FEATURE_LEVEL_2_1" in str(info.value)


def test_nine_dims_can_be_built_but_never_validate() -> None:
    # DML_BUFFER_TENSOR_DESC itself has no cap, so the model builds; validation refuses it at every level.
    desc = both(sizes=(1,) * 9)
    assert desc.input_tensor.desc.dimension_count == 9
    for level in ("2_1", "3_0", "6_4"):
        with pytest.raises(dml.InvalidArgumentError, match="DimensionCount is 9"):
            dml.validate(desc, level)


# ------------------------------------------------------------------------------------------ feature levels

LEVELS_FROM_2_1 = ["2_1", "3_0", "3_1", "4_0", "4_1", "5_0", "5_1", "5_2", "6_0", "6_1", "6_2", "6_3", "6_4"]
LEVELS_FROM_3_0 = LEVELS_FROM_2_1[1:]
LEVELS_BELOW_2_1 = ["1_0", "2_0"]
MODES = DML_MODE_IDS  # the C names without prefix, as strings: the descriptor parses them


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("level", LEVELS_FROM_2_1)
def test_every_level_from_2_1_accepts_a_valid_4d_round(level: str, data_type: dml.TensorDataType, mode: str) -> None:
    assert dml.validate(both(data_type=data_type), level) is None
    assert dml.validate(round_op(rounding_mode=mode), level) is None


@pytest.mark.parametrize("level", LEVELS_BELOW_2_1)
def test_levels_below_2_1_raise_unsupported(level: str) -> None:
    with pytest.raises(dml.UnsupportedError) as info:
        dml.validate(round_op(), level)
    assert f"DML_FEATURE_LEVEL_{level}" in str(info.value)
    assert "DML_FEATURE_LEVEL_2_1" in str(info.value)
    assert info.value.hresult == DXGI_ERROR_UNSUPPORTED
    assert not isinstance(info.value, dml.InvalidArgumentError)


@pytest.mark.parametrize("rank", range(1, 9))
@pytest.mark.parametrize("level", ["3_0", "4_1", "6_4"])
def test_ranks_1_to_8_from_3_0(level: str, rank: int) -> None:
    sizes = (2, 3, 1, 4, 1, 2, 1, 3)[:rank]
    assert dml.validate(both(sizes=sizes), level) is None
    broadcast_input = tensor(data_type=T.FLOAT16, sizes=sizes, strides=(0,) * (rank - 1) + (1,))
    assert dml.validate(round_op(broadcast_input, tensor(data_type=T.FLOAT16, sizes=sizes)), level) is None


@pytest.mark.parametrize("rank", [1, 2, 3, 5, 6, 7, 8])
def test_ranks_other_than_4_refused_at_2_1(rank: int) -> None:
    sizes = (2, 3, 1, 4, 1, 2, 1, 3)[:rank]
    with pytest.raises(dml.InvalidArgumentError, match=f"DimensionCount is {rank}; DML_FEATURE_LEVEL_2_1 allows"):
        dml.validate(both(sizes=sizes), "2_1")


@pytest.mark.parametrize("level", LEVELS_FROM_2_1)
def test_int32_refused_at_every_level(level: str) -> None:
    with pytest.raises(dml.InvalidArgumentError) as info:
        dml.validate(both(data_type=T.INT32), level)
    message = str(info.value)
    assert "ELEMENT_WISE_ROUND.InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT32" in message
    assert f"DML_FEATURE_LEVEL_{level} allows" in message


@pytest.mark.parametrize("level", LEVELS_BELOW_2_1)
def test_int32_below_2_1_is_unsupported_operator(level: str) -> None:
    with pytest.raises(dml.UnsupportedError):
        dml.validate(both(data_type=T.INT32), level)


NON_FLOAT_TYPES = ["UINT32", "UINT16", "UINT8", "INT32", "INT16", "INT8", "FLOAT64", "UINT64", "INT64", "UINT4", "INT4"]


@pytest.mark.parametrize("level", ["2_1", "3_0", "6_4"])
@pytest.mark.parametrize("data_type", NON_FLOAT_TYPES)
def test_only_float32_and_float16(level: str, data_type: str) -> None:
    with pytest.raises(dml.InvalidArgumentError, match=f"DataType is DML_TENSOR_DATA_TYPE_{data_type};"):
        dml.validate(both(data_type=data_type), level)


# ------------------------------------------------------------------------------------------- dml.validate API


@pytest.mark.parametrize(
    "form",
    [
        pytest.param(round_op, id="ElementWiseRoundOperatorDesc"),
        pytest.param(lambda: dml.OperatorDesc(type="ELEMENT_WISE_ROUND", desc=round_op()), id="OperatorDesc"),
    ],
)
def test_validate_accepts_both_descriptor_forms(form: OpFactory) -> None:
    assert dml.validate(form(), FL.FL_2_1) is None


@pytest.mark.parametrize(
    "form",
    [
        pytest.param(lambda: both(data_type=T.INT8), id="ElementWiseRoundOperatorDesc"),
        pytest.param(lambda: dml.OperatorDesc.model_validate(both(data_type=T.INT8)), id="OperatorDesc"),
    ],
)
def test_validate_checks_both_descriptor_forms(form: OpFactory) -> None:
    with pytest.raises(dml.InvalidArgumentError, match="DML_TENSOR_DATA_TYPE_INT8"):
        dml.validate(form(), FL.FL_6_4)


# A 5-D Round is refused at 2_1 and accepted from 3_0, so each spelling must parse to the right level.
LEVEL_SPELLINGS = [
    (FL.FL_2_1, False),
    ("2_1", False),
    ("DML_FEATURE_LEVEL_2_1", False),
    (0x2100, False),
    ("0x2100", False),
    (FL.FL_3_0, True),
    ("3_0", True),
    ("FL_3_0", True),
    ("3.0", True),
    ("DML_FEATURE_LEVEL_3_0", True),
    (0x3000, True),
    ("0x3000", True),
    ("DML_FEATURE_LEVEL_6_4", True),
]


@pytest.mark.parametrize(("level", "accepts_5d"), LEVEL_SPELLINGS, ids=[str(s) for s, _ in LEVEL_SPELLINGS])
def test_validate_feature_level_spellings(level: object, accepts_5d: bool) -> None:
    five_d = both(sizes=(1, 1, 2, 3, 4))
    if accepts_5d:
        assert dml.validate(five_d, level) is None  # type: ignore[arg-type]
    else:
        with pytest.raises(dml.InvalidArgumentError, match="allows exactly 4"):
            dml.validate(five_d, level)  # type: ignore[arg-type]


@pytest.mark.parametrize("level", ["9_9", 0x2500, "DML_FEATURE_LEVEL_7_0", "latest"], ids=str)
def test_validate_refuses_an_unknown_feature_level(level: object) -> None:
    with pytest.raises(ValueError):
        dml.validate(round_op(), level)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------- errors


def test_error_hierarchy_and_hresults() -> None:
    assert issubclass(dml.InvalidArgumentError, dml.DmlError)
    assert issubclass(dml.InvalidArgumentError, ValueError)
    assert issubclass(dml.UnsupportedError, dml.DmlError)
    assert issubclass(dml.DeviceRemovedError, dml.DmlError)
    assert dml.InvalidArgumentError.hresult == 0x80070057
    assert dml.UnsupportedError.hresult == 0x887A0004
    assert dml.DeviceRemovedError.hresult == 0x887A0005
    assert dml.InvalidArgumentError("x").hresult == 0x80070057


def test_invalid_argument_can_be_caught_as_value_error() -> None:
    with pytest.raises(ValueError, match="DML_TENSOR_DATA_TYPE_UNKNOWN"):
        dml.validate(both(data_type=T.UNKNOWN), "3_0")


def test_first_broken_rule_is_reported_inputs_before_outputs() -> None:
    # Both tensors break a rule; the input's is the one reported.
    op = round_op(tensor(total_tensor_size_in_bytes=98), tensor(total_tensor_size_in_bytes=102))
    with pytest.raises(dml.InvalidArgumentError, match=re.escape("InputTensor.TotalTensorSizeInBytes is 98")):
        dml.validate(op, "3_0")


@pytest.mark.xfail(strict=True, reason="LIMITATION (documented): interleaved output strides with no overlap refused")
def test_interleaved_output_strides_without_overlap_are_accepted() -> None:
    # Sizes (3, 2), strides (2, 3): addresses 2i + 3j = 0, 3, 2, 5, 4, 7, all distinct; no two elements share
    # memory, so by the rule as stated the output is valid. overlapping_dimension refuses it (its docstring says
    # it "refuses only exotic interleavings").
    op = round_op(tensor(sizes=(3, 2)), tensor(sizes=(3, 2), strides=(2, 3)))
    assert dml.validate(op, "3_0") is None
