"""UPSAMPLE_2D, RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE3, RESAMPLE_GRAD and RESAMPLE_GRAD1 as descriptors, without
OpenCL. The pages' examples validate from their level and not below; each documented rule broken is refused with a
message naming the field and the rule; UPSAMPLE_2D's output rule and the exact fit the RESAMPLE rules show agree with
onnx.reference's Resize on small random arrays, and the Sizes the pages leave to the caller (cropped or edge-clamped)
are accepted; JSON, the schema and the command line take them; the forward operators plan one launch of
resample.cl, and compiling the gradients says dmlpy does not run them yet."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import dmlpy as dml
from dmlpy.descriptors_json import parse_descriptor
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops.resample import scaled_sizes
from tests.helpers.cli import Run
from tests.helpers.schema import schema_validator
from tests.helpers.structured import tensor

T, FL = dml.TensorDataType, dml.FeatureLevel
F32, F16, I8, U8 = T.FLOAT32, T.FLOAT16, T.INT8, T.UINT8
CENTRES = {"InputPixelOffsets": [0.5] * 4, "OutputPixelOffsets": [-0.5] * 4}


def desc(operator: str, **fields: Any) -> Any:
    return dml.OPERATORS[dml.OperatorType[operator]].model_validate(fields)


def upsample(sizes: tuple[int, ...] = (1, 2, 3, 4), width: int = 2, height: int = 3, **fields: Any) -> Any:
    out = (*sizes[:-2], sizes[-2] * height, sizes[-1] * width)
    given = {"ScaleSize": {"Width": width, "Height": height}, "InterpolationMode": "NEAREST_NEIGHBOR", **fields}
    return desc("UPSAMPLE_2D", InputTensor=tensor(F32, sizes), OutputTensor=tensor(F32, out), **given)


def resample(
    operator: str = "RESAMPLE",
    out: tuple[int, ...] = (1, 1, 4, 6),
    scales: tuple[float, ...] = (1.0, 1.0, 2.0, 2.0),
    data_type: T = F32,
    **fields: Any,
) -> Any:
    """A forward RESAMPLE operator on {1, 1, 2, 3}: ONNX's Resize with scales {1, 1, 2, 2} by default."""
    given: dict[str, Any] = {"InterpolationMode": "LINEAR", "Scales": list(scales)}
    if operator != "RESAMPLE":
        given |= CENTRES
    if operator in ("RESAMPLE2", "RESAMPLE3"):
        given["RoundingDirection"] = "DECREASING"
    if operator == "RESAMPLE3":
        given["Antialiased"] = True
    given |= fields
    return desc(operator, InputTensor=tensor(data_type, (1, 1, 2, 3)), OutputTensor=tensor(data_type, out), **given)


def resample_grad(operator: str = "RESAMPLE_GRAD", forward_input: tuple[int, ...] = (1, 1, 2, 2), **fields: Any) -> Any:
    """RESAMPLE_GRAD's example: NEAREST_NEIGHBOR, height x0.5, width x1.5: the gradient {1, 1, 1, 3} back to
    {1, 1, 2, 2}."""
    given: dict[str, Any] = {"InterpolationMode": "NEAREST_NEIGHBOR", "Scales": [1.0, 1.0, 0.5, 1.5], **CENTRES}
    if operator == "RESAMPLE_GRAD1":
        given["RoundingDirection"] = "INCREASING"
    return desc(
        operator, InputGradientTensor=tensor(F32, (1, 1, 1, 3)), OutputGradientTensor=tensor(F32, forward_input),
        **{**given, **fields},
    )  # fmt: skip


EXAMPLES = {
    "UPSAMPLE_2D 4-D": (upsample(), FL.FL_1_0),
    "UPSAMPLE_2D 5-D, LINEAR": (upsample((1, 2, 2, 3, 4), 1, 2, InterpolationMode="LINEAR"), FL.FL_1_0),
    "RESAMPLE x2": (resample(), FL.FL_2_0),
    "RESAMPLE 1-D": (desc("RESAMPLE", InputTensor=tensor(F32, (3,)), OutputTensor=tensor(F32, (9,)),
                          InterpolationMode="NEAREST_NEIGHBOR", Scales=[3.0]), FL.FL_5_1),
    "RESAMPLE UINT8": (resample(data_type=U8), FL.FL_6_2),
    "RESAMPLE cropped": (resample(out=(1, 1, 3, 5)), FL.FL_2_0),
    "RESAMPLE edge-clamped": (resample(out=(1, 1, 5, 7)), FL.FL_2_0),
    "RESAMPLE1 pixel corners": (resample("RESAMPLE1", InputPixelOffsets=[0.0] * 4, OutputPixelOffsets=[0.0] * 4),
                                FL.FL_2_1),
    "RESAMPLE1 downsampling": (resample("RESAMPLE1", (1, 1, 1, 1), (1.0, 1.0, 0.5, 0.5)), FL.FL_2_1),
    "RESAMPLE2": (resample("RESAMPLE2", InterpolationMode="NEAREST_NEIGHBOR"), FL.FL_5_1),
    "RESAMPLE2 INT8": (resample("RESAMPLE2", data_type=I8), FL.FL_6_2),
    "RESAMPLE3 antialiased": (resample("RESAMPLE3", (1, 1, 1, 1), (1.0, 1.0, 0.25, 0.25)), FL.FL_6_4),
    "RESAMPLE_GRAD example": (resample_grad(), FL.FL_3_0),
    "RESAMPLE_GRAD1": (resample_grad("RESAMPLE_GRAD1"), FL.FL_5_1),
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


def _output(example: Any, data_type: T, sizes: tuple[int, ...], field: str = "output_tensor") -> Any:
    return example.model_copy(update={field: dml.TensorDesc(desc=tensor(data_type, sizes))})


@pytest.mark.parametrize(
    ("example", "fragments"),
    [
        (upsample(height=0).model_copy(update={"output_tensor": dml.TensorDesc(desc=tensor(F32, (1, 2, 3, 8)))}),
         ("UPSAMPLE_2D.ScaleSize.Height is 0; it must be from 1 to UINT_MAX / InputTensor's Height "
          "(4294967295 / 3 = 1431655765)", "0 < ScaleSize.Height <= UINT_MAX / InputHeight")),
        (upsample((1, 1, 1, 2), 1, 1).model_copy(update={"scale_size": dml.Size2D(width=2**31, height=1)}),
         ("UPSAMPLE_2D.ScaleSize.Width is 2147483648; it must be from 1 to UINT_MAX / InputTensor's Width "
          "(4294967295 / 2 = 2147483647)",)),
        (_output(upsample(), F32, (1, 2, 9, 9)),
         ("UPSAMPLE_2D.OutputTensor.Sizes is [1, 2, 9, 9]; it must be [1, 2, 9, 8]",
          "InputTensor.Sizes[-2] * ScaleSize.Height and InputTensor.Sizes[-1] * ScaleSize.Width")),
        (_output(upsample(), F16, (1, 2, 9, 8)),
         ("UPSAMPLE_2D.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal InputTensor.DataType",
          "(the page: InputTensor and OutputTensor must have the same DataType)")),
        (resample(scales=(1.0, 2.0, 2.0)),
         ("RESAMPLE.ScaleCount is 3; it must equal InputTensor.DimensionCount (4): Scales hold one entry per "
          "dimension",)),
        (_output(resample(), F32, (1, 4, 6)),
         ("RESAMPLE.OutputTensor.DimensionCount is 3; it must equal InputTensor.DimensionCount (4)",)),
        (_output(resample("RESAMPLE1"), U8, (1, 1, 4, 6)),
         ("RESAMPLE1.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_UINT8; it must equal InputTensor.DataType",)),
        (resample("RESAMPLE2", scales=(2.0, 2.0), InputPixelOffsets=[0.5] * 2, OutputPixelOffsets=[-0.5] * 2),
         ("RESAMPLE2.DimensionCount is 2; it must equal InputTensor.DimensionCount (4): Scales, InputPixelOffsets "
          "and OutputPixelOffsets hold one entry per dimension",)),
        (resample_grad(Scales=[1.0, 0.5, 1.5], InputPixelOffsets=[0.5] * 3, OutputPixelOffsets=[-0.5] * 3),
         ("RESAMPLE_GRAD.DimensionCount is 3; it must equal InputGradientTensor.DimensionCount (4)",)),
        (_output(resample_grad("RESAMPLE_GRAD1"), F16, (1, 1, 2, 2), "output_gradient_tensor"),
         ("RESAMPLE_GRAD1.OutputGradientTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal "
          "InputGradientTensor.DataType",)),
    ],
    ids=["upsample zero height", "upsample width overflow", "upsample output", "upsample type", "resample count",
         "resample rank", "resample1 type", "resample2 count", "resample_grad count", "resample_grad1 type"],
)  # fmt: skip
def test_each_rule_is_refused_naming_field_and_rule(example: OperatorDescBase, fragments: tuple[str, ...]) -> None:
    refused(example, *fragments)


def test_support_tables_by_level() -> None:
    """RESAMPLE: 4-D only below FL 5_1; INT8 and UINT8 from FL 6_2 (never for the gradients); RESAMPLE3 from 6_4."""
    one_d = desc("RESAMPLE1", InputTensor=tensor(F32, (3,)), OutputTensor=tensor(F32, (6,)), InterpolationMode=1,
                 Scales=[2.0], InputPixelOffsets=[0.5], OutputPixelOffsets=[-0.5])  # fmt: skip
    with pytest.raises(dml.DmlError, match="DimensionCount is 1; DML_FEATURE_LEVEL_5_0 allows exactly 4"):
        dml.validate(one_d, FL.FL_5_0)
    dml.validate(one_d, FL.FL_5_1)
    with pytest.raises(dml.DmlError, match="INT8"):
        dml.validate(resample("RESAMPLE", data_type=I8), FL.FL_6_1)
    dml.validate(resample("RESAMPLE", data_type=I8), FL.FL_6_2)
    with pytest.raises(dml.DmlError):
        dml.validate(resample("RESAMPLE3"), FL.FL_6_3)
    with pytest.raises(dml.DmlError):
        dml.validate(upsample((2, 3)), FL.FL_6_4)


def test_counts_are_derived_or_checked() -> None:
    assert resample().scale_count == 4 and resample("RESAMPLE1").dimension_count == 4
    assert resample_grad().dimension_count == 4
    with pytest.raises(dml.DescriptorProblems, match="Scales has 4 entries; DimensionCount is 3"):
        resample("RESAMPLE2", DimensionCount=3)
    with pytest.raises(dml.DescriptorProblems, match="must have one entry per spatial dimension each"):
        resample("RESAMPLE1", InputPixelOffsets=[0.5] * 3)
    with pytest.raises(dml.DescriptorProblems, match="ScaleCount"):
        resample(ScaleCount=2)
    with pytest.raises(dml.DescriptorProblems, match="Antialiased"):
        resample("RESAMPLE3", Antialiased="yes")


def _onnx_resize_shape(x: np.ndarray, scales: list[float], mode: str) -> tuple[int, ...]:
    """onnx.reference's Resize of ``x`` by ``scales``: its output's shape."""
    node = helper.make_node("Resize", ["X", "", "scales"], ["Y"], mode=mode)
    graph = helper.make_graph(
        [node], "resize",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("scales", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    (y,) = ReferenceEvaluator(model).run(None, {"X": x, "scales": np.array(scales, np.float32)})
    return tuple(y.shape)


@pytest.mark.parametrize("seed", range(4))
def test_output_rules_agree_with_onnx_resize(seed: int) -> None:
    rng = np.random.default_rng(seed)
    # UPSAMPLE_2D: Resize by {1, 1, [1], Height, Width}.
    sizes = tuple(int(s) for s in rng.integers(1, 4, int(rng.integers(4, 6))))
    width, height = (int(s) for s in rng.integers(1, 4, 2))
    x = rng.random(sizes, dtype=np.float32)
    factors = [1.0] * (len(sizes) - 2) + [float(height), float(width)]
    fields = {"scale_size": dml.Size2D(width=width, height=height)}
    (shape,) = dml.Upsample2DOperatorDesc.output_shapes({"input_tensor": tensor(F32, sizes)}, fields)
    assert shape.sizes == _onnx_resize_shape(x, factors, "nearest") and shape.data_type == F32
    dml.validate(upsample(sizes, width, height), FL.FL_1_0)
    # RESAMPLE: the exact fit the rule shows, floor(Sizes[i] * Scales[i]), is Resize's output; other Sizes validate.
    rank = int(rng.integers(1, 5))
    sizes = tuple(int(s) for s in rng.integers(1, 6, rank))
    scales = [float(s) for s in rng.choice([0.5, 0.75, 1.0, 1.5, 2.0, 3.0], rank)]
    x = rng.random(sizes, dtype=np.float32)
    fit = _onnx_resize_shape(x, scales, "linear")
    assert scaled_sizes(sizes, scales) == fit
    (shape,) = dml.ResampleOperatorDesc.output_shapes({"input_tensor": tensor(F32, sizes)}, {"scales": scales})
    assert shape.sizes is None and shape.data_type == F32 and f"= {list(fit)} fits exactly" in shape.rule
    for out in (tuple(max(size, 1) for size in fit), tuple(size + 1 for size in fit)):
        made = desc("RESAMPLE", InputTensor=tensor(F32, sizes), OutputTensor=tensor(F32, out),
                    InterpolationMode="LINEAR", Scales=scales)  # fmt: skip
        dml.validate(made, FL.FL_5_1)


def test_the_output_rules_say_whose_sizes_they_are() -> None:
    (forward,) = resample("RESAMPLE2").expected_outputs()
    assert forward.sizes is None and forward.data_type == F32
    assert forward.rule.startswith("OutputTensor.Sizes are the caller's, with InputTensor's DimensionCount")
    assert "floor(InputTensor.Sizes[i] * Scales[i]) = [1, 1, 4, 6] fits exactly" in forward.rule
    (backward,) = resample_grad().expected_outputs()
    assert backward.sizes is None and backward.data_type == F32
    assert backward.rule.startswith("OutputGradientTensor.Sizes are the caller's, the forward pass's InputTensor")
    (upsampled,) = upsample().expected_outputs()
    assert upsampled.sizes == (1, 2, 9, 8)


ONE_PER_OPERATOR = {example.OPERATOR_TYPE: name for name, (example, _) in reversed(EXAMPLES.items())}
"""The first example of each operator: the schema check (most of a second a document) takes these only."""


@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip_and_schema(name: str) -> None:
    example, _ = EXAMPLES[name]
    dumped = json.loads(dml.OperatorDesc(type=example.OPERATOR_TYPE, desc=example).model_dump_json(by_alias=True))
    read = parse_descriptor(dumped)
    back = read.desc if isinstance(read, dml.OperatorDesc) else read
    assert type(back) is type(example) and back == example and hash(back) == hash(example)
    if ONE_PER_OPERATOR[example.OPERATOR_TYPE] == name:
        schema_validator().validate(dumped)


def test_enums_take_every_spelling() -> None:
    for spelling in ("DML_INTERPOLATION_MODE_LINEAR", "LINEAR", 1):
        assert dml.InterpolationMode(spelling) is dml.InterpolationMode.LINEAR
    assert dml.InterpolationMode.NEAREST_NEIGHBOR.value == 0
    assert resample("RESAMPLE2", RoundingDirection=1).rounding_direction is dml.AxisDirection.DECREASING
    values = {t.name: t.value for t in dml.OperatorType}
    names = ("UPSAMPLE_2D", "RESAMPLE", "RESAMPLE1", "RESAMPLE_GRAD", "RESAMPLE2", "RESAMPLE_GRAD1", "RESAMPLE3")
    assert {n: values[n] for n in names} == {
        "UPSAMPLE_2D": 66, "RESAMPLE": 96, "RESAMPLE1": 116, "RESAMPLE_GRAD": 134, "RESAMPLE2": 161,
        "RESAMPLE_GRAD1": 162, "RESAMPLE3": 175,
    }  # fmt: skip


def test_fields_are_in_c_order() -> None:
    aliases = [f.alias for f in dml.Resample3OperatorDesc.model_fields.values()]
    assert aliases == [
        "InputTensor", "OutputTensor", "InterpolationMode", "RoundingDirection", "DimensionCount", "Scales",
        "InputPixelOffsets", "OutputPixelOffsets", "Antialiased",
    ]  # fmt: skip
    assert [f.alias for f in dml.ResampleOperatorDesc.model_fields.values()][2:] == [
        "InterpolationMode",
        "ScaleCount",
        "Scales",
    ]
    assert [f.alias for f in dml.ResampleGradOperatorDesc.model_fields.values()][:3] == [
        "InputGradientTensor",
        "OutputGradientTensor",
        "InterpolationMode",
    ]


def test_the_forward_operators_run_on_resample_cl_and_the_gradients_do_not_yet() -> None:
    for name, (example, _) in EXAMPLES.items():
        if name.startswith("RESAMPLE_GRAD"):
            with pytest.raises(dml.UnsupportedError, match="does not run it yet"):
                example.plan()
        else:
            assert [step.lowered.kernel.source_name for step in example.plan().steps] == ["resample.cl"], name


def test_dmlpy_validate_a_resample2_file(run: Run, write_json: Any) -> None:
    made = resample("RESAMPLE2")
    path = write_json(json.loads(dml.OperatorDesc(type=made.OPERATOR_TYPE, desc=made).model_dump_json()))
    result = run("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert '"Type": "DML_OPERATOR_RESAMPLE2"' in result.stdout and "valid from DML_FEATURE_LEVEL_5_1" in result.stdout
    bad = _output(upsample(), F32, (1, 2, 9, 9))
    refused_run = run("validate", str(write_json(json.loads(dml.OperatorDesc.model_validate(bad).model_dump_json()),
                                                 "bad.json")))  # fmt: skip
    assert refused_run.returncode == 1 and "UPSAMPLE_2D.OutputTensor.Sizes is [1, 2, 9, 9]" in refused_run.stdout
