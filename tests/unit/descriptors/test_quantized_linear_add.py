"""ELEMENT_WISE_QUANTIZED_LINEAR_ADD's rules beyond its support table
(docs/operators/element_wise_quantized_linear_add.md): per-tensor scales and zero points of one element, ATensor's
DimensionCount everywhere, A, B and the output of one Sizes, each zero point of its tensor's type; and
dml.graph.quantized_linear_add's nodes."""

from __future__ import annotations

from typing import Any

import pytest

import dmlpy as dml

T = dml.TensorDataType
QLA = dml.ElementWiseQuantizedLinearAddOperatorDesc
SIZES = (2, 3)


def _tensor(data_type: T, sizes: tuple[int, ...] = SIZES, strides: tuple[int, ...] | None = None) -> Any:
    return dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides)


def _desc(**changes: Any) -> Any:
    fields: dict[str, Any] = {
        "a_tensor": _tensor(T.INT8),
        "a_scale_tensor": _tensor(T.FLOAT32, (1, 1)),
        "a_zero_point_tensor": _tensor(T.INT8, (1, 1)),
        "b_tensor": _tensor(T.UINT8),
        "b_scale_tensor": _tensor(T.FLOAT32, SIZES, (0, 0)),
        "output_scale_tensor": _tensor(T.FLOAT32, (1, 3), (0, 0)),
        "output_tensor": _tensor(T.INT8),
    }
    return QLA(**{**fields, **changes})


def test_per_tensor_forms_are_valid_and_zero_points_optional() -> None:
    _desc().validate_on(dml.FeatureLevel.FL_4_0)
    _desc(a_zero_point_tensor=None).validate_on(dml.FeatureLevel.FL_4_0)
    with pytest.raises(dml.errors.UnsupportedError):
        _desc().validate_on(dml.FeatureLevel.FL_3_1)


@pytest.mark.parametrize(
    ("field", "tensor", "words"),
    [
        ("a_scale_tensor", _tensor(T.FLOAT32), "AScaleTensor.Sizes[0] is 2 with Strides[0] 3"),
        ("b_scale_tensor", _tensor(T.FLOAT32, (2, 1), (0, 0)), None),
        ("output_scale_tensor", _tensor(T.FLOAT32, (1, 2), (0, 0)), "OutputScaleTensor.Sizes[1] is 2"),
    ],
)
def test_a_scale_holds_one_element(field: str, tensor: Any, words: str | None) -> None:
    desc = _desc(**{field: tensor})
    if words is None:
        desc.validate_on(dml.FeatureLevel.FL_4_0)
        return
    with pytest.raises(dml.errors.InvalidArgumentError, match="per-tensor, one element") as error:
        desc.validate_on(dml.FeatureLevel.FL_4_0)
    assert words in str(error.value)


def test_dimension_counts_sizes_and_zero_point_types() -> None:
    with pytest.raises(dml.errors.InvalidArgumentError, match="AScaleTensor"):
        _desc(a_scale_tensor=_tensor(T.FLOAT32, (1,))).validate_on(dml.FeatureLevel.FL_4_0)
    with pytest.raises(dml.errors.InvalidArgumentError, match="BTensor"):
        _desc(b_tensor=_tensor(T.UINT8, (3, 2))).validate_on(dml.FeatureLevel.FL_4_0)
    with pytest.raises(dml.errors.InvalidArgumentError, match="AZeroPointTensor"):
        _desc(a_zero_point_tensor=_tensor(T.UINT8, (1, 1))).validate_on(dml.FeatureLevel.FL_4_0)


def test_json_round_trip_keeps_the_null_zero_points() -> None:
    desc = _desc(a_zero_point_tensor=None)
    again = dml.OperatorDesc.model_validate_json(dml.OperatorDesc(type=QLA.OPERATOR_TYPE, desc=desc).model_dump_json())
    assert again.desc == desc


def test_builder_makes_one_element_constants() -> None:
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    a = g.input(_tensor(T.UINT8))
    b = g.input(_tensor(T.UINT8))
    y = dml.graph.quantized_linear_add(a, 0.5, 128, b, 0.25, None, 0.75, 3)
    (node,) = [n for n in g.desc_for([y]).nodes if isinstance(n.desc, dml.OperatorGraphNodeDesc)]
    op = node.desc.op
    assert isinstance(op, QLA) and op.b_zero_point_tensor is None
    assert op.output_tensor.desc.data_type == T.UINT8 and op.output_tensor.desc.sizes == SIZES
    assert op.a_scale_tensor.desc.strides == (0, 0)  # one element, broadcast over a
    nodes_before = len(g.desc_for([y]).nodes)
    with pytest.raises(dml.errors.InvalidArgumentError, match="zero_point 300"):
        dml.graph.quantized_linear_add(a, 0.5, 300, b, 0.25, None, 0.75)
    assert len(g.desc_for([y]).nodes) == nodes_before  # the refused call left the graph as it was
