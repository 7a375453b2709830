"""SLICE, SLICE1, SLICE_GRAD, JOIN, SPLIT, PADDING, PADDING1 and TILE as descriptors, without OpenCL. The pages'
worked examples validate from their level; each documented rule broken is refused with a message naming the field
and the rule; the output rule agrees with NumPy (slicing, np.concatenate, np.split, np.pad in its five modes,
np.tile) on random shapes; JOIN's and SPLIT's arrays of tensors bind one slot per entry; JSON, the schema and the
command line take them; compiling says dmlpy does not run them yet."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.descriptors_json import parse_descriptor
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.cli import Run
from tests.helpers.schema import schema_validator
from tests.helpers.structured import tensor

T, FL = dml.TensorDataType, dml.FeatureLevel
F32, F16, I32, U8 = T.FLOAT32, T.FLOAT16, T.INT32, T.UINT8
NUMPY_MODES = {
    "CONSTANT": "constant",
    "EDGE": "edge",
    "REFLECTION": "reflect",
    "SYMMETRIC": "symmetric",
    "WRAP": "wrap",
}


def desc(operator: str, **fields: Any) -> Any:
    return dml.OPERATORS[dml.OperatorType[operator]].model_validate(fields)


def slice_(out: tuple[int, ...] = (1, 1, 3, 2), **fields: Any) -> Any:
    """SLICE's example 1: a contiguous {1, 1, 3, 2} of the {1, 1, 4, 4} input from {0, 0, 1, 2}."""
    given = {"Offsets": [0, 0, 1, 2], "Sizes": list(out), "Strides": [1, 1, 1, 1], **fields}
    return desc("SLICE", InputTensor=tensor(F32, (1, 1, 4, 4)), OutputTensor=tensor(F32, out), **given)


def slice1(strides: tuple[int, ...] = (1, 1, 2, 2), out: tuple[int, ...] = (1, 1, 2, 2), **fields: Any) -> Any:
    """SLICE1's examples: the window {0, 0, 0, 1} + {1, 1, 4, 3} of the {1, 1, 4, 4} input."""
    window = {"InputWindowOffsets": [0, 0, 0, 1], "InputWindowSizes": [1, 1, 4, 3], **fields}
    return desc(
        "SLICE1", InputTensor=tensor(F32, (1, 1, 4, 4)), OutputTensor=tensor(F32, out),
        InputWindowStrides=list(strides), **window,
    )  # fmt: skip


def slice_grad(gradient: tuple[int, ...] = (1, 1, 2, 2), out: tuple[int, ...] = (1, 1, 4, 4), **fields: Any) -> Any:
    """SLICE_GRAD's example: every second element of a 4 x 4 window, [[a, c], [i, k]], back into 4 x 4."""
    window = {"InputWindowOffsets": [0] * 4, "InputWindowSizes": [1, 1, 4, 4], "InputWindowStrides": [1, 1, 2, 2]}
    return desc(
        "SLICE_GRAD", InputGradientTensor=tensor(F32, gradient), OutputGradientTensor=tensor(F32, out),
        **{**window, **fields},
    )  # fmt: skip


def join(parts: tuple[tuple[int, ...], ...] = ((1, 2, 3, 4), (1, 3, 3, 4)), axis: int = 1, **fields: Any) -> Any:
    out = list(parts[0])
    out[axis] = sum(part[axis] for part in parts)
    given = {"InputTensors": [tensor(F32, part) for part in parts], "OutputTensor": tensor(F32, tuple(out)), **fields}
    return desc("JOIN", Axis=axis, **given)


def split(whole: tuple[int, ...] = (1, 5, 3, 4), shares: tuple[int, ...] = (2, 3), axis: int = 1, **fields: Any) -> Any:
    outputs = [tensor(F32, (*whole[:axis], share, *whole[axis + 1 :])) for share in shares]
    return desc("SPLIT", **{"InputTensor": tensor(F32, whole), "OutputTensors": outputs, "Axis": axis, **fields})


def padding(
    mode: str = "CONSTANT",
    start: tuple[int, ...] = (0, 0, 1, 2),
    end: tuple[int, ...] = (0, 0, 1, 2),
    data_type: T = F32,
    operator: str = "PADDING",
    **fields: Any,
) -> Any:
    sizes = (1, 1, 2, 3)
    out = tuple(s + a + b for s, a, b in zip(sizes, start, end, strict=True))
    value: dict[str, Any] = {"PaddingValue": 9.0}
    if operator == "PADDING1":
        value = {"PaddingValueDataType": data_type, "PaddingValue": dml.ScalarUnion.of(9, data_type)}
    given = {"PaddingMode": mode, "StartPadding": list(start), "EndPadding": list(end), **value, **fields}
    return desc(operator, InputTensor=tensor(data_type, sizes), OutputTensor=tensor(data_type, out), **given)


def tile(repeats: tuple[int, ...] = (1, 2, 1, 3), out: tuple[int, ...] | None = None, **fields: Any) -> Any:
    sizes = (1, 1, 2, 3)
    out = out or tuple(s * r for s, r in zip(sizes, repeats, strict=True))
    return desc("TILE", InputTensor=tensor(F32, sizes), OutputTensor=tensor(F32, out), Repeats=list(repeats), **fields)


EXAMPLES = {
    "SLICE example 1 (contiguous)": (slice_(), FL.FL_1_0),
    "SLICE example 2 (strided)": (
        slice_((1, 1, 2, 2), Offsets=[0, 0, 1, 0], Strides=[1, 1, 2, 3]), FL.FL_1_0),
    "SLICE1 example 1 (positive strides)": (slice1(), FL.FL_2_1),
    "SLICE1 example 2 (negative stride)": (slice1((1, 1, -2, 2)), FL.FL_2_1),
    "SLICE1 fewer than the window reaches": (slice1(out=(1, 1, 1, 2)), FL.FL_2_1),
    "SLICE_GRAD example": (slice_grad(), FL.FL_3_0),
    "JOIN": (join(), FL.FL_1_0),
    "JOIN 1-D, one input": (join(((5,),), axis=0), FL.FL_4_1),
    "SPLIT": (split(), FL.FL_1_0),
    "PADDING CONSTANT": (padding(), FL.FL_1_0),
    "PADDING REFLECTION past the size": (padding("REFLECTION", (0, 0, 3, 4), (0, 0, 2, 5)), FL.FL_1_0),
    "PADDING SYMMETRIC": (padding("SYMMETRIC"), FL.FL_3_0),
    "PADDING1 INT32 WRAP": (padding("WRAP", data_type=I32, operator="PADDING1"), FL.FL_6_4),
    "PADDING1 UINT8 EDGE": (padding("EDGE", data_type=U8, operator="PADDING1"), FL.FL_5_0),
    "TILE": (tile(), FL.FL_1_0),
}  # fmt: skip


@pytest.mark.parametrize("name", EXAMPLES)
def test_worked_examples_validate_from_their_level(name: str) -> None:
    example, level = EXAMPLES[name]
    dml.validate(example, level)
    below = [lower for lower in FL if lower < level]
    if below:
        with pytest.raises(dml.DmlError):
            dml.validate(example, below[-1])


def refused(example: OperatorDescBase, *fragments: str, level: FL = FL.FL_6_4) -> None:
    with pytest.raises(dml.InvalidArgumentError) as raised:
        dml.validate(example, level)
    for fragment in fragments:
        assert fragment in str(raised.value), (fragment, str(raised.value))


@pytest.mark.parametrize(
    ("example", "fragments"),
    [
        (slice_(DimensionCount=4, Offsets=[0, 0, 3, 2]),
         ("SLICE.Offsets[2] + Strides[2] * (Sizes[2] - 1) is 3 + 1 * (3 - 1) = 5; it must be less than "
          "InputTensor.Sizes[2] (4)", "no out-of-bounds reads")),
        (slice_().model_copy(update={"output_tensor": dml.TensorDesc(desc=tensor(F32, (1, 1, 3, 1)))}),
         ("SLICE.OutputTensor.Sizes is [1, 1, 3, 1]; it must be [1, 1, 3, 2]: OutputTensor.Sizes[i] = Sizes[i]",)),
        (slice_().model_copy(update={"output_tensor": dml.TensorDesc(desc=tensor(F16, (1, 1, 3, 2)))}),
         ("SLICE.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal InputTensor.DataType",
          "the same DataType")),
        (slice1((1, 1, 0, 2)), ("SLICE1.InputWindowStrides[2] is 0; a stride may not be 0",)),
        (slice1(InputWindowSizes=[1, 1, 0, 3]),
         ("SLICE1.InputWindowSizes[2] is 0; the input window may not be empty",)),
        (slice1(InputWindowOffsets=[0, 0, 1, 1]),
         ("SLICE1.InputWindowOffsets[2] + InputWindowSizes[2] is 1 + 4 = 5; it must be at most InputTensor.Sizes[2] "
          "(4)",)),
        (slice1(out=(1, 1, 3, 2)),
         ("SLICE1.OutputTensor.Sizes is [1, 1, 3, 2]; each must be from 1 to MaxCopiedElements, [1, 1, 2, 2]",
          "1 + (InputWindowSizes[i] - 1) / |InputWindowStrides[i]|")),
        (slice_grad(gradient=(1, 1, 3, 2)), ("SLICE_GRAD.InputGradientTensor.Sizes is [1, 1, 3, 2]; each must be",)),
        (slice_grad(out=(1, 1, 4, 3)),
         ("SLICE_GRAD.InputWindowOffsets[3] + InputWindowSizes[3] is 0 + 4 = 4; it must be at most "
          "OutputGradientTensor.Sizes[3] (3)",)),
        (slice_grad(InputWindowStrides=[1, 1, 0, 2]), ("SLICE_GRAD.InputWindowStrides[2] is 0",)),
        (join().model_copy(update={"axis": 4}),
         ("JOIN.Axis is 4; it must be less than OutputTensor.DimensionCount (4)",)),
        (join(((1, 2, 3, 4), (1, 3, 2, 4))),
         ("JOIN.InputTensors[1].Sizes[2] is 2; it must equal InputTensors[0].Sizes[2] (3): the parts differ only "
          "along Axis (1)",)),
        (join().model_copy(update={"output_tensor": dml.TensorDesc(desc=tensor(F32, (1, 6, 3, 4)))}),
         ("JOIN.OutputTensor.Sizes is [1, 6, 3, 4]; it must be [1, 5, 3, 4]", "the sum of InputTensors[i].Sizes[1]")),
        (join().model_copy(update={"inputs": (dml.TensorDesc(desc=tensor(F32, (1, 2, 3, 4))),
                                              dml.TensorDesc(desc=tensor(F16, (1, 3, 3, 4))))}),
         ("JOIN.InputTensors[1].DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal InputTensors[0].DataType",
          "(the page: InputTensors and OutputTensor must have the same DataType)")),
        (join().model_copy(update={"inputs": (), "input_count": 0}),
         ("JOIN.InputCount is 0; it must be at least 1",)),
        (split(axis=1).model_copy(update={"axis": 4}), ("SPLIT.Axis is 4; it must be less than InputTensor",)),
        (split(shares=(2, 2)),
         ("SPLIT.OutputTensors[i].Sizes[1] sum to 2 + 2 = 4; they must sum to InputTensor.Sizes[1] (5)",)),
        (split().model_copy(update={"outputs": (dml.TensorDesc(desc=tensor(F32, (1, 2, 3, 4))),
                                                dml.TensorDesc(desc=tensor(F32, (1, 3, 3, 5))))}),
         ("SPLIT.OutputTensors[1].Sizes is [1, 3, 3, 5]; it must be [1, 3, 3, 4]",)),
        (padding().model_copy(update={"output_tensor": dml.TensorDesc(desc=tensor(F32, (1, 1, 4, 6)))}),
         ("PADDING.OutputTensor.Sizes is [1, 1, 4, 6]; it must be [1, 1, 4, 7]: OutputTensor.Sizes[i] = "
          "InputTensor.Sizes[i] + StartPadding[i] + EndPadding[i]",)),
        (padding().model_copy(update={"start_padding": (0, 1, 2), "end_padding": (0, 1, 2), "dimension_count": 3}),
         ("PADDING.DimensionCount is 3; it must equal InputTensor.DimensionCount (4)",)),
        (padding("WRAP", operator="PADDING1"), ("PADDING1.PaddingMode is DML_PADDING_MODE_WRAP; it needs "
                                                "DML_FEATURE_LEVEL_6_4",)),
        (padding(operator="PADDING1", PaddingValueDataType="FLOAT16"),
         ("PADDING1.PaddingValueDataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must be OutputTensor.DataType",)),
        (padding(operator="PADDING1", data_type=I32, PaddingValue={"Float32": 1.0}),
         ("PADDING1.PaddingValue gives Float32; PaddingValueDataType INT32 reads the union's Int32",)),
        (tile((1, 0, 1, 3), out=(1, 1, 2, 9)), ("TILE.Repeats[1] is 0; it must be at least 1",)),
        (tile((1, 2, 3), out=(1, 2, 6, 3)), ("TILE.RepeatsCount is 3; it must equal InputTensor.DimensionCount (4)",)),
        (tile(out=(1, 2, 2, 6)),
         ("TILE.OutputTensor.Sizes is [1, 2, 2, 6]; it must be [1, 2, 2, 9]: OutputTensor.Sizes[i] = "
          "InputTensor.Sizes[i] * Repeats[i]",)),
    ],
    ids=["slice out of bounds", "slice output sizes", "slice types", "slice1 zero stride", "slice1 empty window",
         "slice1 window out", "slice1 output too large", "slice_grad gradient too large", "slice_grad window out",
         "slice_grad zero stride", "join axis", "join part sizes", "join output sum", "join part type",
         "join no input", "split axis", "split sum", "split output sizes", "padding output", "padding count",
         "padding1 wrap level", "padding1 value type", "padding1 member", "tile zero",
         "tile count", "tile output"],
)  # fmt: skip
def test_each_rule_is_refused_naming_field_and_rule(example: OperatorDescBase, fragments: tuple[str, ...]) -> None:
    refused(example, *fragments, level=FL.FL_6_3 if "WRAP" in fragments[0] else FL.FL_6_4)


def test_symmetric_is_refused_below_3_0_only() -> None:
    refused(padding("SYMMETRIC"), "PaddingMode is DML_PADDING_MODE_SYMMETRIC", level=FL.FL_2_1)
    dml.validate(padding("SYMMETRIC"), FL.FL_3_0)


def test_counts_are_derived_or_checked() -> None:
    assert slice1().dimension_count == 4 and join().input_count == 2 and split().output_count == 2
    assert tile().repeats_count == 4 and padding().dimension_count == 4
    with pytest.raises(dml.DescriptorProblems, match="InputWindowOffsets has 4 entries; DimensionCount is 3"):
        slice1(DimensionCount=3)
    with pytest.raises(dml.DescriptorProblems, match="InputTensors has 2 entries; InputCount is 3"):
        join(InputCount=3)
    with pytest.raises(dml.DescriptorProblems, match="at most 2147483647"):
        slice1((1, 1, 2**31, 1))


def test_arrays_of_tensors_bind_one_slot_per_entry() -> None:
    joined, parted = join(((1, 1, 1, 2), (1, 2, 1, 2), (1, 3, 1, 2))), split(shares=(1, 1, 3))
    assert joined.input_fields() == ("inputs[0]", "inputs[1]", "inputs[2]")
    assert joined.tensor_fields()[-1] == "output_tensor" and joined.c_field("inputs[2]") == "InputTensors[2]"
    assert [t.desc.sizes[1] for t in joined.input_tensors() if t is not None] == [1, 2, 3]
    assert parted.output_fields() == ("outputs[0]", "outputs[1]", "outputs[2]")
    assert getattr(parted, "outputs[2]") is parted.outputs[2]
    assert [shape.sizes for shape in parted.expected_outputs()] == [(1, 1, 3, 4), (1, 1, 3, 4), (1, 3, 3, 4)]
    with pytest.raises(AttributeError):
        getattr(parted, "outputs[3]")


@pytest.mark.parametrize("seed", range(6))
def test_output_rules_agree_with_numpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(1, 6))
    shape = tuple(int(s) for s in rng.integers(1, 7, rank))
    x = np.zeros(shape, np.float32)
    source = {"input_tensor": tensor(F32, shape)}
    # SLICE: Offsets, Sizes, Strides that stay inside; NumPy's basic slicing.
    strides = [int(s) for s in rng.integers(1, 4, rank)]
    offsets = [int(rng.integers(0, size)) for size in shape]
    sizes = [1 + (size - 1 - o) // s for size, o, s in zip(shape, offsets, strides, strict=True)]
    sliced = x[tuple(slice(o, o + s * (n - 1) + 1, s) for o, n, s in zip(offsets, sizes, strides, strict=True))]
    fields = {"offsets": offsets, "sizes": sizes, "strides": strides}
    assert dml.SliceOperatorDesc.output_shapes(source, fields)[0].sizes == sliced.shape
    # SLICE1: a window and a signed stride; NumPy's slicing from the window's start or end.
    window_offsets = [int(rng.integers(0, size)) for size in shape]
    window_sizes = [int(rng.integers(1, size - o + 1)) for size, o in zip(shape, window_offsets, strict=True)]
    signed = [int(s) * int(rng.choice([-1, 1])) for s in rng.integers(1, 4, rank)]
    reached = x[tuple(
        slice(o, o + n, s) if s > 0 else slice(o + n - 1, o - 1 if o else None, s)
        for o, n, s in zip(window_offsets, window_sizes, signed, strict=True)
    )]  # fmt: skip
    window = {"input_window_offsets": window_offsets, "input_window_sizes": window_sizes,
              "input_window_strides": signed}  # fmt: skip
    assert dml.Slice1OperatorDesc.output_shapes(source, window)[0].sizes == reached.shape
    dml.validate(dml.Slice1OperatorDesc(input_tensor=source["input_tensor"], output_tensor=tensor(F32, reached.shape),
                                        **window), FL.FL_4_1)  # fmt: skip
    # JOIN and SPLIT: np.concatenate and np.split along a random axis.
    axis = int(rng.integers(0, rank))
    parts = [np.zeros((*shape[:axis], int(n), *shape[axis + 1 :])) for n in rng.integers(1, 4, int(rng.integers(1, 4)))]
    joined = np.concatenate(parts, axis=axis)
    inputs = {f"inputs[{i}]": tensor(F32, part.shape) for i, part in enumerate(parts)}
    assert dml.JoinOperatorDesc.output_shapes(inputs, {"axis": axis})[0].sizes == joined.shape
    cuts = np.cumsum([part.shape[axis] for part in parts])[:-1]
    pieces = np.split(joined, cuts, axis=axis)
    shares = {"axis": axis, "output_count": len(parts), "output_axis_sizes": [p.shape[axis] for p in pieces]}
    whole = {"input_tensor": tensor(F32, joined.shape)}
    assert [s.sizes for s in dml.SplitOperatorDesc.output_shapes(whole, shares)] == [p.shape for p in pieces]
    even = {"axis": axis, "output_count": 1 if joined.shape[axis] % 2 else 2}
    sections = np.split(joined, even["output_count"], axis=axis)
    assert [s.sizes for s in dml.SplitOperatorDesc.output_shapes(whole, even)] == [p.shape for p in sections]
    # TILE: np.tile.
    repeats = [int(r) for r in rng.integers(1, 4, rank)]
    assert dml.TileOperatorDesc.output_shapes(source, {"repeats": repeats})[0].sizes == np.tile(x, repeats).shape


@pytest.mark.parametrize("mode", NUMPY_MODES)
def test_padding_rule_agrees_with_np_pad_in_every_mode(mode: str) -> None:
    """Random paddings, past the input's size too (the pages allow it for the mirrors; NumPy folds again)."""
    rng = np.random.default_rng(len(mode))
    for _ in range(4):
        rank = int(rng.integers(1, 6))
        shape = tuple(int(s) for s in rng.integers(2, 5, rank))
        start, end = ([int(p) for p in rng.integers(0, 7, rank)] for _ in range(2))
        padded = np.pad(np.arange(np.prod(shape)).reshape(shape), list(zip(start, end, strict=True)), NUMPY_MODES[mode])
        fields = {"start_padding": start, "end_padding": end}
        for operator in (dml.PaddingOperatorDesc, dml.Padding1OperatorDesc):
            assert operator.output_shapes({"input_tensor": tensor(I32, shape)}, fields)[0].sizes == padded.shape
        typed = {"PaddingValueDataType": "INT32", "PaddingValue": {"Int32": -1}}
        built = dml.Padding1OperatorDesc.model_validate({
            "InputTensor": tensor(I32, shape), "OutputTensor": tensor(I32, padded.shape), "PaddingMode": mode,
            "StartPadding": start, "EndPadding": end, **typed,
        })  # fmt: skip
        dml.validate(built, FL.FL_6_4)


def test_slice1_example_values_follow_numpy() -> None:
    """The examples' values: CopyStart + InputWindowStrides * c, as NumPy's slicing of the page's input."""
    x = np.arange(1, 17).reshape(1, 1, 4, 4)
    assert x[:, :, 0:4:2, 1:4:2].tolist() == [[[[2, 4], [10, 12]]]]
    assert x[:, :, 3::-2, 1:4:2].tolist() == [[[[14, 16], [6, 8]]]]
    assert slice1((1, 1, -2, 2)).expected_outputs()[0].sizes == (1, 1, 2, 2)


@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip_and_schema(name: str) -> None:
    example, _ = EXAMPLES[name]
    dumped = json.loads(dml.OperatorDesc(type=example.OPERATOR_TYPE, desc=example).model_dump_json(by_alias=True))
    read = parse_descriptor(dumped)
    back = read.desc if isinstance(read, dml.OperatorDesc) else read
    assert type(back) is type(example) and back == example and hash(back) == hash(example)
    schema_validator().validate(dumped)


def test_enums_take_every_spelling() -> None:
    for spelling in ("DML_PADDING_MODE_SYMMETRIC", "SYMMETRIC", 3):
        assert dml.PaddingMode(spelling) is dml.PaddingMode.SYMMETRIC
    assert dml.PaddingMode.WRAP.value == 4 and dml.PaddingMode.REFLECTION.value == 2
    values = {t.name: t.value for t in dml.OperatorType}
    names = ("SLICE", "SPLIT", "JOIN", "PADDING", "TILE", "SLICE1", "SLICE_GRAD", "PADDING1")
    assert {n: values[n] for n in names} == {
        "SLICE": 60, "SPLIT": 62, "JOIN": 63, "PADDING": 64, "TILE": 70, "SLICE1": 111, "SLICE_GRAD": 135,
        "PADDING1": 155,
    }  # fmt: skip


def test_each_runs_as_copies_and_slice_grad_is_not_run_yet() -> None:
    """A strided window is Identity's copy (elementwise.cl), one per part of JOIN and SPLIT, each part's window of
    the whole reached by shifting its binding; a window read backwards, PADDING and TILE run movement.cl."""
    kernels = {
        name: [(step.lowered.kernel.source_name, [ref.shift for ref in step.tensors if ref]) for step in e.plan().steps]
        for name, e in {
            "join": join(), "split": split(), "padding": padding(), "tile": tile(), "slice": slice_(),
            "forwards": slice1(), "backwards": slice1(strides=(1, 1, -2, 2)),
        }.items()
    }  # fmt: skip
    assert kernels["join"] == [("elementwise.cl", [0, 0]), ("elementwise.cl", [0, 2 * 3 * 4])]
    assert kernels["split"] == [("elementwise.cl", [0, 0]), ("elementwise.cl", [2 * 3 * 4, 0])]
    assert kernels["forwards"][0][0] == kernels["slice"][0][0] == "elementwise.cl"
    assert kernels["backwards"][0][0] == kernels["padding"][0][0] == kernels["tile"][0][0] == "movement.cl"
    with pytest.raises(dml.UnsupportedError, match="does not run it yet"):
        slice_grad().plan()


def test_dmlpy_validate_a_join_file(run: Run, write_json: Any) -> None:
    path = write_json(json.loads(dml.OperatorDesc(type=dml.OperatorType.JOIN, desc=join()).model_dump_json()))
    result = run("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert '"Type": "DML_OPERATOR_JOIN"' in result.stdout and "InputTensors[1]" in result.stdout
    assert "valid from DML_FEATURE_LEVEL_1_0" in result.stdout
    bad = join().model_copy(update={"output_tensor": dml.TensorDesc(desc=tensor(F32, (1, 6, 3, 4)))})
    refused_run = run("validate", str(write_json(json.loads(dml.OperatorDesc.model_validate(bad).model_dump_json()),
                                                 "bad.json")))  # fmt: skip
    assert refused_run.returncode == 1 and "JOIN.OutputTensor.Sizes is [1, 6, 3, 4]" in refused_run.stdout
