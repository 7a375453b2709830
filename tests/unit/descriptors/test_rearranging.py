"""SPACE_TO_DEPTH, DEPTH_TO_SPACE and their *1 forms, VALUE_SCALE_2D, REVERSE_SUBSEQUENCES, NONZERO_COORDINATES, FOLD
and UNFOLD as descriptors, without OpenCL. The pages' worked examples validate from their level; each documented rule
broken is refused with a message naming the field and the rule; the output rules agree with onnx.reference
(SpaceToDepth, DepthToSpace in both modes, ReverseSequence, NonZero) and, for FOLD and UNFOLD, with an im2col and a
col2im written here in NumPy, which also give the pages' example values; JSON, the schema and the command line take
them; REVERSE_SUBSEQUENCES and NONZERO_COORDINATES plan their kernels, compiling the others says dmlpy does not run
them yet."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

import dmlpy as dml
from dmlpy.descriptors_json import parse_descriptor
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.cli import Run
from tests.helpers.schema import schema_validator
from tests.helpers.structured import tensor

T, FL = dml.TensorDataType, dml.FeatureLevel
F32, F16, I32, U32, U8 = T.FLOAT32, T.FLOAT16, T.INT32, T.UINT32, T.UINT8


def desc(operator: str, **fields: Any) -> Any:
    return dml.OPERATORS[dml.OperatorType[operator]].model_validate(fields)


def depth_space(
    operator: str = "SPACE_TO_DEPTH", block: int = 2, out: tuple[int, ...] | None = None, **fields: Any
) -> Any:
    """The pages' examples: {1, 2, 4, 6} <-> {1, 8, 2, 3} with BlockSize 2."""
    space, depth = (1, 2, 4, 6), (1, 8, 2, 3)
    source, result = (space, depth) if operator.startswith("SPACE") else (depth, space)
    order = {"Order": "DEPTH_COLUMN_ROW"} if operator.endswith("1") else {}
    given = {"BlockSize": block, **order, **fields}
    return desc(operator, InputTensor=tensor(F32, source), OutputTensor=tensor(F32, out or result), **given)


def value_scale(sizes: tuple[int, ...] = (1, 3, 2, 2), **fields: Any) -> Any:
    given = {"Scale": 0.5, "Bias": [1.0, 2.0, 3.0], **fields}
    return desc("VALUE_SCALE_2D", InputTensor=tensor(F32, sizes), OutputTensor=tensor(F32, sizes), **given)


def reverse(lengths: tuple[int, ...] = (1, 1, 4, 1), axis: int = 3, data_type: T = F32, **fields: Any) -> Any:
    """Four sequences of 4 along the last axis of {1, 1, 4, 4}, their lengths {1, 1, 4, 1}."""
    sizes = (1, 1, 4, 4)
    return desc(
        "REVERSE_SUBSEQUENCES", InputTensor=tensor(data_type, sizes), OutputTensor=tensor(data_type, sizes),
        SequenceLengthsTensor=tensor(U32, lengths), **{"Axis": axis, **fields},
    )  # fmt: skip


def nonzero(
    sizes: tuple[int, ...] = (1, 1, 2, 3),
    count: tuple[int, ...] = (1, 1, 1, 1),
    coordinates: tuple[int, ...] = (1, 1, 6, 2),
) -> Any:
    """A {1, 1, 2, 3} input: M = 6 rows of N = 2 (its effective rank) to 4 coordinates."""
    return desc(
        "NONZERO_COORDINATES", InputTensor=tensor(F32, sizes), OutputCountTensor=tensor(U32, count),
        OutputCoordinatesTensor=tensor(U32, coordinates),
    )  # fmt: skip


WINDOW = {"WindowSizes": [3, 3], "Strides": [1, 1], "Dilations": [1, 1]}
UNPADDED = {**WINDOW, "StartPadding": [0, 0], "EndPadding": [0, 0]}
PADDED = {**WINDOW, "StartPadding": [1, 0], "EndPadding": [1, 0]}


def unfold(
    sizes: tuple[int, ...] = (1, 1, 5, 5), out: tuple[int, ...] = (1, 9, 9), data_type: T = F32, **fields: Any
) -> Any:
    """UNFOLD's example 1 (example 2: PADDED, out {1, 9, 15})."""
    given = {**UNPADDED, **fields}
    return desc("UNFOLD", InputTensor=tensor(data_type, sizes), OutputTensor=tensor(data_type, out), **given)


def fold(sizes: tuple[int, ...] = (1, 9, 4), out: tuple[int, ...] = (1, 1, 4, 4), **fields: Any) -> Any:
    """FOLD's example 1 (examples 2 and 3: PADDED, {1, 9, 8} and {1, 18, 8} into {1, 1, 4, 4} and {1, 2, 4, 4})."""
    given = {**UNPADDED, **fields}
    return desc("FOLD", InputTensor=tensor(F32, sizes), OutputTensor=tensor(F32, out), **given)


EXAMPLES = {
    "SPACE_TO_DEPTH example": (depth_space(), FL.FL_1_0),
    "DEPTH_TO_SPACE example": (depth_space("DEPTH_TO_SPACE"), FL.FL_1_0),
    "SPACE_TO_DEPTH1 DEPTH_COLUMN_ROW": (depth_space("SPACE_TO_DEPTH1"), FL.FL_2_1),
    "SPACE_TO_DEPTH1 COLUMN_ROW_DEPTH": (depth_space("SPACE_TO_DEPTH1", Order="COLUMN_ROW_DEPTH"), FL.FL_2_1),
    "DEPTH_TO_SPACE1 COLUMN_ROW_DEPTH": (depth_space("DEPTH_TO_SPACE1", Order=1), FL.FL_2_1),
    "VALUE_SCALE_2D three channels": (value_scale(), FL.FL_1_0),
    "VALUE_SCALE_2D one channel": (value_scale((2, 1, 3, 3), Bias=[0.25]), FL.FL_1_0),
    "REVERSE_SUBSEQUENCES": (reverse(), FL.FL_2_1),
    "REVERSE_SUBSEQUENCES UINT8 along axis 2": (reverse((1, 1, 1, 4), axis=2, data_type=U8), FL.FL_2_1),
    "NONZERO_COORDINATES effective rank": (nonzero(), FL.FL_3_0),
    "NONZERO_COORDINATES every coordinate": (nonzero(coordinates=(1, 1, 6, 4)), FL.FL_3_0),
    "NONZERO_COORDINATES 1-D input": (nonzero((7,), (1,), (7, 1)), FL.FL_4_0),
    "UNFOLD example 1": (unfold(), FL.FL_6_4),
    "UNFOLD example 2 (padded)": (unfold(out=(1, 9, 15), **PADDED), FL.FL_6_4),
    "FOLD example 1": (fold(), FL.FL_6_4),
    "FOLD example 2 (padded)": (fold((1, 9, 8), **PADDED), FL.FL_6_4),
    "FOLD example 3 (2 channels, padded)": (fold((1, 18, 8), (1, 2, 4, 4), **PADDED), FL.FL_6_4),
}  # fmt: skip


@pytest.mark.parametrize("name", EXAMPLES)
def test_worked_examples_validate_from_their_level(name: str) -> None:
    example, level = EXAMPLES[name]
    dml.validate(example, level)
    dml.validate(example, FL.FL_6_4)
    below = [lower for lower in FL if lower < level]
    if below:
        with pytest.raises(dml.DmlError):
            dml.validate(example, below[-1])


def refused(example: OperatorDescBase, *fragments: str, level: FL = FL.FL_6_4) -> None:
    with pytest.raises(dml.InvalidArgumentError) as raised:
        dml.validate(example, level)
    for fragment in fragments:
        assert fragment in str(raised.value), (fragment, str(raised.value))


def _out(example: Any, sizes: tuple[int, ...], data_type: T = F32, field: str = "output_tensor") -> Any:
    return example.model_copy(update={field: dml.TensorDesc(desc=tensor(data_type, sizes))})


@pytest.mark.parametrize(
    ("example", "fragments"),
    [
        (depth_space(block=0), ("SPACE_TO_DEPTH.BlockSize is 0; it must be at least 1",)),
        (depth_space(block=4, out=(1, 32, 1, 1)),
         ("SPACE_TO_DEPTH.InputTensor.Sizes[3] (W) is 6; BlockSize (4) must divide it", "H / BlockSize")),
        (depth_space(block=3, out=(1, 18, 1, 2)),
         ("SPACE_TO_DEPTH.InputTensor.Sizes[2] (H) is 4; BlockSize (3) must divide it",)),
        (depth_space("DEPTH_TO_SPACE1", block=3, out=(1, 1, 6, 9)),
         ("DEPTH_TO_SPACE1.InputTensor.Sizes[1] (C) is 8; BlockSize^2 (9) must divide it",)),
        (depth_space(out=(1, 2, 4, 6)),
         ("SPACE_TO_DEPTH.OutputTensor.Sizes is [1, 2, 4, 6]; it must be [1, 8, 2, 3]: OutputTensor.Sizes = "
          "{N, C * BlockSize^2, H / BlockSize, W / BlockSize}",)),
        (depth_space("DEPTH_TO_SPACE", out=(1, 8, 2, 3)),
         ("DEPTH_TO_SPACE.OutputTensor.Sizes is [1, 8, 2, 3]; it must be [1, 2, 4, 6]: OutputTensor.Sizes = "
          "{N, C / BlockSize^2, H * BlockSize, W * BlockSize}",)),
        (_out(depth_space(), (1, 8, 2, 3), F16),
         ("SPACE_TO_DEPTH.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16", "must have the same DataType")),
        (value_scale((1, 2, 2, 2), Bias=[1.0, 2.0]), ("VALUE_SCALE_2D.ChannelCount is 2; it must be 1 or 3",)),
        (value_scale((1, 1, 2, 2)),
         ("VALUE_SCALE_2D.ChannelCount is 3; it must equal InputTensor.Sizes[1] (1)", "one term per channel")),
        (_out(value_scale(), (1, 3, 2, 1)), ("VALUE_SCALE_2D.OutputTensor.Sizes is [1, 3, 2, 1]; it must be "
                                             "[1, 3, 2, 2]: like InputTensor's Sizes",)),
        (reverse(axis=4), ("REVERSE_SUBSEQUENCES.Axis is 4; it must be less than InputTensor.DimensionCount (4)",)),
        (reverse((1, 1, 4, 4)),
         ("REVERSE_SUBSEQUENCES.SequenceLengthsTensor.Sizes is [1, 1, 4, 4]; it must be [1, 1, 4, 1]",
          "with dimension Axis (3) made 1")),
        (reverse((1, 4, 1), axis=2),
         ("SequenceLengthsTensor.DimensionCount is 3", "must have the same DimensionCount")),
        (_out(reverse(), (1, 1, 4, 4), F16),
         ("REVERSE_SUBSEQUENCES.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16",)),
        (nonzero(count=(1, 1, 1, 2)),
         ("NONZERO_COORDINATES.OutputCountTensor.Sizes is [1, 1, 1, 2]; every size must be 1",)),
        (nonzero(coordinates=(1, 1, 5, 2)),
         ("NONZERO_COORDINATES.OutputCoordinatesTensor.Sizes is [1, 1, 5, 2]; it must be {1, .., 1, 6, N} with "
          "2 <= N <= 4", "M = InputTensor's element count")),
        (nonzero(coordinates=(1, 1, 6, 1)), ("OutputCoordinatesTensor.Sizes is [1, 1, 6, 1]", "2 <= N <= 4")),
        (nonzero(coordinates=(1, 1, 6, 5)), ("OutputCoordinatesTensor.Sizes is [1, 1, 6, 5]",)),
        (nonzero(coordinates=(1, 2, 3, 2)), ("OutputCoordinatesTensor.Sizes is [1, 2, 3, 2]",)),
        (unfold(WindowSizes=[], Strides=[], Dilations=[], StartPadding=[], EndPadding=[]),
         ("UNFOLD.DimensionCount is 0; it must be from 1 to 6",)),
        (unfold((1, 1, *(2,) * 7), (1, 1, 1), **{k: [v[0]] * 7 for k, v in {**UNPADDED, "WindowSizes": [1]}.items()}),
         ("UNFOLD.InputTensor.DimensionCount is 9",)),
        (fold((1, 1, 1), (1, 1, *(1,) * 6), **{k: [v[0]] * 7 for k, v in {**UNPADDED, "WindowSizes": [1]}.items()}),
         ("FOLD.DimensionCount is 7; it must be from 1 to 6",)),
        (unfold(WindowSizes=[3, 0]), ("UNFOLD.WindowSizes[1] is 0; it must be at least 1",)),
        (unfold(Strides=[0, 1]), ("UNFOLD.Strides[0] is 0; it must be at least 1",)),
        (fold(Dilations=[1, 0]), ("FOLD.Dilations[1] is 0; it must be at least 1",)),
        (unfold((1, 1, 5, 5, 1)), ("UNFOLD.InputTensor.DimensionCount is 5; it must be 2 + DimensionCount = 4",)),
        (unfold(out=(1, 1, 9, 9)),
         ("UNFOLD.OutputTensor.DimensionCount is 4; it must be 3", "same DimensionCount' constraint contradicts")),
        (fold((1, 1, 9, 4)), ("FOLD.InputTensor.DimensionCount is 4; it must be 3",)),
        (unfold((1, 1, 5, 5), Dilations=[3, 1]),
         ("UNFOLD: the dilated window along spatial dimension 0, Dilations[0] * (WindowSizes[0] - 1) + 1 = 7, is "
          "larger than the padded size S + StartPadding + EndPadding = 5 + 0 + 0 = 5",)),
        (unfold(out=(1, 9, 8)),
         ("UNFOLD.OutputTensor.Sizes is [1, 9, 8]; it must be [1, 9, 9]", "BlockCount = prod(BlocksPerDimension)")),
        (_out(unfold(), (1, 9, 9), F16), ("UNFOLD.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16",)),
        (fold((1, 9, 5)),
         ("FOLD.InputTensor.Sizes[2] (BlockCount) is 5; it must be 4, the windows OutputTensor's spatial Sizes "
          "[4, 4] hold, BlocksPerDimension [2, 2]",)),
        (fold((1, 10, 4)), ("FOLD.InputTensor.Sizes[1] is 10; prod(WindowSizes) (9) must divide it",)),
        (fold((1, 18, 4)), ("FOLD.OutputTensor.Sizes is [1, 1, 4, 4]; it must be [1, 2, 4, 4]",)),
    ],
)  # fmt: skip
def test_each_rule_is_refused_naming_field_and_rule(example: OperatorDescBase, fragments: tuple[str, ...]) -> None:
    refused(example, *fragments)


def test_support_tables_refuse_what_the_pages_leave_out() -> None:
    with pytest.raises(dml.InvalidArgumentError, match="INT32"):
        dml.validate(desc("SPACE_TO_DEPTH", InputTensor=tensor(I32, (1, 2, 4, 6)),
                          OutputTensor=tensor(I32, (1, 8, 2, 3)), BlockSize=2), FL.FL_2_0)  # fmt: skip
    with pytest.raises(dml.InvalidArgumentError, match="OutputCountTensor"):
        dml.validate(nonzero().model_copy(update={"output_count_tensor": dml.TensorDesc(desc=tensor(I32, (1,) * 4))}),
                     FL.FL_6_4)  # fmt: skip
    with pytest.raises(dml.InvalidArgumentError, match="INT32"):
        scaled = tensor(I32, (1, 3, 2, 2))
        dml.validate(
            desc("VALUE_SCALE_2D", InputTensor=scaled, OutputTensor=scaled, Scale=1.0, Bias=[0.0] * 3), FL.FL_6_4
        )
    for level in (FL.FL_6_3, FL.FL_6_4):  # FOLD and UNFOLD: every type from their level, which the tables leave blank
        for example in (unfold(data_type=T.INT64), unfold(data_type=T.FLOAT64)):
            if level == FL.FL_6_4:
                dml.validate(example, level)
            else:
                with pytest.raises(dml.UnsupportedError):
                    dml.validate(example, level)


def test_counts_are_derived_or_checked() -> None:
    assert value_scale().channel_count == 3 and unfold().dimension_count == 2 and fold().dimension_count == 2
    with pytest.raises(dml.DescriptorProblems, match="Bias has 3 entries; ChannelCount is 1"):
        value_scale(ChannelCount=1)
    with pytest.raises(dml.DescriptorProblems, match="WindowSizes has 2 entries; DimensionCount is 3"):
        unfold(DimensionCount=3)


# ------------------------------------------------------------------------------------------- independent shapes
def _onnx(op_type: str, inputs: dict[str, np.ndarray], **attributes: Any) -> np.ndarray:
    node = helper.make_node(op_type, list(inputs), ["Y"], **attributes)
    (y,) = ReferenceEvaluator(node).run(None, inputs)
    return np.asarray(y)


def _shape(example: OperatorDescBase, index: int = 0) -> tuple[int, ...] | None:
    return example.expected_outputs()[index].sizes


@pytest.mark.parametrize("seed", range(4))
def test_depth_space_rules_agree_with_onnx_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    block = int(rng.integers(1, 4))
    n, c, h, w = (int(s) for s in rng.integers(1, 4, 4))
    x = rng.standard_normal((n, c, h * block, w * block)).astype(np.float32)
    onnx_s2d = _onnx("SpaceToDepth", {"X": x}, blocksize=block).shape
    for operator in ("SPACE_TO_DEPTH", "SPACE_TO_DEPTH1"):
        order = {"Order": "COLUMN_ROW_DEPTH"} if operator.endswith("1") else {}
        example = desc(operator, InputTensor=tensor(F32, x.shape), OutputTensor=tensor(F32, onnx_s2d),
                       BlockSize=block, **order)  # fmt: skip
        assert _shape(example) == onnx_s2d
        dml.validate(example, FL.FL_2_1)
    y = rng.standard_normal((n, c * block * block, h, w)).astype(np.float32)
    for mode, operator in (("DCR", "DEPTH_TO_SPACE"), ("DCR", "DEPTH_TO_SPACE1"), ("CRD", "DEPTH_TO_SPACE1")):
        onnx_d2s = _onnx("DepthToSpace", {"X": y}, blocksize=block, mode=mode).shape
        order = {"Order": "DEPTH_COLUMN_ROW" if mode == "DCR" else "COLUMN_ROW_DEPTH"} if operator.endswith("1") else {}
        example = desc(operator, InputTensor=tensor(F32, y.shape), OutputTensor=tensor(F32, onnx_d2s),
                       BlockSize=block, **order)  # fmt: skip
        assert _shape(example) == onnx_d2s
        dml.validate(example, FL.FL_2_1)


@pytest.mark.parametrize("seed", range(4))
def test_reverse_subsequences_and_nonzero_agree_with_onnx_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    batch, time, rest = (int(s) for s in rng.integers(1, 5, 3))
    x = rng.standard_normal((time, batch, rest, 2)).astype(np.float32)
    lengths = rng.integers(1, time + 1, batch).astype(np.int64)
    reversed_ = _onnx("ReverseSequence", {"X": x, "L": lengths}, batch_axis=1, time_axis=0)
    example = desc(
        "REVERSE_SUBSEQUENCES", InputTensor=tensor(F32, x.shape), OutputTensor=tensor(F32, reversed_.shape),
        SequenceLengthsTensor=tensor(U32, (1, *x.shape[1:])), Axis=0,
    )  # fmt: skip
    assert _shape(example) == reversed_.shape
    dml.validate(example, FL.FL_3_0)

    dense = rng.standard_normal((1, batch, rest, 3)).astype(np.float32) + 10.0  # every element non-zero
    coordinates = _onnx("NonZero", {"X": dense})  # {rank, count}: DirectML's rows transposed
    rank, count = coordinates.shape
    found = nonzero(dense.shape, (1,) * 4, (1, 1, count, rank))
    dml.validate(found, FL.FL_3_0)
    assert found.expected_outputs()[1].data_type == U32 and f"M = {dense.size}" in found.expected_outputs()[1].rule
    effective = 3 if batch > 1 else (2 if rest > 1 else 1)
    dml.validate(nonzero(dense.shape, (1,) * 4, (1, 1, count, effective)), FL.FL_3_0)
    if effective > 1:
        refused(nonzero(dense.shape, (1,) * 4, (1, 1, count, effective - 1)), f"{effective} <= N <= 4")


def _blocks(size: int, window: int, stride: int, dilation: int, start: int, end: int) -> list[int]:
    """Where each window starts in the padded axis: every start whose last tap lies inside it."""
    span = dilation * (window - 1)
    return list(range(0, size + start + end - span, stride))


def im2col(x: np.ndarray, window: list[int], strides: list[int], dilations: list[int], start: list[int],
           end: list[int]) -> np.ndarray:  # fmt: skip
    """UNFOLD written out: zero-pad, then each window position a column, channel-major within it."""
    padded = np.pad(x, [(0, 0), (0, 0), *zip(start, end, strict=True)])
    starts = [
        _blocks(s, *p)
        for s, p in zip(x.shape[2:], zip(window, strides, dilations, start, end, strict=True), strict=True)
    ]
    columns = []
    for corner in np.ndindex(*(len(s) for s in starts)):
        origin = [starts[d][i] for d, i in enumerate(corner)]
        taps = [padded[(slice(None), slice(None), *(o + dil * k for o, dil, k in zip(origin, dilations, offset,
                                                                                   strict=True)))]
                for offset in np.ndindex(*window)]  # fmt: skip
        columns.append(np.stack(taps, axis=2).reshape(x.shape[0], -1))
    return np.stack(columns, axis=2)


def col2im(cols: np.ndarray, spatial: tuple[int, ...], window: list[int], strides: list[int], dilations: list[int],
           start: list[int], end: list[int]) -> np.ndarray:  # fmt: skip
    """FOLD written out: each column added back into its window of the padded output, the padding dropped."""
    n, windowed, _ = cols.shape
    channels = windowed // int(np.prod(window))
    padded = np.zeros((n, channels, *(s + a + b for s, a, b in zip(spatial, start, end, strict=True))), cols.dtype)
    starts = [
        _blocks(s, *p) for s, p in zip(spatial, zip(window, strides, dilations, start, end, strict=True), strict=True)
    ]
    for block, corner in enumerate(np.ndindex(*(len(s) for s in starts))):
        origin = [starts[d][i] for d, i in enumerate(corner)]
        values = cols[:, :, block].reshape(n, channels, -1)
        for tap, offset in enumerate(np.ndindex(*window)):
            where = tuple(o + dil * k for o, dil, k in zip(origin, dilations, offset, strict=True))
            padded[(slice(None), slice(None), *where)] += values[:, :, tap]
    return padded[(slice(None), slice(None), *(slice(a, a + s) for a, s in zip(start, spatial, strict=True)))]


def _arrays(fields: dict[str, list[int]]) -> list[list[int]]:
    return [fields[name] for name in ("WindowSizes", "Strides", "Dilations", "StartPadding", "EndPadding")]


def test_the_numpy_im2col_and_col2im_give_the_pages_example_values() -> None:
    image = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    columns = im2col(image, *_arrays(UNPADDED))
    assert columns.shape == (1, 9, 9) and columns[0, 0].tolist() == [0, 1, 2, 5, 6, 7, 10, 11, 12]
    padded = im2col(image, *_arrays(PADDED))
    assert padded.shape == (1, 9, 15) and padded[0, 6, -3:].tolist() == [0, 0, 0]
    assert padded[0, 4].tolist() == [1, 2, 3, 6, 7, 8, 11, 12, 13, 16, 17, 18, 21, 22, 23]
    folded = col2im(np.arange(36, dtype=np.float32).reshape(1, 9, 4), (4, 4), *_arrays(UNPADDED))
    assert folded[0, 0].tolist() == [[0, 5, 13, 9], [14, 38, 54, 32], [38, 86, 102, 56], [26, 57, 65, 35]]
    folded = col2im(np.arange(144, dtype=np.float32).reshape(1, 18, 8), (4, 4), *_arrays(PADDED))
    assert folded[0, 0, 0].tolist() == [26, 70, 102, 60] and folded[0, 1, 3].tolist() == [226, 470, 502, 260]


@pytest.mark.parametrize("seed", range(6))
def test_fold_and_unfold_rules_agree_with_numpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 4))
    fields = {
        "WindowSizes": [int(s) for s in rng.integers(1, 4, count)],
        "Strides": [int(s) for s in rng.integers(1, 3, count)],
        "Dilations": [int(s) for s in rng.integers(1, 3, count)],
        "StartPadding": [int(s) for s in rng.integers(0, 2, count)],
        "EndPadding": [int(s) for s in rng.integers(0, 2, count)],
    }
    spans = [d * (w - 1) + 1 for w, d in zip(fields["WindowSizes"], fields["Dilations"], strict=True)]
    spatial = tuple(int(rng.integers(span, span + 4)) for span in spans)
    x = rng.standard_normal((2, int(rng.integers(1, 3)), *spatial)).astype(np.float32)
    columns = im2col(x, *_arrays(fields))
    unfolded = desc("UNFOLD", InputTensor=tensor(F32, x.shape), OutputTensor=tensor(F32, columns.shape), **fields)
    assert _shape(unfolded) == columns.shape
    dml.validate(unfolded, FL.FL_6_4)
    image = col2im(columns, spatial, *_arrays(fields))
    folded = desc("FOLD", InputTensor=tensor(F32, columns.shape), OutputTensor=tensor(F32, image.shape), **fields)
    assert folded.expected_outputs()[0].expected_of(image.shape) == image.shape == x.shape
    dml.validate(folded, FL.FL_6_4)


# ------------------------------------------------------------------------------------------- JSON, enums, CLI
@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip_and_schema(name: str) -> None:
    example, _ = EXAMPLES[name]
    dumped = json.loads(dml.OperatorDesc(type=example.OPERATOR_TYPE, desc=example).model_dump_json(by_alias=True))
    read = parse_descriptor(dumped)
    back = read.desc if isinstance(read, dml.OperatorDesc) else read
    assert type(back) is type(example) and back == example and hash(back) == hash(example)


def test_the_schema_accepts_each_operator() -> None:
    """One example per operator (a document's check takes a while against the whole schema)."""
    firsts = {type(example): example for example, _ in reversed(EXAMPLES.values())}
    assert len(firsts) == 9
    for example in firsts.values():
        schema_validator().validate(json.loads(dml.OperatorDesc.model_validate(example).model_dump_json(by_alias=True)))


def test_enums_take_every_spelling() -> None:
    for spelling in ("DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH", "COLUMN_ROW_DEPTH", 1):
        assert dml.DepthSpaceOrder(spelling) is dml.DepthSpaceOrder.COLUMN_ROW_DEPTH
    assert dml.DepthSpaceOrder.DEPTH_COLUMN_ROW.value == 0
    values = {t.name: t.value for t in dml.OperatorType}
    assert {name: values[name] for name in (
        "VALUE_SCALE_2D", "SPACE_TO_DEPTH", "DEPTH_TO_SPACE", "REVERSE_SUBSEQUENCES", "DEPTH_TO_SPACE1",
        "SPACE_TO_DEPTH1", "NONZERO_COORDINATES", "FOLD", "UNFOLD")} == {
        "VALUE_SCALE_2D": 65, "SPACE_TO_DEPTH": 68, "DEPTH_TO_SPACE": 69, "REVERSE_SUBSEQUENCES": 106,
        "DEPTH_TO_SPACE1": 113, "SPACE_TO_DEPTH1": 114, "NONZERO_COORDINATES": 133, "FOLD": 176, "UNFOLD": 177,
    }  # fmt: skip


def test_compiling_says_dmlpy_does_not_run_it_yet() -> None:
    assert [step.lowered.kernel.source_name for step in depth_space().plan().steps] == ["block_copy.cl"]
    assert [step.lowered.kernel.source_name for step in reverse().plan().steps] == ["reverse_subsequences.cl"]
    assert [step.lowered.kernel.source_name for step in nonzero().plan().steps] == ["nonzero_coordinates.cl"]
    channels = value_scale().channel_count
    assert [step.lowered.kernel.source_name for step in value_scale().plan().steps] == ["elementwise.cl"] * channels
    for example in (fold(), unfold()):
        with pytest.raises(dml.UnsupportedError, match="does not run it yet"):
            example.plan()


def test_dmlpy_validate_an_unfold_file(run: Run, write_json: Any) -> None:
    path = write_json(json.loads(dml.OperatorDesc(type=dml.OperatorType.UNFOLD, desc=unfold()).model_dump_json()))
    result = run("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert '"Type": "DML_OPERATOR_UNFOLD"' in result.stdout and "valid from DML_FEATURE_LEVEL_6_4" in result.stdout
    bad = json.loads(dml.OperatorDesc(type=dml.OperatorType.UNFOLD, desc=unfold(out=(1, 9, 8))).model_dump_json())
    refused_run = run("validate", str(write_json(bad, "bad.json")))
    assert refused_run.returncode == 1 and "UNFOLD.OutputTensor.Sizes is [1, 9, 8]" in refused_run.stdout
