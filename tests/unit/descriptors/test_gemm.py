"""The matrix-multiply family as descriptors, without OpenCL: GEMM, MATRIX_MULTIPLY_INTEGER,
QUANTIZED_LINEAR_MATRIX_MULTIPLY and MATRIX_MULTIPLY_INTEGER_TO_FLOAT. Worked examples (the pages have none of
their own: ONNX's Gemm, MatMulInteger and QLinearMatMul examples, which the pages name as their models) validate;
each documented rule broken is refused with a message naming the field and the rule; the output rule agrees with
NumPy's matmul (and ONNX's reference Gemm) on random shapes; JSON, the schema and the command line take them;
each plans one launch of gemm.cl."""

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
F32, F16, I8, U8, I32 = T.FLOAT32, T.FLOAT16, T.INT8, T.UINT8, T.INT32


def gemm(
    a: tuple[int, ...] = (1, 1, 4, 3),
    b: tuple[int, ...] = (1, 1, 3, 6),
    out: tuple[int, ...] = (1, 1, 4, 6),
    c: tuple[int, ...] | None = None,
    data_type: T = F32,
    **fields: Any,
) -> dml.GemmOperatorDesc:
    return dml.GemmOperatorDesc.model_validate(
        {
            "ATensor": tensor(data_type, a),
            "BTensor": tensor(data_type, b),
            "CTensor": None if c is None else tensor(data_type, c),
            "OutputTensor": tensor(data_type, out),
            "TransA": "NONE",
            "TransB": "NONE",
            "Alpha": 1.0,
            "Beta": 1.0,
            **fields,
        }
    )


def integer_product(a: tuple[int, ...] = (4, 3), b: tuple[int, ...] = (3, 2), **tensors: Any) -> Any:
    """MATRIX_MULTIPLY_INTEGER of ONNX's MatMulInteger example: A (4, 3) UINT8 by B (3, 2) UINT8, a zero point each."""
    fields = {
        "ATensor": tensor(U8, a),
        "AZeroPointTensor": tensor(U8, (1, 1)),
        "BTensor": tensor(U8, b),
        "BZeroPointTensor": tensor(U8, (1, 1)),
        "OutputTensor": tensor(I32, (*a[:-1], b[-1])),
        **tensors,
    }
    return dml.MatrixMultiplyIntegerOperatorDesc.model_validate(fields)


def quantized_product(**tensors: Any) -> Any:
    """QUANTIZED_LINEAR_MATRIX_MULTIPLY of ONNX's QLinearMatMul example: A (2, 4) by B (4, 3) into (2, 3), UINT8,
    every scale and zero point per tensor."""
    one = (1, 1)
    fields = {
        "ATensor": tensor(U8, (2, 4)),
        "AScaleTensor": tensor(F32, one),
        "AZeroPointTensor": tensor(U8, one),
        "BTensor": tensor(U8, (4, 3)),
        "BScaleTensor": tensor(F32, one),
        "BZeroPointTensor": tensor(U8, one),
        "OutputScaleTensor": tensor(F32, one),
        "OutputZeroPointTensor": tensor(U8, one),
        "OutputTensor": tensor(U8, (2, 3)),
        **tensors,
    }
    return dml.QuantizedLinearMatrixMultiplyOperatorDesc.model_validate(fields)


def to_float_product(**tensors: Any) -> Any:
    """MATRIX_MULTIPLY_INTEGER_TO_FLOAT: A (1, 2, 5) INT8 by B (1, 5, 3), A's scale per row, B's per column, a
    bias of the output's Sizes, FLOAT16."""
    fields = {
        "ATensor": tensor(I8, (1, 2, 5)),
        "AScaleTensor": tensor(F16, (1, 2, 1)),
        "AZeroPointTensor": tensor(I8, (1, 2, 1)),
        "BTensor": tensor(I8, (1, 5, 3)),
        "BScaleTensor": tensor(F16, (1, 1, 3)),
        "BZeroPointTensor": tensor(I8, (1, 1, 3)),
        "BiasTensor": tensor(F16, (1, 2, 3)),
        "OutputTensor": tensor(F16, (1, 2, 3)),
        **tensors,
    }
    return dml.MatrixMultiplyIntegerToFloatOperatorDesc.model_validate(fields)


EXAMPLES = {
    "GEMM 4-D": (gemm(), FL.FL_1_0),
    "GEMM transposed, C, fused RELU": (
        gemm(
            (2, 3),
            (5, 2),
            (3, 5),
            c=(3, 5),
            TransA="TRANSPOSE",
            TransB="DML_MATRIX_TRANSFORM_TRANSPOSE",
            Alpha=0.5,
            FusedActivation={"Type": "ACTIVATION_RELU", "Desc": {}},
        ),
        FL.FL_4_0,
    ),
    "MATRIX_MULTIPLY_INTEGER": (integer_product(), FL.FL_4_0),
    "MATRIX_MULTIPLY_INTEGER 4-D, per row and column": (
        integer_product(
            (1, 1, 4, 3),
            (1, 1, 3, 2),
            AZeroPointTensor=tensor(U8, (1, 1, 4, 1)),
            BZeroPointTensor=tensor(U8, (1, 1, 1, 2)),
        ),
        FL.FL_2_1,
    ),
    "QUANTIZED_LINEAR_MATRIX_MULTIPLY": (quantized_product(), FL.FL_4_0),
    "MATRIX_MULTIPLY_INTEGER_TO_FLOAT": (to_float_product(), FL.FL_6_2),
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
        gemm(out=(1, 1, 4, 5)),
        "GEMM.OutputTensor.Sizes is [1, 1, 4, 5]; it must be [1, 1, 4, 6]: ATensor's batch Sizes [1, 1], then "
        "M = ATensor.Sizes[2] by N = BTensor.Sizes[3] (TransA NONE, TransB NONE)",
    )
    refused(
        gemm((3, 4), (6, 3), (3, 6), TransA="TRANSPOSE", TransB="TRANSPOSE"),
        "GEMM.OutputTensor.Sizes is [3, 6]; it must be [4, 6]",
        "M = ATensor.Sizes[1] by N = BTensor.Sizes[0] (TransA TRANSPOSE, TransB TRANSPOSE)",
    )


def test_k_must_agree() -> None:
    refused(gemm(b=(1, 1, 5, 6)), "GEMM.BTensor.Sizes[2] is 5; it must equal K = ATensor.Sizes[3] (3)", "TransA NONE")
    refused(
        gemm((3, 4), (3, 6), (4, 6), TransA="TRANSPOSE", TransB="TRANSPOSE"),
        "GEMM.BTensor.Sizes[1] is 6; it must equal K = ATensor.Sizes[0] (3) (TransA TRANSPOSE, TransB TRANSPOSE)",
    )
    refused(integer_product(b=(4, 2)), "MATRIX_MULTIPLY_INTEGER.BTensor.Sizes[0] is 4; it must equal K")


def test_batches_must_agree() -> None:
    refused(
        gemm((2, 1, 4, 3), (1, 1, 3, 6), (2, 1, 4, 6)),
        "GEMM.BTensor.Sizes[0] is 1; it must equal ATensor.Sizes[0] (2)",
        "a Stride of 0",
    )


def test_c_has_the_output_sizes_and_broadcasts_by_strides() -> None:
    refused(gemm(c=(1, 1, 1, 6)), "GEMM.CTensor.Sizes is [1, 1, 1, 6]; it must be OutputTensor's, [1, 1, 4, 6]")
    broadcast = gemm().model_copy(update={"c_tensor": dml.TensorDesc(desc=tensor(F32, (1, 1, 4, 6), (0, 0, 0, 1)))})
    dml.validate(broadcast, FL.FL_1_0)


@pytest.mark.parametrize(
    ("desc", "fragments"),
    [
        (gemm(data_type=F32).model_copy(update={"b_tensor": dml.TensorDesc(desc=tensor(F16, (1, 1, 3, 6)))}),
         ("GEMM.BTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal ATensor", "the same DataType")),
        (gemm(c=(1, 4, 6)), ("GEMM.CTensor.DimensionCount is 3; it must equal ATensor.DimensionCount (4)",)),
        (integer_product(AZeroPointTensor=tensor(I8, (1, 1))),
         ("MATRIX_MULTIPLY_INTEGER.AZeroPointTensor.DataType is DML_TENSOR_DATA_TYPE_INT8; it must equal ATensor",)),
        (integer_product(AZeroPointTensor=tensor(U8, (1, 3))),
         ("AZeroPointTensor.Sizes is [1, 3]; it must hold one value for the whole tensor (every size 1) or one per "
          "row of the product (M = ATensor.Sizes[0]) (4",)),
        (integer_product(BZeroPointTensor=tensor(U8, (3, 1))), ("BZeroPointTensor.Sizes is [3, 1]", "one per column")),
        (quantized_product(OutputZeroPointTensor=tensor(I8, (1, 1))),
         ("OutputZeroPointTensor.DataType is DML_TENSOR_DATA_TYPE_INT8; it must equal OutputTensor",)),
        (quantized_product(BScaleTensor=tensor(F32, (1, 1, 1))),
         ("BScaleTensor.DimensionCount is 3; it must equal AScaleTensor.DimensionCount (2)",)),
        (to_float_product(BTensor=tensor(U8, (1, 5, 3))),
         ("BTensor.DataType is DML_TENSOR_DATA_TYPE_UINT8; it must equal ATensor",)),
        (to_float_product(BiasTensor=tensor(F16, (1, 1, 3))),
         ("BiasTensor.Sizes is [1, 1, 3]; it must be OutputTensor's, [1, 2, 3]",)),
        (to_float_product(AScaleTensor=tensor(F16, (1, 5, 1))), ("AScaleTensor.Sizes is [1, 5, 1]",)),
    ],
    ids=["type group", "dimension group", "zero point type", "zero point per row", "zero point per column",
         "output zero point type", "scale dimensions", "A and B type", "bias sizes", "scale per row"],
)  # fmt: skip
def test_each_rule_is_refused_naming_field_and_rule(desc: OperatorDescBase, fragments: tuple[str, ...]) -> None:
    refused(desc, *fragments)


def test_fused_activation_is_checked_as_its_own_operator() -> None:
    with pytest.raises(dml.DmlError, match="cannot be a fused activation"):
        gemm(FusedActivation={"Type": "ACTIVATION_SOFTMAX", "Desc": {}})
    refused(gemm(FusedActivation={"Type": "ACTIVATION_LEAKY_RELU", "Desc": {}}), "GEMM.FusedActivation.Desc", "Alpha")


def test_output_types() -> None:
    refused(
        integer_product(OutputTensor=tensor(T.INT16, (4, 2))),
        "OutputTensor.DataType is DML_TENSOR_DATA_TYPE_INT16",
        "allows DML_TENSOR_DATA_TYPE_INT32",
    )
    refused(
        to_float_product(OutputTensor=tensor(F32, (1, 2, 3))),
        "OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32; it must equal",
    )
    (shape,) = quantized_product().expected_outputs()
    assert shape.data_type == U8 and shape.sizes == (2, 3)
    without = quantized_product(OutputZeroPointTensor=None)
    assert without.expected_outputs()[0].data_type is None  # the caller's choice: INT8 or UINT8


@pytest.mark.parametrize("seed", range(8))
def test_output_rule_agrees_with_numpy_matmul(seed: int) -> None:
    """Random batch, M, K, N and transforms: the rule's Sizes are NumPy's matmul of arrays of those shapes."""
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(2, 5))
    batch = tuple(int(s) for s in rng.integers(1, 4, rank - 2))
    m, k, n = (int(s) for s in rng.integers(1, 7, 3))
    trans_a, trans_b = (bool(t) for t in rng.integers(0, 2, 2))
    a = rng.standard_normal((*batch, k, m) if trans_a else (*batch, m, k))
    b = rng.standard_normal((*batch, n, k) if trans_b else (*batch, k, n))
    product = np.matmul(np.swapaxes(a, -1, -2) if trans_a else a, np.swapaxes(b, -1, -2) if trans_b else b)
    fields = {"trans_a": dml.MatrixTransform(int(trans_a)), "trans_b": dml.MatrixTransform(int(trans_b))}
    inputs = {"a_tensor": tensor(F32, a.shape), "b_tensor": tensor(F32, b.shape), "c_tensor": None}
    (shape,) = dml.GemmOperatorDesc.output_shapes(inputs, fields)
    assert shape.sizes == product.shape and shape.data_type == F32
    desc = gemm(a.shape, b.shape, product.shape, TransA=int(trans_a), TransB=int(trans_b))
    dml.validate(desc, FL.FL_4_0)
    integer = {"a_tensor": tensor(U8, a.shape), "b_tensor": tensor(U8, (*a.shape[:-2], a.shape[-1], n))}
    (integer_shape,) = dml.MatrixMultiplyIntegerOperatorDesc.output_shapes(integer, {})
    assert integer_shape.sizes == (*a.shape[:-1], n) and integer_shape.data_type == I32


def test_output_rule_agrees_with_onnx_reference_gemm() -> None:
    rng = np.random.default_rng(7)
    node = helper.make_node("Gemm", ["A", "B"], ["Y"], transA=1, transB=0)
    for _ in range(4):
        m, k, n = (int(s) for s in rng.integers(1, 9, 3))
        a, b = rng.standard_normal((k, m)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
        (y,) = ReferenceEvaluator(node).run(None, {"A": a, "B": b})
        inputs = {"a_tensor": tensor(F32, a.shape), "b_tensor": tensor(F32, b.shape)}
        fields = {"trans_a": dml.MatrixTransform.TRANSPOSE, "trans_b": dml.MatrixTransform.NONE}
        assert dml.GemmOperatorDesc.output_shapes(inputs, fields)[0].sizes == y.shape


@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip_and_schema(name: str) -> None:
    desc, _ = EXAMPLES[name]
    dumped = json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json(by_alias=True))
    read = parse_descriptor(dumped)
    back = read.desc if isinstance(read, dml.OperatorDesc) else read
    assert type(back) is type(desc) and back == desc and hash(back) == hash(desc)
    schema_validator().validate(dumped)


def test_enums_take_every_spelling() -> None:
    spellings = ("DML_MATRIX_TRANSFORM_TRANSPOSE", "TRANSPOSE", 1)
    assert {dml.MatrixTransform(s) for s in spellings} == {dml.MatrixTransform.TRANSPOSE}
    assert dml.OperatorType("DML_OPERATOR_GEMM") is dml.OperatorType.GEMM and dml.OperatorType.GEMM.value == 54
    values = {t.name: t.value for t in dml.OperatorType}
    assert values["MATRIX_MULTIPLY_INTEGER"] == 117 and values["QUANTIZED_LINEAR_MATRIX_MULTIPLY"] == 118
    assert values["MATRIX_MULTIPLY_INTEGER_TO_FLOAT"] == 170


def test_gemm_plans_gemm_cl_with_transposes_as_strides() -> None:
    """One launch of gemm.cl's contraction over (batch0, batch1, M, N, K); TransA swaps A's two strides, no variant."""
    (step,) = gemm().plan().steps
    assert (step.lowered.kernel.source_name, step.lowered.kernel.kernel_name) == ("gemm.cl", "contraction")
    assert step.lowered.layout.sizes == (1, 1, 4, 6, 3)
    assert step.lowered.layout.strides[0] == (0, 0, 3, 0, 1)  # A {1, 1, 4, 3}: M by 3, K by 1
    (transposed,) = gemm(a=(1, 1, 3, 4), TransA="TRANSPOSE").plan().steps
    assert transposed.lowered.layout.strides[0] == (0, 0, 1, 0, 4) and transposed.lowered.kernel == step.lowered.kernel


def test_integer_products_plan_gemm_cl_with_parameters_along_m_or_n() -> None:
    """The integer products run gemm.cl's contraction too: a per-row scale or zero point steps along M only, a
    per-column one along N only, one value by 0 everywhere; each operator's tensors in its binding order."""
    (step,) = to_float_product().plan().steps
    lowered = step.lowered
    assert (lowered.kernel.source_name, dict(lowered.kernel.defines)["OPERATOR"]) == ("gemm.cl", "3")
    assert lowered.layout.sizes == (1, 1, 2, 3, 5)
    a, a_scale, a_zero, b, b_scale, b_zero, bias, out = lowered.layout.strides
    assert (a, b, bias, out) == ((0, 0, 5, 0, 1), (0, 0, 0, 1, 3), (0, 0, 3, 1, 0), (0, 0, 3, 1, 0))
    assert a_scale == a_zero == (0, 0, 1, 0, 0) and b_scale == b_zero == (0, 0, 0, 1, 0)
    for desc, operator in ((integer_product(), "1"), (quantized_product(), "2")):
        (step,) = desc.plan().steps
        assert dict(step.lowered.kernel.defines)["OPERATOR"] == operator
        assert all(strides == (0,) * 5 for strides in step.lowered.layout.strides if strides[2:4] == (0, 0))


def test_dmlpy_validate_and_explain_a_gemm_file(run: Run, write_json: Any) -> None:
    path = write_json(json.loads(dml.OperatorDesc(type=dml.OperatorType.GEMM, desc=gemm()).model_dump_json()))
    result = run("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert '"Type": "DML_OPERATOR_GEMM"' in result.stdout and '"TransA": "DML_MATRIX_TRANSFORM_NONE"' in result.stdout
    assert "valid from DML_FEATURE_LEVEL_1_0" in result.stdout
    bad = write_json(json.loads(dml.OperatorDesc.model_validate(gemm(out=(1, 1, 4, 5))).model_dump_json()), "bad.json")
    refused_run = run("validate", str(bad))
    assert refused_run.returncode == 1 and "GEMM.OutputTensor.Sizes is [1, 1, 4, 5]" in refused_run.stdout
    explained = run("explain", str(path))
    assert explained.returncode == 0 and "contraction in opencl/gemm.cl" in explained.stdout
