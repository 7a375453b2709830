"""The reductions and selections along axes as descriptors, without OpenCL: REDUCE (its twelve functions), ARGMIN,
ARGMAX, TOP_K, TOP_K1, CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT. The pages' worked examples validate from their
level (TOP_K from FL 1_0, as the header says); each documented rule broken is refused with a message naming the
field and the rule; the output rule agrees with NumPy and ONNX's reference ReduceSum, ArgMax, TopK and CumSum on
random shapes; JSON, the schema and the command line take them; each lowers to its kernel."""

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

T, FL, F = dml.TensorDataType, dml.FeatureLevel, dml.ReduceFunction
F32, F16, I32, U32, I64, U64 = T.FLOAT32, T.FLOAT16, T.INT32, T.UINT32, T.INT64, T.UINT64
SQUARE, ROW4 = (3, 3), (1, 1, 3, 4)


def reduce(
    function: Any, x: tuple[int, ...], out: tuple[int, ...], axes: list[int], types: tuple[T, T] = (F32, F32), **f: Any
) -> dml.ReduceOperatorDesc:
    return dml.ReduceOperatorDesc.model_validate(
        {"Function": function, "InputTensor": tensor(types[0], x), "OutputTensor": tensor(types[1], out), "Axes": axes}
        | f
    )


def arg(
    desc: Any, x: tuple[int, ...], out: tuple[int, ...], axes: list[int], out_type: T = U32, **f: Any
) -> OperatorDescBase:
    fields = {"InputTensor": tensor(F32, x), "OutputTensor": tensor(out_type, out), "Axes": axes}
    return desc.model_validate(fields | {"AxisDirection": "INCREASING"} | f)  # type: ignore[no-any-return]


def top_k(
    desc: Any = dml.TopK1OperatorDesc,
    x: tuple[int, ...] = ROW4,
    axis: int = 3,
    k: int = 2,
    values: tuple[int, ...] | None = None,
    types: tuple[T, T, T] = (F32, F32, U32),
    **f: Any,
) -> Any:
    out = values if values is not None else tuple(k if d == axis else s for d, s in enumerate(x))
    fields = {
        "InputTensor": tensor(types[0], x),
        "OutputValueTensor": tensor(types[1], out),
        "OutputIndexTensor": tensor(types[2], out),
        "Axis": axis,
        "K": k,
    }
    if desc is dml.TopK1OperatorDesc:
        fields["AxisDirection"] = "DECREASING"
    return desc.model_validate(fields | f)


def cumulative(
    desc: Any = dml.CumulativeSummationOperatorDesc,
    x: tuple[int, ...] = ROW4,
    out: tuple[int, ...] = ROW4,
    axis: int = 3,
    types: tuple[T, T] = (F32, F32),
    **f: Any,
) -> Any:
    exclusive = "HasExclusiveSum" if desc is dml.CumulativeSummationOperatorDesc else "HasExclusiveProduct"
    fields = {"InputTensor": tensor(types[0], x), "OutputTensor": tensor(types[1], out), "Axis": axis}
    return desc.model_validate(fields | {"AxisDirection": "INCREASING", exclusive: False} | f)


EXAMPLES: dict[str, tuple[OperatorDescBase, FL]] = {
    # REDUCE's page: a {3, 3} FLOAT32 input (2 dimensions: from FL 3_0), sum over columns, rows, everything.
    "REDUCE example 1 (columns)": (reduce("SUM", SQUARE, (1, 3), [0]), FL.FL_3_0),
    "REDUCE example 2 (rows)": (reduce("DML_REDUCE_FUNCTION_SUM", SQUARE, (3, 1), [1]), FL.FL_3_0),
    "REDUCE example 3 (all axes)": (reduce(10, SQUARE, (1, 1), [0, 1], AxisCount=2), FL.FL_3_0),
    "REDUCE ARGMAX, 4-D, UINT32": (reduce("ARGMAX", (1, 2, 3, 4), (1, 2, 1, 4), [2], (F16, U32)), FL.FL_1_0),
    "REDUCE MAX INT64": (reduce("MAX", (5, 2), (5, 1), [1], (I64, I64)), FL.FL_5_0),
    # ARGMAX's page: the same {3, 3} input, UINT32 indices over columns, rows, everything.
    "ARGMAX example 1": (arg(dml.ArgMaxOperatorDesc, SQUARE, (1, 3), [0]), FL.FL_3_0),
    "ARGMAX example 2": (arg(dml.ArgMaxOperatorDesc, SQUARE, (3, 1), [1]), FL.FL_3_0),
    "ARGMAX example 3": (arg(dml.ArgMaxOperatorDesc, SQUARE, (1, 1), [0, 1]), FL.FL_3_0),
    "ARGMIN INT64 of INT64, DECREASING": (
        arg(dml.ArgMinOperatorDesc, (2, 3, 4), (2, 1, 1), [2, 1], I64, AxisDirection="DECREASING").model_copy(
            update={"input_tensor": dml.TensorDesc(desc=tensor(I64, (2, 3, 4)))}
        ),
        FL.FL_4_1,
    ),
    # TOP_K1's page: a {1, 1, 3, 4} input, K 2 along axis 3 and along axis 2, K 3 (ties), INCREASING.
    "TOP_K1 example 1": (top_k(), FL.FL_2_1),
    "TOP_K1 example 2": (top_k(axis=2), FL.FL_2_1),
    "TOP_K1 example 4 (increasing)": (top_k(k=3, AxisDirection="INCREASING"), FL.FL_2_1),
    "TOP_K (the header's FL 1_0)": (top_k(dml.TopKOperatorDesc), FL.FL_1_0),
    "TOP_K 3-D, UINT64 indices": (top_k(dml.TopKOperatorDesc, (2, 5, 3), 1, 5, types=(I64, I64, U64)), FL.FL_5_0),
    # The cumulative pages: a {1, 1, 3, 4} input along axis 3 (examples 1 to 3) and axis 2 (example 4).
    "CUMULATIVE_SUMMATION example 1": (cumulative(), FL.FL_2_1),
    "CUMULATIVE_SUMMATION exclusive, decreasing": (
        cumulative(HasExclusiveSum=True, AxisDirection="DECREASING"),
        FL.FL_2_1,
    ),
    "CUMULATIVE_PRODUCT example 4": (cumulative(dml.CumulativeProductOperatorDesc, axis=2), FL.FL_3_1),
    "CUMULATIVE_PRODUCT 1-D UINT64": (
        cumulative(dml.CumulativeProductOperatorDesc, (7,), (7,), 0, (U64, U64), HasExclusiveProduct=True),
        FL.FL_5_0,
    ),
}


@pytest.mark.parametrize("name", EXAMPLES)
def test_worked_examples_validate_from_their_level(name: str) -> None:
    desc, level = EXAMPLES[name]
    dml.validate(desc, level)
    below = [lower for lower in FL if lower < level]
    if below:
        with pytest.raises(dml.DmlError):
            dml.validate(desc, below[-1])


def refused(desc: OperatorDescBase, *fragments: str, level: FL = FL.FL_6_4) -> None:
    with pytest.raises(dml.InvalidArgumentError) as raised:
        dml.validate(desc, level)
    for fragment in fragments:
        assert fragment in str(raised.value), (fragment, str(raised.value))


def test_output_sizes_are_the_rule_with_its_formula() -> None:
    refused(
        reduce("SUM", SQUARE, (3, 3), [0]),
        "REDUCE.OutputTensor.Sizes is [3, 3]; it must be [1, 3]: InputTensor.Sizes [3, 3] with each dimension of "
        "Axes [0] made 1 (the rank is kept, the reduced dimensions have size 1)",
    )
    refused(arg(dml.ArgMaxOperatorDesc, SQUARE, (3,), [1]), "ARGMAX.OutputTensor.DimensionCount is 1; it must equal")
    refused(
        top_k(values=(1, 1, 3, 3)),
        "TOP_K1.OutputValueTensor.Sizes is [1, 1, 3, 3]; it must be [1, 1, 3, 2]: InputTensor.Sizes [1, 1, 3, 4] with "
        "Sizes[Axis] = Sizes[3] = K (2)",
    )
    refused(
        cumulative(out=(1, 1, 4, 3)),
        "CUMULATIVE_SUMMATION.OutputTensor.Sizes is [1, 1, 4, 3]; it must be [1, 1, 3, 4]: like InputTensor",
    )


@pytest.mark.parametrize(
    ("desc", "fragments"),
    [
        (reduce("SUM", SQUARE, (1, 3), [2]),
         ("REDUCE.Axes[0] is 2; each axis must be in [0, InputTensor.DimensionCount - 1] = [0, 1]",)),
        (reduce("SUM", SQUARE, (1, 3), [0, 0]), ("REDUCE.Axes[1] is 0, which Axes [0, 0] holds already",)),
        (reduce("SUM", SQUARE, SQUARE, []), ("REDUCE.AxisCount is 0; name at least one axis", "[0, 1]")),
        (reduce("SUM", SQUARE, (1, 3), [0], (F32, F16)),
         ("REDUCE.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal InputTensor.DataType",
          "must match except under ARGMAX and ARGMIN; Function is SUM")),
        (reduce("ARGMIN", SQUARE, (1, 3), [0], (F32, F32)),
         ("REDUCE.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32",
          "allows DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT64, "
          "DML_TENSOR_DATA_TYPE_INT64 under Function ARGMIN or ARGMAX")),
        (reduce("AVERAGE", SQUARE, (1, 3), [0], (I32, I32)),
         ("REDUCE.InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT32", "under Function AVERAGE or L2 or LOG_SUM")),
        (reduce("SUM", (1, 3, 3), (1, 3), [0]),
         ("REDUCE.OutputTensor.DimensionCount is 2; it must equal InputTensor",)),
        (arg(dml.ArgMinOperatorDesc, SQUARE, (1, 3), [0], F32),
         ("ARGMIN.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32; DML_FEATURE_LEVEL_6_4 allows",)),
        (arg(dml.ArgMaxOperatorDesc, SQUARE, (1, 3), [3]), ("ARGMAX.Axes[0] is 3",)),
        (top_k(axis=4), ("TOP_K1.Axis is 4; it must be less than InputTensor.DimensionCount (4)",)),
        (top_k(k=0, values=(1, 1, 3, 1)),
         ("TOP_K1.K is 0; it must be from 1 to InputTensor.Sizes[Axis] = InputTensor.Sizes[3] (4)",)),
        (top_k(k=5), ("TOP_K1.K is 5; it must be from 1",)),
        (top_k(types=(F32, F16, U32)),
         ("TOP_K1.OutputValueTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal InputTensor.DataType",
          "(the page: InputTensor and OutputValueTensor must have the same DataType)")),
        (top_k(OutputIndexTensor=tensor(U32, (1, 3, 2))),
         ("TOP_K1.OutputIndexTensor.DimensionCount is 3; it must equal InputTensor.DimensionCount (4)",)),
        (top_k(dml.TopKOperatorDesc, types=(F32, F32, I32)), ("TOP_K.OutputIndexTensor.DataType is",)),
        (cumulative(axis=4), ("CUMULATIVE_SUMMATION.Axis is 4; it must be less than InputTensor.DimensionCount (4)",)),
        (cumulative(dml.CumulativeProductOperatorDesc, types=(I32, U32)),
         ("CUMULATIVE_PRODUCT.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_UINT32; it must equal InputTensor",)),
        (cumulative(types=(T.INT8, T.INT8)),
         ("CUMULATIVE_SUMMATION.InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT8",)),
    ],
    ids=["axis range", "axis twice", "no axis", "same type", "arg index type", "function's table",
         "dimension count", "argmin index type", "argmax axis", "top_k axis", "K 0", "K past the axis",
         "value type", "index rank", "top_k index type", "cumulative axis", "cumulative type", "cumulative table"],
)  # fmt: skip
def test_each_rule_is_refused_naming_field_and_rule(desc: OperatorDescBase, fragments: tuple[str, ...]) -> None:
    refused(desc, *fragments)


def test_axis_count_must_count_the_axes() -> None:
    with pytest.raises(dml.DmlError, match="Axes has 1 entries; AxisCount is 2 and sizes it"):
        reduce("SUM", SQUARE, (1, 3), [0], AxisCount=2)
    assert reduce("SUM", SQUARE, (1, 1), [1, 0]).axis_count == 2


def test_k_may_be_the_whole_axis_and_the_levels_follow_the_tables() -> None:
    """K equal to the axis size (the page's "less than" read as the selection's bound) sorts the whole sequence."""
    dml.validate(top_k(k=4), FL.FL_2_1)
    refused(top_k(dml.TopKOperatorDesc, (2, 3), 1, 2), "DimensionCount is 2; DML_FEATURE_LEVEL_3_0 allows exactly 4",
            level=FL.FL_3_0)  # fmt: skip
    with pytest.raises(dml.UnsupportedError, match="TOP_K1 needs DML_FEATURE_LEVEL_2_1"):
        dml.validate(top_k(), FL.FL_2_0)
    with pytest.raises(dml.UnsupportedError, match="ARGMAX needs DML_FEATURE_LEVEL_3_0"):
        dml.validate(EXAMPLES["ARGMAX example 1"][0], FL.FL_2_1)


def test_output_types() -> None:
    (argmax,) = EXAMPLES["REDUCE ARGMAX, 4-D, UINT32"][0].expected_outputs()
    assert argmax.data_type is None and argmax.sizes == (1, 2, 1, 4)  # an index type of the table's: the caller's
    (total,) = EXAMPLES["REDUCE example 1 (columns)"][0].expected_outputs()
    assert total.data_type == F32
    values, indices = top_k(types=(I32, I32, U32)).expected_outputs()
    assert (values.data_type, indices.data_type) == (I32, None) and values.sizes == indices.sizes == (1, 1, 3, 2)
    for index_type in (I32, U32, I64, U64):
        dml.validate(arg(dml.ArgMaxOperatorDesc, SQUARE, (1, 3), [0], index_type), FL.FL_3_0)


@pytest.mark.parametrize("seed", range(6))
def test_output_rule_agrees_with_numpy(seed: int) -> None:
    """Random ranks, Sizes, Axes, Axis and K: the rule's Sizes are NumPy's keepdims reductions, argmax, sorted
    selection and cumulative sum of arrays of those shapes."""
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(1, 6))
    x = rng.standard_normal(tuple(int(s) for s in rng.integers(1, 5, rank))).astype(np.float32)
    axes = sorted(int(a) for a in rng.choice(rank, int(rng.integers(1, rank + 1)), replace=False))
    inputs = {"input_tensor": tensor(F32, x.shape)}
    (shape,) = dml.ReduceOperatorDesc.output_shapes(inputs, {"function": F.SUM, "axes": tuple(axes)})
    assert shape.sizes == np.sum(x, axis=tuple(axes), keepdims=True).shape
    dml.validate(reduce("L2", x.shape, shape.sizes, axes), FL.FL_3_0)
    axis = int(rng.integers(0, rank))
    (index,) = dml.ArgMaxOperatorDesc.output_shapes(inputs, {"axes": (axis,)})
    assert index.sizes == np.argmax(x, axis=axis, keepdims=True).shape and index.data_type is None
    k = int(rng.integers(1, x.shape[axis] + 1))
    largest = np.take(-np.sort(-x, axis=axis), np.arange(k), axis=axis)
    values, _ = dml.TopKOperatorDesc.output_shapes(inputs, {"axis": axis, "k": k})
    assert values.sizes == largest.shape
    (running,) = dml.CumulativeSummationOperatorDesc.output_shapes(inputs, {"axis": axis})
    assert running.sizes == np.cumsum(x, axis=axis).shape and running.data_type == F32


def _onnx(op: str, inputs: dict[str, np.ndarray[Any, Any]], outputs: list[str], **attributes: Any) -> list[Any]:
    node = helper.make_node(op, list(inputs), outputs, **attributes)
    return list(ReferenceEvaluator(node).run(None, inputs))


def test_output_rule_agrees_with_onnx_reference() -> None:
    """ONNX's reference ReduceSum (keepdims), ArgMax (keepdims), TopK and CumSum give the rule's Sizes."""
    rng = np.random.default_rng(11)
    for _ in range(4):
        rank = int(rng.integers(2, 5))
        x = rng.standard_normal(tuple(int(s) for s in rng.integers(1, 6, rank))).astype(np.float32)
        axis = int(rng.integers(0, rank))
        inputs = {"input_tensor": tensor(F32, x.shape)}
        (y,) = _onnx("ReduceSum", {"X": x, "A": np.array([axis], np.int64)}, ["Y"], keepdims=1)
        assert dml.ReduceOperatorDesc.output_shapes(inputs, {"function": F.SUM, "axes": (axis,)})[0].sizes == y.shape
        (i,) = _onnx("ArgMax", {"X": x}, ["I"], axis=axis, keepdims=1)
        assert dml.ArgMaxOperatorDesc.output_shapes(inputs, {"axes": (axis,)})[0].sizes == i.shape
        k = int(rng.integers(1, x.shape[axis] + 1))
        v, j = _onnx("TopK", {"X": x, "K": np.array([k], np.int64)}, ["V", "J"], axis=axis)
        shapes = dml.TopK1OperatorDesc.output_shapes(inputs, {"axis": axis, "k": k})
        assert (shapes[0].sizes, shapes[1].sizes) == (v.shape, j.shape)
        (c,) = _onnx("CumSum", {"X": x, "A": np.array(axis, np.int64)}, ["C"], exclusive=1, reverse=1)
        assert dml.CumulativeSummationOperatorDesc.output_shapes(inputs, {"axis": axis})[0].sizes == c.shape


def _dumped(desc: OperatorDescBase) -> Any:
    return json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json(by_alias=True))


@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip(name: str) -> None:
    desc, _ = EXAMPLES[name]
    read = parse_descriptor(_dumped(desc))
    back = read.desc if isinstance(read, dml.OperatorDesc) else read
    assert type(back) is type(desc) and back == desc and hash(back) == hash(desc)


def test_the_schema_takes_one_of_each() -> None:
    """One example per operator (a schema check costs about half a second)."""
    firsts = {type(desc): desc for desc, _ in reversed(EXAMPLES.values())}
    assert len(firsts) == 7
    for desc in firsts.values():
        schema_validator().validate(_dumped(desc))


def test_enums_take_every_spelling_with_the_headers_values() -> None:
    assert {dml.AxisDirection(s) for s in ("DML_AXIS_DIRECTION_DECREASING", "DECREASING", 1)} == {
        dml.AxisDirection.DECREASING
    }
    assert dml.ReduceFunction("DML_REDUCE_FUNCTION_SUM_SQUARE") is dml.ReduceFunction(11) is F.SUM_SQUARE
    assert [f.name for f in F][:3] == ["ARGMAX", "ARGMIN", "AVERAGE"] and len(F) == 12
    values = {t.name: t.value for t in dml.OperatorType}
    assert (values["REDUCE"], values["TOP_K"], values["CUMULATIVE_SUMMATION"], values["TOP_K1"]) == (55, 71, 105, 112)
    assert (values["ARGMIN"], values["ARGMAX"], values["CUMULATIVE_PRODUCT"]) == (137, 138, 145)
    assert dml.CumulativeSummationOperatorDesc.SUPPORTS_IN_PLACE and not dml.TopKOperatorDesc.SUPPORTS_IN_PLACE


KERNELS = {
    dml.ReduceOperatorDesc: "reduce.cl",
    dml.ArgMinOperatorDesc: "reduce.cl",
    dml.ArgMaxOperatorDesc: "reduce.cl",
    dml.TopKOperatorDesc: "top_k.cl",
    dml.TopK1OperatorDesc: "top_k.cl",
    dml.CumulativeSummationOperatorDesc: "cumulative.cl",
    dml.CumulativeProductOperatorDesc: "cumulative.cl",
}


def test_every_reduction_and_selection_runs_on_its_kernel() -> None:
    for desc, _ in EXAMPLES.values():
        assert type(desc).runs()
        assert [step.lowered.kernel.source_name for step in desc.plan().steps] == [KERNELS[type(desc)]]


def test_top_k_takes_k_as_an_argument_and_its_direction_as_a_define() -> None:
    """Every K shares one program (K is the kernel's ulong argument); TOP_K selects the largest, TOP_K1 as told."""
    two, three = top_k(k=2).lower(), top_k(k=3).lower()
    assert two.kernel == three.kernel and [p.values for p in (*two.parameters, *three.parameters)] == [(2,), (3,)]
    largest = {("LARGEST", "1") in d.lower().kernel.defines for d in (top_k(dml.TopKOperatorDesc), top_k())}
    assert largest == {True} and ("LARGEST", "0") in top_k(AxisDirection="INCREASING").lower().kernel.defines


def test_dmlpy_validate_a_reduce_file(run: Run, write_json: Any) -> None:
    desc = EXAMPLES["REDUCE example 1 (columns)"][0]
    path = write_json(json.loads(dml.OperatorDesc(type=dml.OperatorType.REDUCE, desc=desc).model_dump_json()))
    result = run("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert (
        '"Function": "DML_REDUCE_FUNCTION_SUM"' in result.stdout and "valid from DML_FEATURE_LEVEL_3_0" in result.stdout
    )
    bad = reduce("SUM", SQUARE, (3, 1), [0])
    bad_path = write_json(json.loads(dml.OperatorDesc.model_validate(bad).model_dump_json()), "bad.json")
    refused_run = run("validate", str(bad_path))
    assert (
        refused_run.returncode == 1 and "REDUCE.OutputTensor.Sizes is [3, 1]; it must be [1, 3]" in refused_run.stdout
    )
