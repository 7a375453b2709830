"""DYNAMIC_QUANTIZE_LINEAR as a descriptor, without OpenCL. Worked examples (the page has none: ONNX's
DynamicQuantizeLinear examples, in DirectML's tensors of one DimensionCount) validate from FL 4_0; each documented
rule broken is refused naming the field and the rule; the output rule agrees with onnx.reference on small random
arrays (ONNX's scale and zero point are scalars, DirectML's one element of the input's DimensionCount); JSON, the
schema and the command line take it, and `dmlpy explain` shows its plan of four kernels."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import dmlpy as dml
from dmlpy.descriptors_json import parse_descriptor
from tests.helpers.cli import Run
from tests.helpers.schema import schema_validator
from tests.helpers.structured import tensor

T, FL = dml.TensorDataType, dml.FeatureLevel


def quantize(data: tuple[int, ...] = (6,), output: T = T.UINT8, **given: Any) -> Any:
    """FLOAT32 ``data`` quantized to ``output``; a ``...Tensor`` keyword gives that tensor as (type, Sizes)."""
    one = (1,) * len(data)
    tensors: dict[str, Any] = {
        "InputTensor": (T.FLOAT32, data),
        "OutputTensor": (output, data),
        "OutputScaleTensor": (T.FLOAT32, one),
        "OutputZeroPointTensor": (output, one),
    }
    tensors |= given
    return dml.DynamicQuantizeLinearOperatorDesc.model_validate({k: tensor(*v) for k, v in tensors.items()})


EXAMPLES = {
    "ONNX's example: 6 values to UINT8": quantize(),
    "ONNX's 3 x 4 example to UINT8": quantize((3, 4)),
    "FLOAT16 to INT8, 5-D": quantize((1, 2, 3, 4, 2), T.INT8, InputTensor=(T.FLOAT16, (1, 2, 3, 4, 2))),
    "8-D": quantize((2, 1, 2, 1, 2, 1, 2, 1)),
}


@pytest.mark.parametrize("name", EXAMPLES)
def test_worked_examples_validate_from_fl_4_0(name: str) -> None:
    desc = EXAMPLES[name]
    dml.validate(desc, FL.FL_4_0)
    dml.validate(desc, FL.FL_6_4)
    with pytest.raises(dml.UnsupportedError, match="DYNAMIC_QUANTIZE_LINEAR needs DML_FEATURE_LEVEL_4_0"):
        dml.validate(desc, FL.FL_3_1)
    assert desc.runs()  # MIN, MAX, the scale and zero point, QuantizeLinear: its plan
    kernels = [step.lowered.kernel.source_name for step in desc.plan().steps]
    assert kernels == ["reduce.cl", "reduce.cl", "dynamic_quantize.cl", "elementwise.cl"]


@pytest.mark.parametrize(
    ("desc", "fragments"),
    [
        (quantize(OutputTensor=(T.UINT8, (5,))),
         ("DYNAMIC_QUANTIZE_LINEAR.OutputTensor.Sizes is [5]; it must be [6]: InputTensor's Sizes",)),
        (quantize(OutputScaleTensor=(T.FLOAT32, (2,))),
         ("DYNAMIC_QUANTIZE_LINEAR.OutputScaleTensor.Sizes is [2]; it must be [1]: one element",)),
        (quantize((3, 4), OutputZeroPointTensor=(T.UINT8, (1, 4))),
         ("DYNAMIC_QUANTIZE_LINEAR.OutputZeroPointTensor.Sizes is [1, 4]; it must be [1, 1]: one element",
          "{ 1, ..., 1 }")),
        (quantize((3, 4), OutputScaleTensor=(T.FLOAT32, (1,))),
         ("DYNAMIC_QUANTIZE_LINEAR.OutputScaleTensor.DimensionCount is 1; it must equal InputTensor.DimensionCount "
          "(2)", "must have the same DimensionCount")),
        (quantize(OutputZeroPointTensor=(T.INT8, (1,))),
         ("DYNAMIC_QUANTIZE_LINEAR.OutputZeroPointTensor.DataType is DML_TENSOR_DATA_TYPE_INT8; it must equal "
          "OutputTensor.DataType", "must have the same DataType")),
    ],
    ids=["output sizes", "scale one element", "zero point one element", "dimension count", "zero point type"],
)  # fmt: skip
def test_each_rule_is_refused_naming_field_and_rule(desc: Any, fragments: tuple[str, ...]) -> None:
    with pytest.raises(dml.InvalidArgumentError) as raised:
        dml.validate(desc, FL.FL_4_0)
    for fragment in fragments:
        assert fragment in str(raised.value), (fragment, str(raised.value))


@pytest.mark.parametrize(
    ("given", "fragment"),
    [
        ({"InputTensor": (T.INT32, (6,))}, "InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT32"),
        ({"OutputScaleTensor": (T.FLOAT16, (1,))}, "OutputScaleTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16"),
        ({"OutputTensor": (T.UINT16, (6,)), "OutputZeroPointTensor": (T.UINT16, (1,))},
         "OutputTensor.DataType is DML_TENSOR_DATA_TYPE_UINT16"),
    ],
    ids=["input type", "scale type", "output type"],
)  # fmt: skip
def test_the_support_table_refuses_other_types(given: dict[str, Any], fragment: str) -> None:
    with pytest.raises(dml.DmlError, match=fragment):
        dml.validate(quantize(**given), FL.FL_6_4)


@pytest.mark.parametrize("seed", range(4))
def test_output_rule_agrees_with_onnx_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, 5, rng.integers(1, 6)))
    x = rng.standard_normal(shape).astype(np.float32)
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "y_scale", "y_zero_point"])
    graph = helper.make_graph(
        [node],
        "dql",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info(n, TensorProto.UNDEFINED, None) for n in ("y", "y_scale", "y_zero_point")],
    )
    y, scale, zero_point = ReferenceEvaluator(helper.make_model(graph)).run(None, {"x": x})
    desc = quantize(shape)
    outputs = desc.expected_outputs()
    assert outputs[0].sizes == y.shape and y.dtype == np.uint8
    assert [int(np.prod(o.sizes)) for o in outputs[1:]] == [scale.size, zero_point.size] == [1, 1]
    assert all(len(o.sizes) == x.ndim for o in outputs)
    assert outputs[1].data_type == T.FLOAT32 and scale.dtype == np.float32
    assert outputs[0].data_type is None and outputs[2].data_type is None  # INT8 or UINT8: the caller's choice
    dml.validate(desc, FL.FL_4_0)


@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip_and_schema(name: str) -> None:
    desc = EXAMPLES[name]
    dumped = json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json(by_alias=True))
    read = parse_descriptor(dumped)
    back = read.desc if isinstance(read, dml.OperatorDesc) else read
    assert type(back) is type(desc) and back == desc and hash(back) == hash(desc)
    if name == next(iter(EXAMPLES)):  # the schema's validation costs a fraction of a second each
        schema_validator().validate(dumped)


def test_operator_type_has_the_headers_value() -> None:
    assert dml.OperatorType.DYNAMIC_QUANTIZE_LINEAR.value == 148
    spellings = ("DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR", "DYNAMIC_QUANTIZE_LINEAR", 148)
    assert {dml.OperatorType(s) for s in spellings} == {dml.OperatorType.DYNAMIC_QUANTIZE_LINEAR}


def test_dmlpy_validate_and_explain_a_file(run: Run, write_json: Any) -> None:
    desc = quantize((3, 4))
    path = write_json(json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json()))
    result = run("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert '"Type": "DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR"' in result.stdout
    assert "valid from DML_FEATURE_LEVEL_4_0" in result.stdout
    wrong = quantize(OutputScaleTensor=(T.FLOAT32, (2,)))
    bad = write_json(json.loads(dml.OperatorDesc.model_validate(wrong).model_dump_json()), "bad.json")
    refused_run = run("validate", str(bad))
    assert refused_run.returncode == 1 and "OutputScaleTensor.Sizes is [2]; it must be [1]" in refused_run.stdout
    explained = run("explain", str(path))
    assert explained.returncode == 0, explained.stderr
    assert "4 kernels, TemporaryResourceSize" in explained.stdout
    assert "quantization_parameters in opencl/dynamic_quantize.cl" in explained.stdout
