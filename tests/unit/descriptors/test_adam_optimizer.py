"""ADAM_OPTIMIZER, a training operator, as a descriptor, without OpenCL: examples of the page's shapes validate from
FL 3_0; each documented rule broken (one DataType, DimensionCount and Sizes for the parameters, the moments, the
gradient and the outputs; TrainingStepTensor a scalar) is refused naming the field and the rule; the output rule
agrees with one Adam step computed by NumPy on random arrays (the page's formulas written out here); JSON, the schema
and the command line take it; compiling says dmlpy does not run it yet."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.descriptors_json import parse_descriptor
from tests.helpers.cli import Run, assert_one_line_error
from tests.helpers.schema import schema_validator
from tests.helpers.structured import tensor

T, FL = dml.TensorDataType, dml.FeatureLevel
F32, F16 = T.FLOAT32, T.FLOAT16
STATE = (
    "InputParametersTensor",
    "InputFirstMomentTensor",
    "InputSecondMomentTensor",
    "GradientTensor",
    "OutputParametersTensor",
    "OutputFirstMomentTensor",
    "OutputSecondMomentTensor",
)


def adam(sizes: tuple[int, ...] = (1, 2, 3, 4), data_type: T = F32, **given: Any) -> dml.AdamOptimizerOperatorDesc:
    """Every state tensor of ``sizes`` and ``data_type``, the step {1, 1, 1, 1}, the usual hyperparameters; ``given``
    fields replace them (a sizes tuple becomes a tensor of ``data_type``)."""
    fields: dict[str, Any] = {
        **dict.fromkeys(STATE, sizes),
        "TrainingStepTensor": (1, 1, 1, 1),
        "LearningRate": 0.001,
        "Beta1": 0.9,
        "Beta2": 0.999,
        "Epsilon": 1e-8,
        **given,
    }
    typed = {name: tensor(data_type, v) if isinstance(v, tuple) else v for name, v in fields.items()}
    return dml.AdamOptimizerOperatorDesc.model_validate(typed)


EXAMPLES = {
    "FLOAT32 { D0, D1, D2, D3 }": adam(),
    "FLOAT16, the step FLOAT32": adam((2, 3, 5, 7), F16, TrainingStepTensor=tensor(F32, (1, 1, 1, 1))),
}


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_validate_from_3_0(name: str) -> None:
    dml.validate(EXAMPLES[name], FL.FL_3_0)
    with pytest.raises(dml.UnsupportedError, match="ADAM_OPTIMIZER needs DML_FEATURE_LEVEL_3_0 or higher"):
        dml.validate(EXAMPLES[name], FL.FL_2_1)


def refused(desc: dml.AdamOptimizerOperatorDesc, *fragments: str) -> None:
    with pytest.raises(dml.InvalidArgumentError) as raised:
        dml.validate(desc, FL.FL_6_4)
    for fragment in fragments:
        assert fragment in str(raised.value), (fragment, str(raised.value))


@pytest.mark.parametrize(
    ("desc", "fragments"),
    [
        (adam(GradientTensor=(1, 2, 3, 5)),
         ("ADAM_OPTIMIZER.GradientTensor.Sizes is (1, 2, 3, 5); it must equal InputParametersTensor.Sizes "
          "((1, 2, 3, 4))", "must have the same DataType, DimensionCount, and Sizes")),
        (adam(InputSecondMomentTensor=tensor(F16, (1, 2, 3, 4))),
         ("InputSecondMomentTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal "
          "InputParametersTensor.DataType",)),
        (adam(TrainingStepTensor=(1, 1, 1, 2)),
         ("ADAM_OPTIMIZER.TrainingStepTensor.Sizes is [1, 1, 1, 2]; it must be [1, 1, 1, 1]: the training step is "
          "a scalar",)),
        (adam(TrainingStepTensor=tensor(T.UINT32, (1, 1, 1, 1))),
         ("TrainingStepTensor.DataType is DML_TENSOR_DATA_TYPE_UINT32; DML_FEATURE_LEVEL_6_4 allows",)),
        (adam(OutputFirstMomentTensor=(1, 2, 4, 3)),
         ("ADAM_OPTIMIZER.OutputFirstMomentTensor.Sizes is [1, 2, 4, 3]; it must be [1, 2, 3, 4]: "
          "OutputFirstMomentTensor has InputParametersTensor's Sizes and DataType",)),
        (adam((2, 3, 4)), ("InputParametersTensor.DimensionCount is 3; DML_FEATURE_LEVEL_6_4 allows exactly 4",)),
    ],
    ids=["gradient sizes", "type group", "step scalar", "step type", "output sizes", "dimensions"],
)  # fmt: skip
def test_each_rule_is_refused_naming_field_and_rule(
    desc: dml.AdamOptimizerOperatorDesc, fragments: tuple[str, ...]
) -> None:
    refused(desc, *fragments)


def _adam_step(
    x: np.ndarray, m: np.ndarray, v: np.ndarray, g: np.ndarray, step: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The page's step, written out: learning rate 0.001, Beta1 0.9, Beta2 0.999, Epsilon 1e-8."""
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    alpha = np.sqrt(1 - 0.999**step) / (1 - 0.9**step)
    return x - 0.001 * alpha * m / (np.sqrt(v) + 1e-8), m, v


@pytest.mark.parametrize("seed", range(4))
def test_output_rule_agrees_with_a_numpy_adam_step(seed: int) -> None:
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, 6, 4))
    x, g = rng.standard_normal(shape), rng.standard_normal(shape)
    outputs = _adam_step(x, np.zeros(shape), np.zeros(shape), g, step=1.0)
    inputs = {name: tensor(F16, shape) for name in dml.AdamOptimizerOperatorDesc.INPUTS}
    inputs["training_step_tensor"] = tensor(F32, (1, 1, 1, 1))
    shapes = dml.AdamOptimizerOperatorDesc.output_shapes(inputs, {})
    assert [s.sizes for s in shapes] == [o.shape for o in outputs] and {s.data_type for s in shapes} == {F16}
    assert np.all(np.isfinite(outputs[0]))
    dml.validate(adam(shape, F16), FL.FL_3_0)


@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip_and_schema(name: str) -> None:
    desc = EXAMPLES[name]
    dumped = json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json(by_alias=True))
    read = parse_descriptor(dumped)
    back = read.desc if isinstance(read, dml.OperatorDesc) else read
    assert type(back) is type(desc) and back == desc and hash(back) == hash(desc)
    schema_validator().validate(dumped)


def test_operator_type_and_in_place() -> None:
    assert dml.OperatorType("DML_OPERATOR_ADAM_OPTIMIZER").value == 136
    assert dml.AdamOptimizerOperatorDesc.SUPPORTS_IN_PLACE  # the page: each output may alias an eligible input


def test_compiling_says_dmlpy_does_not_run_it_yet() -> None:
    with pytest.raises(dml.UnsupportedError, match="dmlpy validates ADAM_OPTIMIZER but does not run it yet"):
        adam().plan()


def test_dmlpy_validate_and_explain(run: Run, write_json: Any) -> None:
    path = write_json(json.loads(dml.OperatorDesc(type=dml.OperatorType.ADAM_OPTIMIZER, desc=adam()).model_dump_json()))
    result = run("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert (
        '"Type": "DML_OPERATOR_ADAM_OPTIMIZER"' in result.stdout and "valid from DML_FEATURE_LEVEL_3_0" in result.stdout
    )
    assert_one_line_error(run("explain", str(path)), 1, "UnsupportedError", "does not run it yet")
