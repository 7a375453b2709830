"""The gathers, scatters, ONE_HOT and the generators as descriptors, without OpenCL: GATHER, GATHER_ELEMENTS,
GATHER_ND, GATHER_ND1, SCATTER_ELEMENTS (alias SCATTER), SCATTER_ND, ONE_HOT, FILL_VALUE_CONSTANT,
FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX, DIAGONAL_MATRIX1 and RANDOM_GENERATOR. The pages' worked examples validate
from their levels; each documented rule broken is refused naming the field and the rule; the output rules agree with
ONNX's reference Gather, GatherElements, GatherND, ScatterElements, ScatterND, OneHot and EyeLike on random arrays;
JSON, the schema and the alias take them; compiling says dmlpy does not run them yet."""

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
from tests.helpers.schema import schema_validator
from tests.helpers.structured import tensor

T, FL = dml.TensorDataType, dml.FeatureLevel
F32, U32, I32 = T.FLOAT32, T.UINT32, T.INT32


def desc(cls: type[OperatorDescBase], **fields: Any) -> Any:
    """A descriptor of ``cls``: tensors given as (DataType, Sizes) pairs, the other fields as they are."""
    built = {k: tensor(*v) if isinstance(v, tuple) and isinstance(v[0], T) else v for k, v in fields.items()}
    return cls.model_validate(built)


def gather(i: tuple[int, ...], x: tuple[int, ...], o: tuple[int, ...], axis: int, k: int, it: T = U32) -> Any:
    return desc(
        dml.GatherOperatorDesc, InputTensor=(F32, i), IndicesTensor=(it, x), OutputTensor=(F32, o), Axis=axis,
        IndexDimensions=k,
    )  # fmt: skip


def gather_nd(i: tuple[int, ...], x: tuple[int, ...], o: tuple[int, ...], n: int, m: int, batch: int = 0) -> Any:
    fields = {"InputTensor": (F32, i), "IndicesTensor": (U32, x), "OutputTensor": (F32, o)}
    fields |= {"InputDimensionCount": n, "IndicesDimensionCount": m, "BatchDimensionCount": batch}
    return desc(dml.GatherNd1OperatorDesc, **fields)


def scatter(i: tuple[int, ...], x: tuple[int, ...], u: tuple[int, ...], axis: int) -> Any:
    return desc(
        dml.ScatterElementsOperatorDesc, InputTensor=(F32, i), IndicesTensor=(U32, x), UpdatesTensor=(F32, u),
        OutputTensor=(F32, i), Axis=axis,
    )  # fmt: skip


def scatter_nd(i: tuple[int, ...], x: tuple[int, ...], u: tuple[int, ...], n: int, m: int) -> Any:
    return desc(
        dml.ScatterNdOperatorDesc, InputTensor=(F32, i), IndicesTensor=(U32, x), UpdatesTensor=(F32, u),
        OutputTensor=(F32, i), InputDimensionCount=n, IndicesDimensionCount=m,
    )  # fmt: skip


def one_hot(x: tuple[int, ...], v: tuple[int, ...], o: tuple[int, ...], axis: int, it: T = U32) -> Any:
    fields = {"IndicesTensor": (it, x), "ValuesTensor": (F32, v), "OutputTensor": (F32, o), "Axis": axis}
    return desc(dml.OneHotOperatorDesc, **fields)


def fill(data_type: T = F32, sizes: tuple[int, ...] = (2, 3), **fields: Any) -> Any:
    value = {"ValueDataType": data_type, "Value": dml.ScalarUnion.of(7, data_type)}
    return desc(dml.FillValueConstantOperatorDesc, OutputTensor=(data_type, sizes), **{**value, **fields})


def sequence(data_type: T = T.UINT8, start: int = 10, delta: Any = None) -> Any:
    delta = dml.ScalarUnion(bytes=(254, 0, 0, 0, 0, 0, 0, 0)) if delta is None else delta  # -2 as a UINT8: 254
    return desc(
        dml.FillValueSequenceOperatorDesc, OutputTensor=(data_type, (1, 1, 2, 3)), ValueDataType=data_type,
        ValueStart=dml.ScalarUnion.of(start, data_type), ValueDelta=delta,
    )  # fmt: skip


def diagonal1(output: tuple[int, ...] = (4, 5), given: bool = False, **fields: Any) -> Any:
    base = {"OutputTensor": (F32, output), "ValueDataType": F32, "Value": dml.ScalarUnion.of(7.0, F32)}
    base |= {"DiagonalFillBegin": 0, "DiagonalFillEnd": 3, **({"InputTensor": (F32, output)} if given else {})}
    return desc(dml.DiagonalMatrix1OperatorDesc, **{**base, **fields})


def random(output: tuple[int, ...] = (1, 1, 2, 5), state: tuple[int, ...] = (1, 1, 1, 6), out_state: Any = True) -> Any:
    fields = {"InputStateTensor": (U32, state), "OutputTensor": (U32, output), "Type": "PHILOX_4X32_10"}
    if out_state:
        fields["OutputStateTensor"] = (U32, state if out_state is True else out_state)
    return desc(dml.RandomGeneratorOperatorDesc, **fields)


EXAMPLES = {
    # GATHER's page: Example 1 (1-D), 2 (rows), 3 (swap columns: IndexDimensions 1, see the docs), 4 and 5 (nested).
    "GATHER 1": (gather((1, 1, 1, 4), (1, 1, 1, 5), (1, 1, 1, 5), 3, 1), FL.FL_1_0),
    "GATHER 1, 1-D": (gather((4,), (5,), (5,), 0, 1), FL.FL_3_0),
    "GATHER 2": (gather((3, 2), (1, 4), (4, 2), 0, 1), FL.FL_3_0),
    "GATHER 3": (gather((3, 2), (1, 2), (3, 2), 1, 1), FL.FL_3_0),
    "GATHER 4": (gather((1, 3, 3), (1, 1, 2), (3, 1, 2), 2, 2), FL.FL_3_0),
    "GATHER 5": (gather((1, 3, 2), (1, 2, 2), (2, 2, 2), 1, 2), FL.FL_3_0),
    "GATHER_ELEMENTS": (
        desc(dml.GatherElementsOperatorDesc, InputTensor=(F32, (1, 1, 3, 3)), IndicesTensor=(U32, (1, 1, 2, 3)),
             OutputTensor=(F32, (1, 1, 2, 3)), Axis=2),
        FL.FL_2_1,
    ),
    "GATHER_ND": (
        desc(dml.GatherNdOperatorDesc, InputTensor=(F32, (3, 4, 5, 6, 7)), IndicesTensor=(U32, (1, 1, 1, 2, 3)),
             OutputTensor=(F32, (1, 1, 2, 6, 7)), InputDimensionCount=5, IndicesDimensionCount=3),
        FL.FL_3_0,
    ),
    "GATHER_ND1 1": (gather_nd((2, 2), (2, 1), (2, 2), 2, 2), FL.FL_3_0),
    "GATHER_ND1 2, batched": (gather_nd((1, 3, 2, 2), (1, 3, 2, 2), (1, 1, 3, 2), 3, 3, 1), FL.FL_3_0),
    "SCATTER_ELEMENTS": (scatter((1, 1, 3, 3), (1, 1, 2, 3), (1, 1, 2, 3), 2), FL.FL_2_0),
    "SCATTER_ND": (scatter_nd((1, 8), (4, 1), (1, 4), 1, 2), FL.FL_3_0),
    "ONE_HOT 1": (one_hot((1, 1, 3, 1), (1, 1, 1, 2), (1, 1, 3, 4), 3), FL.FL_2_0),
    "ONE_HOT 2": (one_hot((1, 1, 1, 4), (1, 1, 1, 2), (1, 1, 3, 4), 2), FL.FL_2_0),
    "ONE_HOT 3": (one_hot((1, 1, 3, 1), (1, 1, 3, 1), (1, 1, 3, 4), 3), FL.FL_2_0),
    "ONE_HOT 4, negative": (one_hot((1, 1, 3, 1), (1, 1, 1, 2), (1, 1, 3, 4), 3, I32), FL.FL_3_0),
    "FILL_VALUE_CONSTANT": (fill(F32, (1, 1, 2, 3)), FL.FL_2_1),
    "FILL_VALUE_CONSTANT FLOAT16, 2-D": (fill(T.FLOAT16, (2, 3)), FL.FL_4_0),
    "FILL_VALUE_SEQUENCE 2": (sequence(), FL.FL_2_1),
    "DIAGONAL_MATRIX": (desc(dml.DiagonalMatrixOperatorDesc, OutputTensor=(F32, (1, 1, 4, 5)), Offset=-1, Value=1.0),
                        FL.FL_2_0),
    "DIAGONAL_MATRIX1 strip": (diagonal1(), FL.FL_5_1),
    "DIAGONAL_MATRIX1 upper triangle": (diagonal1(given=True, DiagonalFillBegin=-(2**31), DiagonalFillEnd=1),
                                        FL.FL_5_1),
    "RANDOM_GENERATOR": (random(), FL.FL_3_0),
    "RANDOM_GENERATOR 1-D, no state out": (random((10,), (6,), out_state=False), FL.FL_4_0),
}  # fmt: skip


@pytest.mark.parametrize("name", EXAMPLES)
def test_worked_examples_validate_from_their_level(name: str) -> None:
    example, level = EXAMPLES[name]
    dml.validate(example, level)
    below = [lower for lower in FL if lower < level]
    if below:
        with pytest.raises(dml.DmlError):
            dml.validate(example, below[-1])


def test_scatter_follows_the_header_from_2_0_and_its_alias_is_the_same_operator() -> None:
    example, _ = EXAMPLES["SCATTER_ELEMENTS"]
    with pytest.raises(dml.UnsupportedError, match="SCATTER_ELEMENTS needs DML_FEATURE_LEVEL_2_0"):
        dml.validate(example, FL.FL_1_0)
    assert dml.ScatterOperatorDesc is dml.ScatterElementsOperatorDesc
    for spelling in ("DML_OPERATOR_SCATTER", "SCATTER", "DML_OPERATOR_SCATTER_ELEMENTS", 94):
        assert dml.OperatorType(spelling) is dml.OperatorType.SCATTER_ELEMENTS
    dumped = json.loads(dml.OperatorDesc.model_validate(example).model_dump_json(by_alias=True))
    dumped["Type"] = "DML_OPERATOR_SCATTER"
    schema_validator().validate(dumped)
    read = parse_descriptor(dumped)
    assert (read.desc if isinstance(read, dml.OperatorDesc) else read) == example
    assert "DML_OPERATOR_SCATTER" in dml.OperatorType.spellings()


def refused(example: OperatorDescBase, *fragments: str, level: FL = FL.FL_6_4) -> None:
    with pytest.raises(dml.InvalidArgumentError) as raised:
        dml.validate(example, level)
    for fragment in fragments:
        assert fragment in str(raised.value), (fragment, str(raised.value))


L64 = FL.FL_6_4
REFUSALS = [
    (gather((3, 2), (1, 4), (4, 2), 2, 1), L64,
     "GATHER.Axis is 2; it must be less than InputTensor.DimensionCount (2)"),
    (gather((3, 2), (1, 4), (4, 2), 0, 3), L64, "GATHER.IndexDimensions is 3; it must be in [0, 2]", "Example 1"),
    (gather((3, 2), (2, 4), (4, 2), 0, 1), L64,
     "GATHER.IndicesTensor.Sizes[0] is 2; it must be 1", "IndexDimensions (1)"),
    (gather((3, 2), (1, 2), (3, 2), 1, 2), L64,
     "GATHER: InputTensor.Sizes[0..Axis)", "[3, 1, 2]", "drops a size other than 1"),
    (gather((3, 2), (1, 4), (2, 4), 0, 1), L64,
     "GATHER.OutputTensor.Sizes is [2, 4]; it must be [4, 2]: InputTensor.Sizes[0..Axis)"),
    (gather((3, 2, 1, 1), (1, 1, 1, 4), (4, 2, 1, 1), 0, 1, I32), FL.FL_2_1,
     "IndicesTensor.DataType is DML_TENSOR_DATA_TYPE_INT32"),
    (desc(dml.GatherElementsOperatorDesc, InputTensor=(F32, (3, 3)), IndicesTensor=(U32, (2, 2)),
          OutputTensor=(F32, (2, 2)), Axis=0), L64,
     "GATHER_ELEMENTS.IndicesTensor.Sizes[1] is 2; it must equal InputTensor.Sizes[1] (3)", "but along Axis (0)"),
    (desc(dml.GatherElementsOperatorDesc, InputTensor=(F32, (3, 3)), IndicesTensor=(U32, (2, 3)),
          OutputTensor=(T.FLOAT16, (2, 3)), Axis=0), L64,
     "OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal InputTensor", "the same DataType"),
    (gather_nd((2, 2), (2, 1), (2, 2), 3, 2), L64, "GATHER_ND1.InputDimensionCount is 3; it must be in [1, 2]"),
    (gather_nd((2, 2), (2, 3), (1, 2), 2, 2), L64,
     "IndicesTensor.Sizes[1] is 3; it must be at most InputDimensionCount"),
    (gather_nd((3, 2), (2, 1), (2, 2), 1, 2), L64, "GATHER_ND1.InputTensor.Sizes[0] is 3; it must be 1"),
    (gather_nd((1, 3, 2, 2), (1, 4, 2, 2), (1, 1, 4, 2), 3, 3, 1), L64,
     "GATHER_ND1.IndicesTensor's batch Size 0 is 4; it must equal InputTensor's (3)"),
    (gather_nd((1, 3, 2, 2), (1, 3, 2, 2), (1, 1, 3, 2), 3, 3, 3), L64,
     "BatchDimensionCount is 3; it must be less than"),
    (gather_nd((2, 2), (2, 1), (2, 1), 2, 2), L64, "GATHER_ND1.OutputTensor.Sizes is [2, 1]; it must be [2, 2]"),
    (scatter((3, 3), (2, 2), (2, 2), 0), L64,
     "SCATTER_ELEMENTS.IndicesTensor.Sizes[1] is 2; it must equal InputTensor"),
    (scatter((3, 3), (2, 3), (3, 3), 0), L64,
     "SCATTER_ELEMENTS.UpdatesTensor.Sizes[0] is 3; it must equal IndicesTensor"),
    (scatter((3, 3), (2, 3), (2, 3), 2), L64,
     "SCATTER_ELEMENTS.Axis is 2; it must be less than OutputTensor.DimensionCount"),
    (scatter_nd((1, 8), (4, 1), (4, 1), 1, 2), L64, "SCATTER_ND.UpdatesTensor.Sizes is [4, 1]; it must be [1, 4]"),
    (scatter_nd((1, 8), (4, 1), (1, 4), 3, 2), L64, "SCATTER_ND.InputDimensionCount is 3; it must be in [1, 2]"),
    (scatter_nd((1, 8), (4, 2), (1, 4), 1, 2), L64, "SCATTER_ND.IndicesTensor.Sizes[1] is 2; it must be at most"),
    (one_hot((1, 1, 3, 2), (1, 1, 1, 2), (1, 1, 3, 4), 3), L64, "ONE_HOT.IndicesTensor.Sizes[3] is 2; it must be 1"),
    (one_hot((1, 1, 3, 1), (1, 1, 1, 1), (1, 1, 3, 4), 3), L64,
     "ONE_HOT.ValuesTensor.Sizes is [1, 1, 1, 1], 1 element"),
    (one_hot((1, 1, 3, 1), (1, 1, 1, 2), (1, 1, 3, 4), 4), L64,
     "ONE_HOT.Axis is 4; it must be less than IndicesTensor"),
    (one_hot((1, 1, 3, 1), (1, 1, 1, 2), (1, 2, 3, 4), 3), L64,
     "ONE_HOT.OutputTensor.Sizes is [1, 2, 3, 4]; it must be [1, 1, 3, 4]: IndicesTensor.Sizes, but Sizes[3]"),
    (fill(F32, ValueDataType=T.INT32), L64,
     "FILL_VALUE_CONSTANT.ValueDataType is INT32; it must be OutputTensor.DataType"),
    (fill(F32, Value=dml.ScalarUnion(int32=7)), L64,
     "FILL_VALUE_CONSTANT.Value gives Int32; ValueDataType FLOAT32 reads"),
    (sequence(T.UINT8, delta=dml.ScalarUnion(uint8=300)), L64, "FILL_VALUE_SEQUENCE.ValueDelta.UInt8 is 300"),
    (diagonal1(given=True, OutputTensor=(F32, (4, 6))), L64,
     "DIAGONAL_MATRIX1.OutputTensor.Sizes is [4, 6]; it must be [4, 5]"),
    (diagonal1(ValueDataType=T.FLOAT16), L64, "DIAGONAL_MATRIX1.ValueDataType is FLOAT16; it must be OutputTensor"),
    (random(state=(1, 1, 2, 3)), L64,
     "RANDOM_GENERATOR.InputStateTensor.Sizes is [1, 1, 2, 3]; it must be [1, 1, 1, 6]"),
    (random(out_state=(1, 1, 6, 1)), L64,
     "RANDOM_GENERATOR.OutputStateTensor.Sizes is [1, 1, 6, 1]; it must be [1, 1, 1, 6]"),
    (random(out_state=(1, 6)), L64, "OutputStateTensor.DimensionCount is 2; it must equal InputStateTensor"),
]  # fmt: skip


@pytest.mark.parametrize("case", REFUSALS, ids=lambda case: case[2][:60])
def test_each_rule_is_refused_naming_field_and_rule(case: tuple[Any, ...]) -> None:
    example, level, *fragments = case
    refused(example, *fragments, level=level)


def test_fields_are_c_integers() -> None:
    with pytest.raises(dml.DescriptorProblems, match="Axis"):
        gather((3, 2), (1, 4), (4, 2), -1, 1)
    with pytest.raises(dml.DescriptorProblems, match="DiagonalFillBegin"):
        diagonal1(DiagonalFillBegin=2**31)
    with pytest.raises(dml.DescriptorProblems, match="Type"):
        desc(dml.RandomGeneratorOperatorDesc, InputStateTensor=(U32, (6,)), OutputTensor=(U32, (4,)), Type=1)


def run_onnx(node: Any, **arrays: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    (result,) = ReferenceEvaluator(node).run(None, arrays)
    return np.asarray(result)


def shape(cls: type[OperatorDescBase], fields: dict[str, Any], **inputs: tuple[T, tuple[int, ...]]) -> Any:
    (out, *_) = cls.output_shapes({name: tensor(*spec) for name, spec in inputs.items()}, fields)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_output_rules_agree_with_onnx_gathers(seed: int) -> None:
    rng = np.random.default_rng(seed)
    r, q = (int(n) for n in rng.integers(1, 4, 2))
    data = rng.standard_normal(tuple(int(s) for s in rng.integers(1, 4, r))).astype(np.float32)
    axis = int(rng.integers(0, r))
    indices = rng.integers(0, data.shape[axis], tuple(int(s) for s in rng.integers(1, 4, q))).astype(np.int64)
    want = run_onnx(helper.make_node("Gather", ["X", "I"], ["Y"], axis=axis), X=data, I=indices).shape
    count = r + q - 1  # every tensor padded to the output's rank, as DirectML's tensors share one DimensionCount
    padded_data, padded_indices = (1,) * (count - r) + data.shape, (1,) * (count - q) + indices.shape
    fields = {"axis": axis + count - r, "index_dimensions": q}
    got = shape(dml.GatherOperatorDesc, fields, input_tensor=(F32, padded_data), indices_tensor=(U32, padded_indices))
    assert got.sizes == (1,) * (count - len(want)) + want
    dml.validate(gather(padded_data, padded_indices, got.sizes, axis + count - r, q), FL.FL_4_1)

    along = rng.integers(0, data.shape[axis], (*data.shape[:axis], 2, *data.shape[axis + 1 :])).astype(np.int64)
    node = helper.make_node("GatherElements", ["X", "I"], ["Y"], axis=axis)
    fields = {"axis": axis}
    elements = shape(
        dml.GatherElementsOperatorDesc, fields, input_tensor=(F32, data.shape), indices_tensor=(U32, along.shape)
    )
    assert elements.sizes == run_onnx(node, X=data, I=along).shape

    batch = int(rng.integers(0, r))
    tuple_size = int(rng.integers(1, r - batch + 1))
    nd_indices = np.stack(
        [rng.integers(0, data.shape[batch + d], (*data.shape[:batch], 2)) for d in range(tuple_size)], axis=-1
    ).astype(np.int64)
    node = helper.make_node("GatherND", ["X", "I"], ["Y"], batch_dims=batch)
    want = run_onnx(node, X=data, I=nd_indices).shape
    count = max(r, nd_indices.ndim, len(want))
    padded_data, padded_indices = (1,) * (count - r) + data.shape, (1,) * (count - nd_indices.ndim) + nd_indices.shape
    fields = {"input_dimension_count": r, "indices_dimension_count": nd_indices.ndim, "batch_dimension_count": batch}
    got = shape(
        dml.GatherNd1OperatorDesc, fields, input_tensor=(F32, padded_data), indices_tensor=(U32, padded_indices)
    )
    assert got.sizes == (1,) * (count - len(want)) + want
    dml.validate(gather_nd(padded_data, padded_indices, got.sizes, r, nd_indices.ndim, batch), FL.FL_4_1)


@pytest.mark.parametrize("seed", range(6))
def test_output_rules_agree_with_onnx_scatters_and_one_hot(seed: int) -> None:
    rng = np.random.default_rng(seed)
    r = int(rng.integers(1, 4))
    data = rng.standard_normal(tuple(int(s) for s in rng.integers(1, 4, r))).astype(np.float32)
    axis = int(rng.integers(0, r))
    indices = np.zeros((*data.shape[:axis], 1, *data.shape[axis + 1 :]), np.int64)
    updates = np.ones(indices.shape, np.float32)
    node = helper.make_node("ScatterElements", ["X", "I", "U"], ["Y"], axis=axis)
    assert (
        scatter(data.shape, indices.shape, updates.shape, axis).expected_outputs()[0].sizes
        == run_onnx(node, X=data, I=indices, U=updates).shape
    )

    tuple_size = int(rng.integers(1, r + 1))
    nd_indices = np.zeros((2, tuple_size), np.int64)
    nd_updates = np.ones((2, *data.shape[tuple_size:]), np.float32)
    node = helper.make_node("ScatterND", ["X", "I", "U"], ["Y"])
    out = run_onnx(node, X=data, I=nd_indices, U=nd_updates)
    count = max(r, 2, nd_updates.ndim)
    padded = [(1,) * (count - len(s)) + s for s in (data.shape, nd_indices.shape, nd_updates.shape)]
    example = scatter_nd(*padded, r, 2)
    dml.validate(example, FL.FL_4_1)
    assert example.expected_outputs()[0].sizes == (1,) * (count - r) + out.shape

    depth, axis = int(rng.integers(1, 5)), int(rng.integers(0, r + 1))
    positions = rng.integers(0, depth, data.shape).astype(np.int64)
    node = helper.make_node("OneHot", ["I", "D", "V"], ["Y"], axis=axis)
    want = run_onnx(node, I=positions, D=np.array(depth, np.int64), V=np.array([0, 1], np.float32)).shape
    expanded = (*data.shape[:axis], 1, *data.shape[axis:])
    values = (1,) * r + (2,)
    example = one_hot(expanded, values, want, axis)
    dml.validate(example, FL.FL_4_1)
    (rule,) = example.expected_outputs()
    assert rule.chosen == (axis,) and rule.expected_of(want) == want  # the depth along Axis is the caller's
    assert rule.sizes is not None and rule.sizes[:axis] + rule.sizes[axis + 1 :] == want[:axis] + want[axis + 1 :]


@pytest.mark.parametrize("seed", range(4))
def test_generators_make_the_sizes_asked_for(seed: int) -> None:
    """EyeLike (ONNX) and NumPy's eye for the diagonals: the output is the caller's Sizes, so the given one is the
    rule's; FILL_VALUE_SEQUENCE's elements are NumPy's arange of that many."""
    rng = np.random.default_rng(seed)
    rows, columns, offset = int(rng.integers(1, 6)), int(rng.integers(1, 6)), int(rng.integers(-3, 4))
    eye = run_onnx(helper.make_node("EyeLike", ["X"], ["Y"], k=offset), X=np.zeros((rows, columns), np.float32))
    assert np.array_equal(eye, np.eye(rows, columns, offset, np.float32))
    diagonal = desc(dml.DiagonalMatrixOperatorDesc, OutputTensor=(F32, eye.shape), Offset=offset, Value=1.0)
    dml.validate(diagonal, FL.FL_4_0)
    assert diagonal.expected_outputs()[0].sizes is None  # the caller's: any Sizes the table allows, eye's here
    assert dml.DiagonalMatrixOperatorDesc.output_shapes({}, {"offset": offset, "value": 1.0})[0].data_type is None
    strip = diagonal1(eye.shape, DiagonalFillBegin=offset, DiagonalFillEnd=offset + 1)
    dml.validate(strip, FL.FL_5_1)
    sizes = tuple(int(s) for s in rng.integers(1, 4, int(rng.integers(1, 9))))
    made = fill(I32, sizes)
    dml.validate(made, FL.FL_4_0)
    assert np.full(sizes, 7, np.int32).shape == made.output_tensor.desc.sizes
    assert made.expected_outputs()[0].sizes is None and made.expected_outputs()[0].data_type == I32
    counted = desc(
        dml.FillValueSequenceOperatorDesc, OutputTensor=(I32, sizes), ValueDataType=I32,
        ValueStart=dml.ScalarUnion.of(3, I32), ValueDelta=dml.ScalarUnion.of(2, I32),
    )  # fmt: skip
    dml.validate(counted, FL.FL_4_0)
    assert (3 + 2 * np.arange(np.prod(sizes))).reshape(sizes).shape == counted.output_tensor.desc.sizes
    state = random(sizes, (1,) * (len(sizes) - 1) + (6,))
    dml.validate(state, FL.FL_4_0)
    assert [s.sizes for s in state.expected_outputs()] == [None, state.input_state_tensor.desc.sizes]


@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip_and_schema(name: str) -> None:
    example, _ = EXAMPLES[name]
    dumped = json.loads(dml.OperatorDesc(type=example.OPERATOR_TYPE, desc=example).model_dump_json(by_alias=True))
    read = parse_descriptor(dumped)
    back = read.desc if isinstance(read, dml.OperatorDesc) else read
    assert type(back) is type(example) and back == example and hash(back) == hash(example)
    if name == next(n for n, (e, _) in EXAMPLES.items() if e.OPERATOR_TYPE == example.OPERATOR_TYPE):
        schema_validator().validate(dumped)  # one example per operator: a document's check takes 0.1 s or more


def test_enums_take_every_spelling() -> None:
    spellings = ("DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10", "PHILOX_4X32_10", 0)
    assert {dml.RandomGeneratorType(s) for s in spellings} == {dml.RandomGeneratorType.PHILOX_4X32_10}
    values = {t.name: t.value for t in dml.OperatorType}
    expected = {"GATHER": 67, "DIAGONAL_MATRIX": 93, "SCATTER_ELEMENTS": 94, "ONE_HOT": 95, "FILL_VALUE_CONSTANT": 103,
                "FILL_VALUE_SEQUENCE": 104, "GATHER_ELEMENTS": 107, "GATHER_ND": 108, "SCATTER_ND": 109,
                "RANDOM_GENERATOR": 132, "GATHER_ND1": 140, "DIAGONAL_MATRIX1": 163}  # fmt: skip
    assert {name: values[name] for name in expected} == expected


INDEXING = (
    dml.GatherOperatorDesc,
    dml.GatherElementsOperatorDesc,
    dml.GatherNdOperatorDesc,
    dml.GatherNd1OperatorDesc,
    dml.ScatterElementsOperatorDesc,
    dml.ScatterNdOperatorDesc,
    dml.OneHotOperatorDesc,
)


def test_the_indexing_operators_run_on_indexing_cl() -> None:
    for example, _ in EXAMPLES.values():
        if isinstance(example, INDEXING):
            kernels = [step.lowered.kernel for step in example.plan().steps]
            assert kernels[-1].source_name == "indexing.cl", type(example).__name__
    assert [k.kernel_name for k in (s.lowered.kernel for s in EXAMPLES["GATHER 2"][0].plan().steps)] == ["gather"]


def test_compiling_says_dmlpy_does_not_run_them_yet() -> None:
    """RANDOM_GENERATOR, the one operator here validated only (the other generators: test_generators_lowering.py)."""
    for example, _ in EXAMPLES.values():
        assert example.runs() != isinstance(example, dml.RandomGeneratorOperatorDesc), type(example).__name__
    with pytest.raises(dml.UnsupportedError, match="dmlpy validates RANDOM_GENERATOR but does not run it yet"):
        EXAMPLES["RANDOM_GENERATOR"][0].plan()
