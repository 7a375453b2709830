"""The normalization family as descriptors, without OpenCL: BATCH_NORMALIZATION (and its GRAD, TRAINING and
TRAINING_GRAD forms), MEAN_VARIANCE_NORMALIZATION(1, 2), LOCAL_RESPONSE_NORMALIZATION(_GRAD) and LP_NORMALIZATION.
Worked examples (the pages have none: ONNX's BatchNormalization, MeanVarianceNormalization, LRN, LpNormalization
and LayerNormalization, the operators the pages model) validate from their level; each documented rule broken is
refused naming the field and the rule; the output rule agrees with onnx.reference on small random arrays (and with
NumPy's reductions for the statistics and gradients); JSON, the schema and the command line take them."""

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
F32, F16 = T.FLOAT32, T.FLOAT16
DATA, CHANNEL = (2, 3, 4, 5), (1, 3, 1, 1)


def built(desc_class: type[OperatorDescBase], sizes: dict[str, tuple[int, ...] | None], **fields: Any) -> Any:
    """``desc_class`` with FLOAT32 tensors of ``sizes`` (C names; None leaves one out) and its other ``fields``."""
    data_type = fields.pop("data_type", F32)
    tensors = {name: None if s is None else tensor(data_type, s) for name, s in sizes.items()}
    return desc_class.model_validate({**tensors, **fields})


def batch_norm(data: tuple[int, ...] = DATA, stats: tuple[int, ...] = CHANNEL, **fields: Any) -> Any:
    sizes = {"InputTensor": data, "MeanTensor": stats, "VarianceTensor": stats, "ScaleTensor": stats}
    sizes |= {"BiasTensor": stats, "OutputTensor": data}
    sizes |= {k: fields.pop(k) for k in list(fields) if k.endswith("Tensor")}
    return built(dml.BatchNormalizationOperatorDesc, sizes, **{"Spatial": True, "Epsilon": 1e-5, **fields})


def batch_norm_grad(training: bool = False, data: tuple[int, ...] = DATA, stats: tuple[int, ...] = CHANNEL,
                    **fields: Any) -> Any:  # fmt: skip
    sizes = {"InputTensor": data, "InputGradientTensor": data, "MeanTensor": stats, "VarianceTensor": stats}
    sizes |= {"ScaleTensor": stats, "OutputGradientTensor": data, "OutputScaleGradientTensor": stats}
    sizes |= {"OutputBiasGradientTensor": stats}
    sizes |= {k: fields.pop(k) for k in list(fields) if k.endswith("Tensor")}
    desc_class = dml.BatchNormalizationTrainingGradOperatorDesc if training else dml.BatchNormalizationGradOperatorDesc
    return built(desc_class, sizes, **{"Epsilon": 1e-5, **fields})


def batch_norm_training(data: tuple[int, ...] = DATA, stats: tuple[int, ...] = CHANNEL, **fields: Any) -> Any:
    sizes = {"InputTensor": data, "ScaleTensor": stats, "BiasTensor": stats, "FusedAddTensor": data}
    sizes |= {"OutputTensor": data, "OutputMeanTensor": stats, "OutputVarianceTensor": stats}
    sizes |= {k: fields.pop(k) for k in list(fields) if k.endswith("Tensor")}
    return built(dml.BatchNormalizationTrainingOperatorDesc, sizes, **{"Epsilon": 1e-5, **fields})


def mvn(form: int = 0, data: tuple[int, ...] = DATA, scale: tuple[int, ...] | None = CHANNEL, **fields: Any) -> Any:
    """MEAN_VARIANCE_NORMALIZATION (form 0), 1 or 2, a scale and bias of ``scale``'s Sizes (None: neither)."""
    sizes = {"InputTensor": data, "ScaleTensor": scale, "BiasTensor": scale, "OutputTensor": data}
    sizes |= {k: fields.pop(k) for k in list(fields) if k.endswith("Tensor")}
    own: dict[str, Any] = [
        {"CrossChannel": False, "NormalizeVariance": True},
        {"Axes": [2, 3], "NormalizeVariance": True},
        {"Axes": [2, 3], "UseMean": True, "UseVariance": True},
    ][form]
    desc_class = [
        dml.MeanVarianceNormalizationOperatorDesc,
        dml.MeanVarianceNormalization1OperatorDesc,
        dml.MeanVarianceNormalization2OperatorDesc,
    ][form]
    return built(desc_class, sizes, **{**own, "Epsilon": 1e-5, **fields})


WINDOW = {"CrossChannel": True, "LocalSize": 3, "Alpha": 0.0001, "Beta": 0.75, "Bias": 1.0}


def lrn(data: tuple[int, ...] = (5, 5, 5, 5), grad: bool = False, **fields: Any) -> Any:
    if grad:
        sizes = {"InputTensor": data, "InputGradientTensor": data, "OutputGradientTensor": data}
        sizes |= {k: fields.pop(k) for k in list(fields) if k.endswith("Tensor")}
        return built(dml.LocalResponseNormalizationGradOperatorDesc, sizes, **{**WINDOW, **fields})
    sizes = {"InputTensor": data, "OutputTensor": data}
    sizes |= {k: fields.pop(k) for k in list(fields) if k.endswith("Tensor")}
    return built(dml.LocalResponseNormalizationOperatorDesc, sizes, **{**WINDOW, **fields})


def lp(data: tuple[int, ...] = (3, 4), **fields: Any) -> Any:
    sizes = {"InputTensor": data, "OutputTensor": data}
    sizes |= {k: fields.pop(k) for k in list(fields) if k.endswith("Tensor")}
    return built(dml.LpNormalizationOperatorDesc, sizes, **{"Axis": 1, "Epsilon": 1e-5, "P": 2, **fields})


EXAMPLES = {
    "BATCH_NORMALIZATION, ONNX's example {2, 3, 4, 5}, fused RELU": (
        batch_norm(FusedActivation={"Type": "ACTIVATION_RELU", "Desc": {}}),
        FL.FL_1_0,
    ),
    "BATCH_NORMALIZATION 2-D": (batch_norm((3, 4), (1, 4), Spatial=False), FL.FL_3_1),
    "BATCH_NORMALIZATION_GRAD": (batch_norm_grad(), FL.FL_3_1),
    "BATCH_NORMALIZATION_TRAINING, fused add and activation": (
        batch_norm_training(FusedActivation={"Type": "ACTIVATION_LEAKY_RELU", "Desc": {"Alpha": 0.1}}),
        FL.FL_4_1,
    ),
    "BATCH_NORMALIZATION_TRAINING_GRAD": (batch_norm_grad(True), FL.FL_4_1),
    "MEAN_VARIANCE_NORMALIZATION, ONNX's example {3, 3, 3, 1}": (mvn(0, (3, 3, 3, 1), None), FL.FL_1_0),
    "MEAN_VARIANCE_NORMALIZATION with scale and bias": (mvn(0), FL.FL_1_0),
    "MEAN_VARIANCE_NORMALIZATION1 (instance normalization)": (mvn(1), FL.FL_2_1),
    "MEAN_VARIANCE_NORMALIZATION1 (layer normalization, 3-D)": (
        mvn(1, (2, 3, 4), (1, 1, 4), Axes=[2], AxisCount=1),
        FL.FL_3_1,
    ),
    "MEAN_VARIANCE_NORMALIZATION2 (RMS normalization)": (mvn(2, UseMean=False, Axes=[3, 2, 1]), FL.FL_6_3),
    "LOCAL_RESPONSE_NORMALIZATION, ONNX's example {5, 5, 5, 5}": (lrn(), FL.FL_1_0),
    "LOCAL_RESPONSE_NORMALIZATION_GRAD": (lrn(grad=True), FL.FL_3_1),
    "LP_NORMALIZATION 4-D": (lp((2, 3, 4, 5), Axis=3, P=1), FL.FL_1_0),
    "LP_NORMALIZATION, ONNX's LpNormalization {3, 4}": (lp(), FL.FL_3_1),
}


@pytest.mark.parametrize("name", EXAMPLES)
def test_worked_examples_validate_from_their_level(name: str) -> None:
    desc, level = EXAMPLES[name]
    dml.validate(desc, level)
    dml.validate(desc, FL.FL_6_4)
    below = [lower for lower in FL if lower < level]
    if below:
        with pytest.raises(dml.DmlError):
            dml.validate(desc, below[-1])


def refused(desc: OperatorDescBase, *fragments: str, level: FL = FL.FL_6_4) -> None:
    with pytest.raises(dml.InvalidArgumentError) as raised:
        dml.validate(desc, level)
    for fragment in fragments:
        assert fragment in str(raised.value), (fragment, str(raised.value))


@pytest.mark.parametrize(
    ("desc", "level", "fragments"),
    [
        (batch_norm(MeanTensor=(1, 2, 1, 1)), FL.FL_1_0,
         ("BATCH_NORMALIZATION.MeanTensor.Sizes[1] is 2; it must be 1 (broadcast along that dimension) or "
          "InputTensor.Sizes[1] (3)",)),
        (batch_norm(BiasTensor=(1, 3, 1)), FL.FL_3_1,
         ("BATCH_NORMALIZATION.BiasTensor.DimensionCount is 3; it must equal InputTensor.DimensionCount (4)",
          "must have the same DimensionCount")),
        (batch_norm(Spatial=False), FL.FL_3_1,
         ("BATCH_NORMALIZATION.MeanTensor.Sizes[2] is 1; with Spatial FALSE it must be InputTensor.Sizes[2] (4)",
          "below DML_FEATURE_LEVEL_4_0")),
        (batch_norm_grad(VarianceTensor=(1, 1, 1, 1)), FL.FL_3_1,
         ("BATCH_NORMALIZATION_GRAD.VarianceTensor.Sizes is (1, 1, 1, 1); it must equal MeanTensor.Sizes",
          "MeanTensor, VarianceTensor and ScaleTensor must have the same Sizes")),
        (batch_norm_grad(True, InputGradientTensor=(2, 3, 4, 4)), FL.FL_4_1,
         ("BATCH_NORMALIZATION_TRAINING_GRAD.InputGradientTensor.Sizes is (2, 3, 4, 4); it must equal "
          "InputTensor.Sizes",)),
        (batch_norm_grad(stats=(1, 3, 2, 1)), FL.FL_3_1, ("MeanTensor.Sizes[2] is 2; it must be 1",)),
        (batch_norm_training(FusedAddTensor=(2, 3, 4, 1)), FL.FL_4_1,
         ("BATCH_NORMALIZATION_TRAINING.FusedAddTensor.Sizes is (2, 3, 4, 1); it must equal InputTensor.Sizes",)),
        (batch_norm_training(BiasTensor=(1, 1, 1, 1)), FL.FL_4_1,
         ("BATCH_NORMALIZATION_TRAINING.BiasTensor.Sizes is (1, 1, 1, 1); it must equal ScaleTensor.Sizes",)),
        (mvn(0, BiasTensor=None), FL.FL_5_1,
         ("MEAN_VARIANCE_NORMALIZATION.BiasTensor is null while ScaleTensor is given; below DML_FEATURE_LEVEL_5_2",)),
        (mvn(1, ScaleTensor=None), FL.FL_4_0, ("MEAN_VARIANCE_NORMALIZATION1.ScaleTensor is null while BiasTensor",)),
        (mvn(0, scale=(1, 3, 2, 1)), FL.FL_1_0, ("MEAN_VARIANCE_NORMALIZATION.ScaleTensor.Sizes[2] is 2",)),
        (mvn(1, scale=(1, 1, 1, 1)), FL.FL_3_1,
         ("MEAN_VARIANCE_NORMALIZATION1.ScaleTensor.Sizes[1] is 1; below DML_FEATURE_LEVEL_4_0", "ChannelCount")),
        (mvn(1, Axes=[1, 4]), FL.FL_4_0,
         ("MEAN_VARIANCE_NORMALIZATION1.Axes[1] is 4; each axis must be less than InputTensor.DimensionCount (4)",)),
        (mvn(2, Axes=[3, 3]), FL.FL_6_3, ("MEAN_VARIANCE_NORMALIZATION2.Axes[1] is 3, which Axes [3, 3] holds",)),
        (mvn(1, Axes=[]), FL.FL_4_0, ("MEAN_VARIANCE_NORMALIZATION1.Axes is empty",)),
        (lrn(LocalSize=0), FL.FL_1_0, ("LOCAL_RESPONSE_NORMALIZATION.LocalSize is 0; it must be at least 1",)),
        (lrn(grad=True, InputGradientTensor=(5, 5, 5, 4)), FL.FL_3_1,
         ("LOCAL_RESPONSE_NORMALIZATION_GRAD.InputGradientTensor.Sizes is (5, 5, 5, 4); it must equal "
          "InputTensor.Sizes",)),
        (lrn(grad=True, LocalSize=0), FL.FL_3_1, ("LOCAL_RESPONSE_NORMALIZATION_GRAD.LocalSize is 0",)),
        (lp(Axis=2), FL.FL_3_1, ("LP_NORMALIZATION.Axis is 2; it must be less than InputTensor.DimensionCount (2)",)),
        (lp(P=3), FL.FL_3_1, ("LP_NORMALIZATION.P is 3; it must be 1 or 2",)),
        (lp(OutputTensor=(3, 4, 1)), FL.FL_3_1,
         ("LP_NORMALIZATION.OutputTensor.DimensionCount is 3; it must equal InputTensor.DimensionCount (2)",)),
    ],
    ids=["statistic broadcast", "dimension group", "Spatial FALSE", "grad statistics sizes", "gradient sizes",
         "grad broadcast", "fused add sizes", "bias sizes", "scale without bias", "bias without scale",
         "mvn scale broadcast", "mvn1 channel below 4_0", "axis range", "axis twice", "no axes",
         "local size", "lrn grad sizes", "lrn grad local size", "lp axis", "lp p", "lp dimension count"],
)  # fmt: skip
def test_each_rule_is_refused_naming_field_and_rule(
    desc: OperatorDescBase, level: FL, fragments: tuple[str, ...]
) -> None:
    refused(desc, *fragments, level=level)


def test_the_level_lifts_a_rule() -> None:
    """Scale or bias alone, Spatial FALSE with broadcast statistics and MVN1's broadcast channel are accepted from
    the level whose page lifts them."""
    dml.validate(mvn(0, BiasTensor=None), FL.FL_5_2)
    dml.validate(mvn(1, ScaleTensor=None), FL.FL_5_2)
    dml.validate(batch_norm(Spatial=False), FL.FL_4_0)
    dml.validate(mvn(1, scale=(1, 1, 1, 1)), FL.FL_4_0)


def test_data_types_agree() -> None:
    wrong = mvn(2).model_copy(update={"bias_tensor": dml.TensorDesc(desc=tensor(F16, CHANNEL))})
    refused(wrong, "MEAN_VARIANCE_NORMALIZATION2.BiasTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal")
    wrong_output = batch_norm_training().model_copy(
        update={"output_mean_tensor": dml.TensorDesc(desc=tensor(F16, CHANNEL))}
    )
    refused(wrong_output, "OutputMeanTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal InputTensor")


@pytest.mark.parametrize(
    ("desc", "fragment"),
    [
        (batch_norm(OutputTensor=(2, 3, 4, 6)),
         "BATCH_NORMALIZATION.OutputTensor.Sizes is [2, 3, 4, 6]; it must be [2, 3, 4, 5]: OutputTensor has "
         "InputTensor's Sizes and InputTensor's DataType (the page: InputTensor and OutputTensor must have the same "
         "Sizes)"),
        (batch_norm_training(OutputVarianceTensor=(1, 3, 1, 2)),
         "BATCH_NORMALIZATION_TRAINING.OutputVarianceTensor.Sizes is [1, 3, 1, 2]; it must be [1, 3, 1, 1]: "
         "OutputVarianceTensor has ScaleTensor's Sizes"),
        (batch_norm_grad(OutputScaleGradientTensor=(1, 1, 1, 1)),
         "OutputScaleGradientTensor.Sizes is [1, 1, 1, 1]; it must be [1, 3, 1, 1]: OutputScaleGradientTensor has "
         "MeanTensor's Sizes"),
        (batch_norm_grad(True, OutputGradientTensor=(2, 3, 5, 4)),
         "OutputGradientTensor.Sizes is [2, 3, 5, 4]; it must be [2, 3, 4, 5]: OutputGradientTensor has "
         "InputTensor's Sizes"),
        (mvn(1, OutputTensor=(2, 3, 4, 1)), "MEAN_VARIANCE_NORMALIZATION1.OutputTensor.Sizes is [2, 3, 4, 1]"),
        (lrn(OutputTensor=(5, 5, 5, 1)), "LOCAL_RESPONSE_NORMALIZATION.OutputTensor.Sizes is [5, 5, 5, 1]"),
        (lrn(grad=True, OutputGradientTensor=(5, 5, 1, 5)), "OutputGradientTensor.Sizes is [5, 5, 1, 5]"),
        (lp(OutputTensor=(4, 3)), "LP_NORMALIZATION.OutputTensor.Sizes is [4, 3]; it must be [3, 4]"),
    ],
    ids=["bn", "training statistics", "grad scale gradient", "training grad", "mvn1", "lrn", "lrn grad", "lp"],
)  # fmt: skip
def test_output_sizes_are_the_rule_with_its_formula(desc: OperatorDescBase, fragment: str) -> None:
    refused(desc, fragment)


def test_fused_activation_is_checked_as_its_own_operator() -> None:
    with pytest.raises(dml.DmlError, match="cannot be a fused activation"):
        batch_norm(FusedActivation={"Type": "ACTIVATION_SOFTMAX", "Desc": {}})
    refused(mvn(1, FusedActivation={"Type": "ACTIVATION_LEAKY_RELU", "Desc": {}}), "FusedActivation.Desc", "Alpha")
    refused(
        batch_norm_training(FusedActivation={"Type": "ACTIVATION_ELU", "Desc": {}}),
        "BATCH_NORMALIZATION_TRAINING.FusedActivation.Desc",
    )


def test_counts_and_bools() -> None:
    assert mvn(1, Axes=[1, 2, 3]).axis_count == 3
    with pytest.raises(dml.DmlError, match="Axes has 2 entries; AxisCount is 3"):
        mvn(1, AxisCount=3)
    for spelling in (True, 1):
        assert mvn(0, CrossChannel=spelling).cross_channel is True
    for bad in ("yes", 2, "TRUE"):
        with pytest.raises(dml.DmlError, match=r"CrossChannel is .*; it must be true or false"):
            mvn(0, CrossChannel=bad)


def _run(node: Any, **arrays: np.ndarray) -> list[np.ndarray]:
    return list(ReferenceEvaluator(node).run(None, arrays))


def _inputs(desc: OperatorDescBase) -> dict[str, dml.BufferTensorDesc | None]:
    return {name: None if (t := getattr(desc, name)) is None else t.desc for name in desc.INPUTS}


def _fields(desc: OperatorDescBase) -> dict[str, Any]:
    tensors = {*desc.INPUTS, *desc.OUTPUTS}
    return {name: getattr(desc, name) for name in type(desc).model_fields if name not in tensors}


@pytest.mark.parametrize("seed", range(4))
def test_output_rule_agrees_with_onnx_reference(seed: int) -> None:
    """Small random arrays through onnx.reference's BatchNormalization, MeanVarianceNormalization, LRN,
    LpNormalization and LayerNormalization: each output's shape is the rule's Sizes."""
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(2, 6))
    shape = tuple(int(s) for s in rng.integers(1, 5, rank))
    x = rng.standard_normal(shape).astype(np.float32)
    c = shape[1]
    per_channel = tuple(c if d == 1 else 1 for d in range(rank))
    stats = [rng.random(c).astype(np.float32) + 0.5 for _ in range(4)]

    node = helper.make_node("BatchNormalization", ["X", "s", "b", "m", "v"], ["Y"])
    (y,) = _run(node, X=x, s=stats[0], b=stats[1], m=stats[2], v=stats[3])
    desc = batch_norm(shape, per_channel)
    assert desc.expected_outputs()[0].sizes == y.shape
    dml.validate(desc, FL.FL_3_1 if rank != 4 else FL.FL_1_0)

    axes = sorted({0, *(int(a) for a in rng.choice(rank, 2))} - {1}) or [0]
    (y,) = _run(helper.make_node("MeanVarianceNormalization", ["X"], ["Y"], axes=axes), X=x)
    for form in (1, 2):
        desc = mvn(form, shape, per_channel, Axes=axes)
        assert desc.expected_outputs()[0].sizes == y.shape
        dml.validate(desc, FL.FL_6_3)

    axis = int(rng.integers(0, rank))
    (y,) = _run(
        helper.make_node("LayerNormalization", ["X", "s"], ["Y"], axis=axis), X=x, s=np.ones(shape[axis:], np.float32)
    )
    layer = mvn(1, shape, (1,) * axis + shape[axis:], Axes=list(range(axis, rank)))
    assert layer.expected_outputs()[0].sizes == y.shape
    dml.validate(layer, FL.FL_4_0)

    (y,) = _run(helper.make_node("LpNormalization", ["X"], ["Y"], axis=axis, p=1), X=x)
    desc = lp(shape, Axis=axis, P=1)
    assert desc.expected_outputs()[0].sizes == y.shape
    dml.validate(desc, FL.FL_3_1)

    x4 = rng.standard_normal((1, *(int(s) for s in rng.integers(1, 6, 3)))).astype(
        np.float32
    )  # N 1: onnx 1.x's LRN loops over N for C
    (y,) = _run(helper.make_node("LRN", ["X"], ["Y"], size=3), X=x4)
    for grad in (False, True):
        desc = lrn(x4.shape, grad)
        assert desc.expected_outputs()[0].sizes == y.shape
        dml.validate(desc, FL.FL_3_1)


@pytest.mark.parametrize("seed", range(4))
def test_statistics_and_gradients_agree_with_numpy_reductions(seed: int) -> None:
    """The training form's mean and variance, and the gradients of the scale and bias, reduce over the dimensions
    where ScaleTensor (MeanTensor) has size 1: NumPy's keepdims reductions give their Sizes."""
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(1, 6))
    shape = tuple(int(s) for s in rng.integers(1, 5, rank))
    kept = rng.integers(0, 2, rank).astype(bool)
    stats_shape = tuple(s if k else 1 for s, k in zip(shape, kept, strict=True))
    reduced = tuple(d for d in range(rank) if not kept[d])
    x, dy = rng.standard_normal(shape), rng.standard_normal(shape)
    mean, variance = x.mean(axis=reduced, keepdims=True), x.var(axis=reduced, keepdims=True)
    scale_gradient = (dy * (x - mean) / np.sqrt(variance + 1e-5)).sum(axis=reduced, keepdims=True)
    bias_gradient = dy.sum(axis=reduced, keepdims=True)

    training = batch_norm_training(shape, stats_shape)
    dml.validate(training, FL.FL_4_1)
    assert [s.sizes for s in training.expected_outputs()] == [x.shape, mean.shape, variance.shape]
    for is_training in (False, True):
        grad = batch_norm_grad(is_training, shape, stats_shape)
        dml.validate(grad, FL.FL_4_1)
        assert [s.sizes for s in grad.expected_outputs()] == [dy.shape, scale_gradient.shape, bias_gradient.shape]
        assert all(s.data_type == F32 for s in grad.output_shapes(_inputs(grad), _fields(grad)))


@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip_and_schema(name: str) -> None:
    desc, _ = EXAMPLES[name]
    dumped = json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json(by_alias=True))
    read = parse_descriptor(dumped)
    back = read.desc if isinstance(read, dml.OperatorDesc) else read
    assert type(back) is type(desc) and back == desc and hash(back) == hash(desc)
    schema_validator().validate(dumped)


def test_operator_types_have_the_headers_values() -> None:
    values = {t.name: t.value for t in dml.OperatorType}
    expected = {
        "BATCH_NORMALIZATION": 72,
        "MEAN_VARIANCE_NORMALIZATION": 73,
        "LOCAL_RESPONSE_NORMALIZATION": 74,
        "LP_NORMALIZATION": 75,
        "MEAN_VARIANCE_NORMALIZATION1": 115,
        "LOCAL_RESPONSE_NORMALIZATION_GRAD": 144,
        "BATCH_NORMALIZATION_GRAD": 146,
        "BATCH_NORMALIZATION_TRAINING": 151,
        "BATCH_NORMALIZATION_TRAINING_GRAD": 152,
        "MEAN_VARIANCE_NORMALIZATION2": 171,
    }
    assert {name: values[name] for name in expected} == expected
    spellings = ("DML_OPERATOR_LP_NORMALIZATION", "LP_NORMALIZATION", 75)
    assert {dml.OperatorType(s) for s in spellings} == {dml.OperatorType.LP_NORMALIZATION}


RUNNING = (
    dml.BatchNormalizationOperatorDesc,
    dml.MeanVarianceNormalizationOperatorDesc,
    dml.MeanVarianceNormalization1OperatorDesc,
    dml.MeanVarianceNormalization2OperatorDesc,
    dml.LpNormalizationOperatorDesc,
    dml.LocalResponseNormalizationOperatorDesc,
)


def test_which_run_and_the_others_say_they_do_not_yet() -> None:
    for desc, _ in EXAMPLES.values():
        assert desc.runs() == isinstance(desc, RUNNING), type(desc).__name__
        if not desc.runs():
            with pytest.raises(dml.UnsupportedError, match="does not run it yet"):
                desc.plan()
    assert [step.lowered.kernel.source_name for step in batch_norm().plan().steps] == ["elementwise.cl"]
    assert [step.lowered.kernel.source_name for step in mvn(1).plan().steps] == ["normalize.cl"]
    assert [step.lowered.kernel.source_name for step in lrn().plan().steps] == ["local_response_normalization.cl"]


def test_dmlpy_validate_and_explain_a_file(run: Run, write_json: Any) -> None:
    desc = mvn(1)
    path = write_json(json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json()))
    result = run("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert '"Type": "DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1"' in result.stdout and '"AxisCount": 2' in result.stdout
    assert "valid from DML_FEATURE_LEVEL_2_1" in result.stdout
    bad = write_json(json.loads(dml.OperatorDesc.model_validate(lp(P=3)).model_dump_json()), "bad.json")
    refused_run = run("validate", str(bad))
    assert refused_run.returncode == 1 and "LP_NORMALIZATION.P is 3; it must be 1 or 2" in refused_run.stdout
    explained = run("explain", str(path))
    assert explained.returncode == 0 and "mean_variance_normalization in opencl/normalize.cl" in explained.stdout
