"""Each operator's output rule (``OperatorDescBase.output_shapes``: the one place an operator says what Sizes and
DataType it makes) against the descriptors the operator table and FL 6_3's quantization tests build, which
validation accepts; and the one message form validation gives a given output that breaks the rule."""

from __future__ import annotations

import itertools

import pytest

import dmlpy as dml
from dmlpy.ops._base import OperatorDescBase, OutputShape
from tests.helpers.operators import ROWS, OperatorRow, descriptor
from tests.helpers.quantize_6_3 import dequantize_desc, quantize_desc

T = dml.TensorDataType


def _agrees(desc: OperatorDescBase) -> None:
    for field, shape in zip(desc.OUTPUTS, desc.expected_outputs(), strict=True):
        given = getattr(desc, field).desc
        assert given.sizes == shape.sizes, (desc.describe(), field, shape)
        assert shape.data_type in (None, given.data_type), (desc.describe(), field, shape)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.name)
def test_every_table_case_has_the_outputs_its_rule_gives(row: OperatorRow) -> None:
    sizes = (2, 3, 4) if row.reduction is None else row.reduction.sizes
    for case in row.cases:
        _agrees(descriptor(row, sizes, case.dtypes, **case.options))


def test_quantize_and_dequantize_have_the_outputs_their_rule_gives() -> None:
    for real, quantized, zero_point in itertools.product((T.FLOAT32, T.FLOAT16), (T.INT8, T.UINT4), (False, True)):
        quantize = quantize_desc(real, quantized, (2, 6), (2, 3), zero_point)
        dequantize = dequantize_desc(quantized, real, (2, 6), (1, 6), zero_point)
        _agrees(quantize)
        _agrees(dequantize)
        assert quantize.expected_outputs()[0].data_type == (quantized if zero_point else None)
        assert dequantize.expected_outputs()[0].data_type == real


def test_where_the_output_type_is_the_callers_choice_the_rule_leaves_it_open() -> None:
    x = dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(1, 4))
    assert dml.CastOperatorDesc.output_shapes({"input_tensor": x}, {})[0].data_type is None
    assert dml.ElementWiseIsNanOperatorDesc.output_shapes({"input_tensor": x}, {})[0].data_type is None
    condition = dml.BufferTensorDesc(data_type=T.UINT8, sizes=(1, 4))
    (chosen,) = dml.ElementWiseIfOperatorDesc.output_shapes(
        {"condition_tensor": condition, "a_tensor": x, "b_tensor": x}, {}
    )
    assert chosen == OutputShape((1, 4), T.FLOAT32, "like ConditionTensor's Sizes, with ATensor's DataType")


def test_a_given_output_that_breaks_the_rule_is_shown_what_it_must_be() -> None:
    """Every operator of today's table refuses such an output in its own rules first (so validation is unchanged);
    the rule's check, which the operators that are not element-wise will rely on, is called here directly."""
    x = dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(2, 3, 4))
    op = dml.ElementWiseRoundOperatorDesc(input_tensor=x, output_tensor=x)
    wrong_sizes = op.model_copy(
        update={"output_tensor": dml.TensorDesc(desc=x.model_copy(update={"sizes": (2, 3, 5)}))}
    )
    with pytest.raises(dml.InvalidArgumentError) as refused:
        wrong_sizes.check_output_shapes()
    assert str(refused.value) == (
        "ELEMENT_WISE_ROUND.OutputTensor.Sizes is [2, 3, 5]; it must be [2, 3, 4]: like InputTensor's Sizes, with "
        "InputTensor's DataType"
    )
    half = dml.TensorDesc(desc=x.model_copy(update={"data_type": T.FLOAT16}))
    with pytest.raises(dml.InvalidArgumentError, match=r"OutputTensor\.DataType is .*FLOAT16.*; it must be .*FLOAT32"):
        op.model_copy(update={"output_tensor": half}).check_output_shapes()
