"""FusedActivation (DML_OPERATOR_DESC as ELEMENT_WISE_ADD1's FusedActivation) and ADD1's validation
(docs/operators/element_wise_add1.md): the fusible types, null tensors, the JSON form, the activations read from the
operator table, the activation's own fields and support table; dml.graph.add1's node."""

from __future__ import annotations

from typing import Any

import pytest

import dmlpy as dml

T = dml.TensorDataType
NULL_TENSORS = {"InputTensor": None, "OutputTensor": None}


def _add1(fused_activation: Any, data_type: T = T.FLOAT32) -> Any:
    tensor = dml.BufferTensorDesc(data_type=data_type, sizes=(2, 3))
    return dml.ElementWiseAdd1OperatorDesc(
        ATensor=tensor, BTensor=tensor, OutputTensor=tensor, FusedActivation=fused_activation
    )


def test_the_table_gives_the_fusible_activations_it_implements() -> None:
    names = {t.name for t in dml.FusedActivation.ACTIVATIONS}
    assert {"ACTIVATION_RELU", "ACTIVATION_LEAKY_RELU", "ACTIVATION_SHRINK", "ACTIVATION_IDENTITY"} <= names
    assert not names & {"ACTIVATION_HARD_SWISH", "ACTIVATION_PARAMETERIZED_RELU", "ACTIVATION_RELU_GRAD"}


def test_json_round_trip() -> None:
    text = (
        '{"Type": "DML_OPERATOR_ELEMENT_WISE_ADD1", "Desc": {"ATensor": {"DataType": "FLOAT32", "Sizes": [4]}, '
        '"BTensor": {"DataType": "FLOAT32", "Sizes": [4]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]}, '
        '"FusedActivation": {"Type": "DML_OPERATOR_ACTIVATION_LEAKY_RELU", "Desc": {"InputTensor": null, '
        '"OutputTensor": null, "Alpha": 0.5}}}}'
    )
    op = dml.OperatorDesc.model_validate_json(text)
    again = dml.OperatorDesc.model_validate_json(op.model_dump_json(by_alias=True))
    assert again.desc == op.desc and again.desc.fused_activation.desc["Alpha"] == 0.5
    op.desc.validate_on(dml.FeatureLevel.FL_3_0)


def test_an_activation_that_cannot_be_fused_is_refused_with_the_list() -> None:
    with pytest.raises(dml.errors.DescriptorProblems, match="ACTIVATION_HARD_SWISH cannot be a fused activation"):
        dml.FusedActivation(type="ACTIVATION_HARD_SWISH", desc=NULL_TENSORS)


def test_a_tensor_in_desc_is_refused() -> None:
    tensor = {"DataType": "FLOAT32", "Sizes": [2, 3]}
    with pytest.raises(dml.errors.DescriptorProblems, match="InputTensor and OutputTensor must be null"):
        dml.FusedActivation(type="ACTIVATION_RELU", desc={"InputTensor": tensor, "OutputTensor": None})


def test_the_activation_s_own_fields_and_types_are_checked() -> None:
    missing = dml.FusedActivation(type="ACTIVATION_LINEAR", desc={**NULL_TENSORS, "Alpha": 2.0})
    with pytest.raises(dml.errors.InvalidArgumentError, match=r"ELEMENT_WISE_ADD1\.FusedActivation\.Desc: .*Beta"):
        _add1(missing).validate_on(dml.FeatureLevel.FL_3_0)
    relu = dml.FusedActivation(type="ACTIVATION_RELU", desc=NULL_TENSORS)
    with pytest.raises(dml.errors.DmlError, match="INT32"):
        _add1(relu, T.INT32).validate_on(dml.FeatureLevel.FL_6_2)  # ADD1 and a fused activation: floats only


def test_builder_and_explain() -> None:
    g = dml.Graph(dml.FeatureLevel.FL_3_0)
    a = g.input(dml.BufferTensorDesc(data_type="FLOAT16", sizes=(2, 3)))
    relu = dml.FusedActivation(type="ACTIVATION_RELU", desc=NULL_TENSORS)
    y = dml.graph.add1(a, a, fused_activation=relu)
    (node,) = g.desc_for([y]).nodes
    op = node.desc.op
    assert op.fused_activation == relu
    assert op.expression(["x", "y"]) == "relu_float(half_value(add_float(x, y)))"
    assert "ACTIVATION_RELU's own expression" in op.explain_lines()[0]
    with pytest.raises(dml.errors.InvalidArgumentError, match="fused_activation"):
        dml.graph.add1(a, a, fused_activation="relu")
