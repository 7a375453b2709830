"""The convolution family as descriptors, without OpenCL: CONVOLUTION, CONVOLUTION_INTEGER and
QUANTIZED_LINEAR_CONVOLUTION. Worked examples (the pages have none of their own: ONNX's Conv, ConvTranspose,
ConvInteger and QLinearConv examples, which the pages name as their models) validate; each rule broken is refused
with a message naming the field and the rule; the window rule agrees with ONNX's reference Conv, ConvTranspose,
ConvInteger and QLinearConv on small random arrays; JSON, the schema and the command line take them; each plans the
unfold and gemm.cl's contraction (its device tests: tests/device/convolution)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

import dmlpy as dml
from dmlpy.descriptors_json import parse_descriptor
from dmlpy.kernels.launch import LaunchProfile
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.cli import Run
from tests.helpers.schema import schema_validator
from tests.helpers.structured import tensor

T, FL = dml.TensorDataType, dml.FeatureLevel
F32, F16, I8, U8, I32 = T.FLOAT32, T.FLOAT16, T.INT8, T.UINT8, T.INT32


def windows(spatial: int, **given: Any) -> dict[str, Any]:
    """Strides and Dilations 1, no padding, over ``spatial`` dimensions; ``given`` (C names) replace them."""
    return {
        "Strides": [1] * spatial,
        "Dilations": [1] * spatial,
        "StartPadding": [0] * spatial,
        "EndPadding": [0] * spatial,
        **given,
    }


def conv(
    x: tuple[int, ...] = (1, 1, 5, 5),
    w: tuple[int, ...] = (1, 1, 3, 3),
    y: tuple[int, ...] = (1, 1, 3, 3),
    bias: tuple[int, ...] | None = None,
    data_type: T = F32,
    **fields: Any,
) -> dml.ConvolutionOperatorDesc:
    """CONVOLUTION, by default ONNX's Conv example without padding: x (1, 1, 5, 5), W (1, 1, 3, 3) into (1, 1, 3,
    3)."""
    spatial = len(x) - 2
    return dml.ConvolutionOperatorDesc.model_validate(
        {
            "InputTensor": tensor(data_type, x),
            "FilterTensor": tensor(data_type, w),
            "BiasTensor": None if bias is None else tensor(data_type, bias),
            "OutputTensor": tensor(data_type, y),
            "Mode": "CROSS_CORRELATION",
            "Direction": "FORWARD",
            **windows(spatial, OutputPadding=[0] * spatial),
            "GroupCount": 1,
            **fields,
        }
    )


def conv_integer(**fields: Any) -> dml.ConvolutionIntegerOperatorDesc:
    """CONVOLUTION_INTEGER of ONNX's ConvInteger example: x (1, 1, 3, 3) UINT8 with a zero point, W (1, 1, 2, 2)
    into (1, 1, 2, 2) INT32."""
    return dml.ConvolutionIntegerOperatorDesc.model_validate(
        {
            "InputTensor": tensor(U8, (1, 1, 3, 3)),
            "InputZeroPointTensor": tensor(U8, (1, 1, 1, 1)),
            "FilterTensor": tensor(U8, (1, 1, 2, 2)),
            "OutputTensor": tensor(I32, (1, 1, 2, 2)),
            **windows(2),
            "GroupCount": 1,
            **fields,
        }
    )


def quantized_conv(**fields: Any) -> dml.QuantizedLinearConvolutionOperatorDesc:
    """QUANTIZED_LINEAR_CONVOLUTION of ONNX's QLinearConv example: x (1, 1, 7, 7) UINT8, W (1, 1, 1, 1), every scale
    and zero point per tensor, into (1, 1, 7, 7) UINT8."""
    one = (1, 1, 1, 1)
    return dml.QuantizedLinearConvolutionOperatorDesc.model_validate(
        {
            "InputTensor": tensor(U8, (1, 1, 7, 7)),
            "InputScaleTensor": tensor(F32, one),
            "InputZeroPointTensor": tensor(U8, one),
            "FilterTensor": tensor(U8, (1, 1, 1, 1)),
            "FilterScaleTensor": tensor(F32, one),
            "FilterZeroPointTensor": tensor(U8, one),
            "OutputScaleTensor": tensor(F32, one),
            "OutputZeroPointTensor": tensor(U8, one),
            "OutputTensor": tensor(U8, (1, 1, 7, 7)),
            **windows(2),
            "GroupCount": 1,
            **fields,
        }
    )


EXAMPLES = {
    "Conv, no padding": (conv(), FL.FL_1_0),
    "Conv, padding 1": (conv(y=(1, 1, 5, 5), StartPadding=[1, 1], EndPadding=[1, 1]), FL.FL_1_0),
    "Conv, strides 2, padding 1": (
        conv((1, 1, 7, 5), y=(1, 1, 4, 3), Strides=[2, 2], StartPadding=[1, 1], EndPadding=[1, 1]),
        FL.FL_1_0,
    ),
    "Conv, strides 2, padding along H only": (
        conv((1, 1, 7, 5), y=(1, 1, 4, 2), Strides=[2, 2], StartPadding=[1, 0], EndPadding=[1, 0]),
        FL.FL_1_0,
    ),
    "ConvTranspose": (conv((1, 1, 3, 3), (1, 2, 3, 3), (1, 2, 5, 5), Direction="BACKWARD"), FL.FL_1_0),
    "ConvTranspose, strides 3 and 2, output padding 1": (
        conv((1, 1, 3, 3), (1, 2, 3, 3), (1, 2, 10, 8), Direction=1, Strides=[3, 2], OutputPadding=[1, 1]),
        FL.FL_1_0,
    ),
    "3-D convolution, DML_CONVOLUTION_MODE_CONVOLUTION": (
        conv((2, 3, 4, 4, 4), (6, 3, 2, 2, 2), (2, 6, 3, 3, 3), Mode="DML_CONVOLUTION_MODE_CONVOLUTION"),
        FL.FL_1_0,
    ),
    "1-D depth-wise, bias, fused RELU": (
        conv(
            (1, 4, 9),
            (4, 1, 3),
            (1, 4, 4),
            bias=(1, 4, 1),
            data_type=F16,
            GroupCount=4,
            Strides=[2],
            Dilations=[2],
            StartPadding=[1],
            EndPadding=[1],
            OutputPadding=[0],
            FusedActivation={"Type": "ACTIVATION_RELU", "Desc": {}},
        ),
        FL.FL_4_0,
    ),
    "ConvInteger": (conv_integer(), FL.FL_2_1),
    "ConvInteger, padding 1, per-channel filter zero point": (
        conv_integer(
            OutputTensor=tensor(I32, (1, 1, 4, 4)),
            FilterZeroPointTensor=tensor(U8, (1, 1, 1, 1)),
            StartPadding=[1, 1],
            EndPadding=[1, 1],
        ),
        FL.FL_2_1,
    ),
    "QLinearConv": (quantized_conv(), FL.FL_2_1),
    "QLinearConv, 1-D, per-channel filter scale, bias": (
        quantized_conv(
            InputTensor=tensor(I8, (1, 2, 6)),
            InputZeroPointTensor=tensor(I8, (1,)),
            InputScaleTensor=tensor(F32, (1,)),
            FilterTensor=tensor(I8, (3, 2, 2)),
            FilterScaleTensor=tensor(F32, (1, 3, 1)),
            FilterZeroPointTensor=tensor(I8, (3,)),
            BiasTensor=tensor(I32, (1, 3, 1)),
            OutputScaleTensor=tensor(F32, (1,)),
            OutputZeroPointTensor=None,
            OutputTensor=tensor(I8, (1, 3, 5)),
            **windows(1),
        ),
        FL.FL_4_0,
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
        conv(y=(1, 1, 3, 4)),
        "CONVOLUTION.OutputTensor.Sizes is [1, 1, 3, 4]; it must be [1, 1, 3, 3]: BatchCount = InputTensor.Sizes[0], "
        "OutputChannelCount = FilterTensor.Sizes[0], then per spatial dimension i (FORWARD): (InputTensor.Sizes[2+i] "
        "+ StartPadding[i] + EndPadding[i] - Dilations[i] * (FilterTensor.Sizes[2+i] - 1) - 1) / Strides[i] + 1 + "
        "OutputPadding[i], rounded down: [(5 + 0 + 0 - 3) / 1 + 1 + 0 = 3, (5 + 0 + 0 - 3) / 1 + 1 + 0 = 3]",
    )
    refused(
        conv((1, 1, 3, 3), (1, 2, 3, 3), (1, 2, 5, 6), Direction="BACKWARD", Strides=[1, 2]),
        "OutputTensor.Sizes is [1, 2, 5, 6]; it must be [1, 2, 5, 7]",
        "OutputChannelCount = FilterTensor.Sizes[1] * GroupCount",
        "(BACKWARD, the transposed convolution): (InputTensor.Sizes[2+i] - 1) * Strides[i] + Dilations[i] * "
        "(FilterTensor.Sizes[2+i] - 1) + 1 - StartPadding[i] - EndPadding[i] + OutputPadding[i]: "
        "[(3 - 1) * 1 + 3 - 0 - 0 + 0 = 5, (3 - 1) * 2 + 3 - 0 - 0 + 0 = 7]",
    )
    refused(
        conv_integer(OutputTensor=tensor(I32, (1, 1, 2, 3))),
        "CONVOLUTION_INTEGER.OutputTensor.Sizes is [1, 1, 2, 3]; it must be [1, 1, 2, 2]",
        "- 1) / Strides[i] + 1, rounded down: [(3 + 0 + 0 - 2) / 1 + 1 = 2",
    )


@pytest.mark.parametrize(
    ("desc", "fragments"),
    [
        (conv(DimensionCount=3, Strides=[1] * 3, Dilations=[1] * 3, StartPadding=[0] * 3, EndPadding=[0] * 3,
              OutputPadding=[0] * 3),
         ("CONVOLUTION.DimensionCount is 3; InputTensor has 4 dimensions, so it must be 2",)),
        (conv(Strides=[1, 0]), ("CONVOLUTION.Strides[1] is 0; it must be at least 1",)),
        (conv(Dilations=[0, 1]), ("CONVOLUTION.Dilations[0] is 0; it must be at least 1",)),
        (conv(GroupCount=0), ("CONVOLUTION.GroupCount is 0; it must be at least 1",)),
        (conv((1, 3, 5, 5), (2, 1, 3, 3), (1, 2, 3, 3), GroupCount=2),
         ("CONVOLUTION.InputTensor.Sizes[1] (InputChannelCount) is 3; it must be a multiple of GroupCount (2)",)),
        (conv((1, 4, 5, 5), (2, 4, 3, 3), (1, 2, 3, 3), GroupCount=2),
         ("CONVOLUTION.FilterTensor.Sizes[1] is 4; it must be InputTensor.Sizes[1] / GroupCount = 4 / 2 = 2",
          "FORWARD reads FilterTensor as {OutputChannelCount, InputChannelCount / GroupCount, ...}")),
        (conv((1, 4, 5, 5), (3, 2, 3, 3), (1, 3, 3, 3), GroupCount=2),
         ("CONVOLUTION.FilterTensor.Sizes[0] (OutputChannelCount) is 3; it must be a multiple of GroupCount (2)",)),
        (conv((1, 2, 3, 3), (1, 2, 3, 3), (1, 2, 5, 5), Direction="BACKWARD"),
         ("CONVOLUTION.FilterTensor.Sizes[0] is 1; it must be InputTensor.Sizes[1] (InputChannelCount, 2)",
          "ONNX ConvTranspose's W")),
        (conv((1, 1, 5, 2), y=(1, 1, 3, 1)),
         ("CONVOLUTION.InputTensor.Sizes[3] + StartPadding[1] + EndPadding[1] is 2 + 0 + 0 = 2; it must be at least "
          "the dilated filter, Dilations[1] * (FilterTensor.Sizes[3] - 1) + 1 = 3",)),
        (conv(Dilations=[3, 1], y=(1, 1, 1, 3)), ("is 5 + 0 + 0 = 5; it must be at least the dilated filter", "= 7")),
        (conv((1, 1, 1, 3), (1, 1, 1, 3), (1, 1, 1, 5), Direction="BACKWARD", StartPadding=[1, 0]),
         ("CONVOLUTION.OutputTensor's spatial size 2 would be (1 - 1) * 1 + 1 - 1 - 0 + 0 = 0; it must be at least 1",
          "StartPadding[0] + EndPadding[0] (1) crop more")),
        (conv(bias=(1, 1, 1, 2)),
         ("CONVOLUTION.BiasTensor.Sizes is [1, 1, 1, 2]; it must be [1, 1, 1, 1]", "one value per output channel")),
        (conv(bias=(1, 1, 1)), ("CONVOLUTION.BiasTensor.DimensionCount is 3; it must equal InputTensor.DimensionCount",
                                "the same DimensionCount")),
        (conv().model_copy(update={"filter_tensor": dml.TensorDesc(desc=tensor(F16, (1, 1, 3, 3)))}),
         ("CONVOLUTION.FilterTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal InputTensor.DataType",
          "the same DataType")),
        (conv_integer(InputZeroPointTensor=tensor(I8, (1, 1, 1, 1))),
         ("CONVOLUTION_INTEGER.InputZeroPointTensor.DataType is DML_TENSOR_DATA_TYPE_INT8; it must equal",)),
        (conv_integer(InputZeroPointTensor=tensor(U8, (1, 1, 1, 2))),
         ("CONVOLUTION_INTEGER.InputZeroPointTensor.Sizes is [1, 1, 1, 2]; it must hold one value (every size 1)",)),
        (conv_integer(FilterZeroPointTensor=tensor(U8, (1, 3, 1, 1))),
         ("CONVOLUTION_INTEGER.FilterZeroPointTensor.Sizes is [1, 3, 1, 1]; it must hold one value for the whole "
          "tensor (every size 1) or one per output channel (OutputChannelCount = FilterTensor.Sizes[0]) (1",)),
        (conv_integer(InputZeroPointTensor=tensor(U8, (1, 1)), FilterZeroPointTensor=tensor(U8, (1, 1, 1))),
         ("CONVOLUTION_INTEGER.FilterZeroPointTensor.DimensionCount is 3; it must equal "
          "InputZeroPointTensor.DimensionCount (2)",)),
        (quantized_conv(InputScaleTensor=tensor(F32, (1, 1, 1, 7))),
         ("QUANTIZED_LINEAR_CONVOLUTION.InputScaleTensor.Sizes is [1, 1, 1, 7]; it must hold one value",)),
        (quantized_conv(FilterScaleTensor=tensor(F32, (1, 2, 1, 1))),
         ("QUANTIZED_LINEAR_CONVOLUTION.FilterScaleTensor.Sizes is [1, 2, 1, 1]", "one per output channel")),
        (quantized_conv(OutputZeroPointTensor=tensor(I8, (1, 1, 1, 1))),
         ("QUANTIZED_LINEAR_CONVOLUTION.OutputZeroPointTensor.DataType is DML_TENSOR_DATA_TYPE_INT8; it must equal "
          "OutputTensor",)),
        (quantized_conv(BiasTensor=tensor(I32, (1, 1, 7, 7))),
         ("QUANTIZED_LINEAR_CONVOLUTION.BiasTensor.Sizes is [1, 1, 7, 7]; it must be [1, 1, 1, 1]",)),
    ],
    ids=["DimensionCount", "stride 0", "dilation 0", "GroupCount 0", "channels and groups", "filter channels",
         "output channels and groups", "backward filter", "window too big", "dilated window too big",
         "backward crops everything", "bias sizes", "dimension group", "type group", "zero point type",
         "input zero point per tensor", "filter zero point per channel", "zero points' DimensionCount",
         "input scale per tensor", "filter scale per channel", "output zero point type", "quantized bias sizes"],
)  # fmt: skip
def test_each_rule_is_refused_naming_field_and_rule(desc: OperatorDescBase, fragments: tuple[str, ...]) -> None:
    refused(desc, *fragments)


def test_dimension_count_sizes_the_arrays() -> None:
    assert conv().dimension_count == 2 and conv_integer().dimension_count == 2
    with pytest.raises(dml.DmlError, match="Strides has 3 entries; DimensionCount is 2 and sizes it"):
        conv(DimensionCount=2, Strides=[1, 1, 1])
    with pytest.raises(dml.DmlError, match="must have one entry per spatial dimension each"):
        conv(OutputPadding=[0])
    with pytest.raises(dml.DmlError, match="a whole number from 0 to 4294967295"):
        conv(StartPadding=[-1, 0])


def test_fused_activation_is_checked_as_its_own_operator() -> None:
    with pytest.raises(dml.DmlError, match="cannot be a fused activation"):
        conv(FusedActivation={"Type": "ACTIVATION_SOFTMAX", "Desc": {}})
    refused(conv(FusedActivation={"Type": "ACTIVATION_LEAKY_RELU", "Desc": {}}), "CONVOLUTION.FusedActivation.Desc")


def test_output_types() -> None:
    refused(
        conv_integer(OutputTensor=tensor(T.INT16, (1, 1, 2, 2))), "OutputTensor.DataType is DML_TENSOR_DATA_TYPE_INT16"
    )
    (shape,) = quantized_conv().expected_outputs()
    assert shape.data_type == U8 and shape.sizes == (1, 1, 7, 7)
    assert quantized_conv(OutputZeroPointTensor=None).expected_outputs()[0].data_type is None  # INT8 or UINT8
    assert conv(data_type=F16).expected_outputs()[0].data_type == F16
    assert conv_integer().expected_outputs()[0].data_type == I32


def _onnx_shape(op_type: str, inputs: dict[str, np.ndarray], **attributes: Any) -> tuple[int, ...]:
    node = helper.make_node(op_type, list(inputs), ["Y"], **attributes)
    (y,) = ReferenceEvaluator(node).run(None, inputs)
    return tuple(y.shape)


def _random_window(rng: np.random.Generator, spatial: int) -> dict[str, list[int]]:
    return {
        "strides": [int(s) for s in rng.integers(1, 4, spatial)],
        "dilations": [int(s) for s in rng.integers(1, 3, spatial)],
        "start": [int(s) for s in rng.integers(0, 3, spatial)],
        "end": [int(s) for s in rng.integers(0, 3, spatial)],
    }


def _fields(window: dict[str, list[int]], groups: int, **more: Any) -> dict[str, Any]:
    return {
        "dimension_count": len(window["strides"]),
        "strides": tuple(window["strides"]),
        "dilations": tuple(window["dilations"]),
        "start_padding": tuple(window["start"]),
        "end_padding": tuple(window["end"]),
        "group_count": groups,
        **more,
    }


@pytest.mark.parametrize("seed", range(6))
def test_the_window_rule_agrees_with_onnx_reference_conv_and_conv_integer(seed: int) -> None:
    """Random groups, channels, kernels, strides, dilations and padding over 1 to 3 spatial dimensions: the rule's
    Sizes are those of ONNX's reference Conv (and ConvInteger, QLinearConv over 1 or 2) on arrays of those shapes."""
    rng = np.random.default_rng(seed)
    spatial, groups = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    window = _random_window(rng, spatial)
    kernel = [int(k) for k in rng.integers(1, 4, spatial)]
    sizes = [d * (k - 1) + 1 + int(rng.integers(0, 4)) for d, k in zip(window["dilations"], kernel, strict=True)]
    x_shape = (int(rng.integers(1, 3)), 2 * groups, *sizes)
    w_shape = (3 * groups, 2, *kernel)
    attributes = {"strides": window["strides"], "dilations": window["dilations"], "group": groups,
                  "pads": window["start"] + window["end"]}  # fmt: skip
    x, w = rng.standard_normal(x_shape).astype(np.float32), rng.standard_normal(w_shape).astype(np.float32)
    y_shape = _onnx_shape("Conv", {"X": x, "W": w}, **attributes)
    inputs = {"input_tensor": tensor(F32, x_shape), "filter_tensor": tensor(F32, w_shape), "bias_tensor": None}
    forward = _fields(window, groups, direction=dml.ConvolutionDirection.FORWARD, output_padding=(0,) * spatial)
    (shape,) = dml.ConvolutionOperatorDesc.output_shapes(inputs, forward)
    assert shape.sizes == y_shape and shape.data_type == F32
    desc = conv(x_shape, w_shape, y_shape, GroupCount=groups, **windows(
        spatial, Strides=window["strides"], Dilations=window["dilations"], StartPadding=window["start"],
        EndPadding=window["end"]), OutputPadding=[0] * spatial)  # fmt: skip
    dml.validate(desc, FL.FL_4_0 if spatial < 3 else FL.FL_1_0)
    if spatial < 3:
        xq, wq = rng.integers(0, 9, x_shape).astype(np.uint8), rng.integers(0, 9, w_shape).astype(np.uint8)
        assert _onnx_shape("ConvInteger", {"X": xq, "W": wq}, **attributes) == y_shape
        quantized = {"input_tensor": tensor(U8, x_shape), "filter_tensor": tensor(U8, w_shape)}
        (integer,) = dml.ConvolutionIntegerOperatorDesc.output_shapes(quantized, _fields(window, groups))
        assert integer.sizes == y_shape and integer.data_type == I32
        f32, scales = np.float32, np.linspace(0.5, 1.0, w_shape[0], dtype=np.float32)
        linear = {"x": xq, "xs": f32(0.5), "xz": np.uint8(1), "w": wq, "ws": scales, "wz": np.uint8(0),
                  "ys": f32(2), "yz": np.uint8(3)}  # fmt: skip
        assert _onnx_shape("QLinearConv", linear, **attributes) == y_shape


@pytest.mark.parametrize("seed", range(6))
def test_the_backward_rule_agrees_with_onnx_reference_conv_transpose(seed: int) -> None:
    """Random channels, kernels, strides, dilations, padding and output padding (less than the stride): the
    BACKWARD rule's Sizes are those of ONNX's reference ConvTranspose (group 1: the reference's grouped form fails)."""
    rng = np.random.default_rng(100 + seed)
    spatial = int(rng.integers(1, 3))
    window = _random_window(rng, spatial)
    kernel = [int(k) for k in rng.integers(1, 4, spatial)]
    output_padding = [int(rng.integers(0, s)) for s in window["strides"]]
    sizes = [int(s) for s in rng.integers(2, 5, spatial)]
    x_shape, w_shape = (1, 3, *sizes), (3, 2, *kernel)
    x, w = rng.standard_normal(x_shape).astype(np.float32), rng.standard_normal(w_shape).astype(np.float32)
    y_shape = _onnx_shape(
        "ConvTranspose", {"X": x, "W": w}, strides=window["strides"], dilations=window["dilations"],
        pads=window["start"] + window["end"], output_padding=output_padding,
    )  # fmt: skip
    inputs = {"input_tensor": tensor(F32, x_shape), "filter_tensor": tensor(F32, w_shape)}
    fields = _fields(window, 1, direction=dml.ConvolutionDirection.BACKWARD, output_padding=tuple(output_padding))
    (shape,) = dml.ConvolutionOperatorDesc.output_shapes(inputs, fields)
    assert shape.sizes == y_shape
    if min(y_shape) > 0:
        desc = conv(x_shape, w_shape, y_shape, Direction="BACKWARD", OutputPadding=output_padding, **windows(
            spatial, Strides=window["strides"], Dilations=window["dilations"], StartPadding=window["start"],
            EndPadding=window["end"]))  # fmt: skip
        dml.validate(desc, FL.FL_4_0)


def _dumped(desc: OperatorDescBase) -> Any:
    return json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json(by_alias=True))


@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip(name: str) -> None:
    desc, _ = EXAMPLES[name]
    read = parse_descriptor(_dumped(desc))
    back = read.desc if isinstance(read, dml.OperatorDesc) else read
    assert type(back) is type(desc) and back == desc and hash(back) == hash(desc)


@pytest.mark.parametrize(
    "name", ["3-D convolution, DML_CONVOLUTION_MODE_CONVOLUTION", "1-D depth-wise, bias, fused RELU", "ConvInteger",
             "QLinearConv, 1-D, per-channel filter scale, bias"],
)  # fmt: skip
def test_the_schema_takes_them(name: str) -> None:
    """One example of each operator and form (a schema check takes a quarter second)."""
    schema_validator().validate(_dumped(EXAMPLES[name][0]))


def test_enums_take_every_spelling() -> None:
    for enum, spellings, member in (
        (dml.ConvolutionMode, ("DML_CONVOLUTION_MODE_CROSS_CORRELATION", "CROSS_CORRELATION", 1), "CROSS_CORRELATION"),
        (dml.ConvolutionMode, ("DML_CONVOLUTION_MODE_CONVOLUTION", "convolution", 0), "CONVOLUTION"),
        (dml.ConvolutionDirection, ("DML_CONVOLUTION_DIRECTION_BACKWARD", "BACKWARD", 1, "1"), "BACKWARD"),
        (dml.ConvolutionDirection, ("DML_CONVOLUTION_DIRECTION_FORWARD", "FORWARD", 0), "FORWARD"),
    ):
        assert {enum(s) for s in spellings} == {enum[member]}
    values = {t.name: t.value for t in dml.OperatorType}
    assert values["CONVOLUTION"] == 53 and values["CONVOLUTION_INTEGER"] == 119
    assert values["QUANTIZED_LINEAR_CONVOLUTION"] == 120


def test_each_plans_the_unfold_and_the_contraction() -> None:
    """A 3 x 3 window unfolds the input (convolution.cl) for gemm.cl's contraction of the operator's epilogue, but
    CONVOLUTION's under the "cpu" profile, whose contraction reads the input through the window (IMPLICIT); a
    1 x 1 one reads the input as it is; CONVOLUTION's Mode CONVOLUTION copies the filter reversed first; one channel a
    group (the examples' one channel) is depthwise.cl's direct depth-wise kernel for all three."""
    # Two output channels: one would be a depth-wise convolution, depthwise.cl's direct kernel.
    two = {"FilterTensor": tensor(U8, (2, 1, 2, 2)), "OutputTensor": tensor(I32, (1, 2, 2, 2))}
    quantized_two = {"FilterTensor": tensor(U8, (2, 1, 1, 1)), "OutputTensor": tensor(U8, (1, 2, 7, 7))}
    for desc, operator in (
        (conv(w=(2, 1, 3, 3), y=(1, 2, 3, 3)), 0),
        (conv_integer(**two), 1),
        (quantized_conv(**quantized_two), 4),
    ):
        kernels = [(step.lowered.kernel.source_name, dict(step.lowered.kernel.defines)) for step in desc.plan().steps]
        assert kernels[-1][0] == "gemm.cl" and kernels[-1][1]["OPERATOR"] == str(operator), desc.operator_name()
        unfolded = "convolution.cl" in [name for name, _ in kernels]
        implicit = kernels[-1][1].get("IMPLICIT") == "1"
        assert implicit == (operator == 0) and (unfolded != implicit or desc.filter_tensor.desc.sizes[2:] == (1, 1))
    flipped = conv(w=(2, 1, 3, 3), y=(1, 2, 3, 3)).model_copy(update={"mode": dml.ConvolutionMode.CONVOLUTION})
    assert [step.lowered.kernel.source_name for step in flipped.plan().steps] == ["movement.cl", "gemm.cl"]
    gpu = LaunchProfile("gpu", vector_width=4, work_group_size=256, grid_size=256 * 40)
    assert [step.lowered.kernel.source_name for step in flipped.plan(gpu).steps] == [
        "movement.cl",
        "convolution.cl",
        "gemm.cl",
    ]
    for desc in (conv(), conv_integer(), quantized_conv()):
        plan = desc.plan()
        assert [step.lowered.kernel.kernel_name for step in plan.steps] == ["depthwise"], desc.operator_name()


def test_dmlpy_validate_and_explain_a_convolution_file(run: Run, write_json: Any) -> None:
    path = write_json(json.loads(dml.OperatorDesc(type=dml.OperatorType.CONVOLUTION, desc=conv()).model_dump_json()))
    result = run("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert '"Type": "DML_OPERATOR_CONVOLUTION"' in result.stdout
    assert (
        '"Direction": "DML_CONVOLUTION_DIRECTION_FORWARD"' in result.stdout and '"DimensionCount": 2' in result.stdout
    )
    assert "valid from DML_FEATURE_LEVEL_1_0" in result.stdout
    bad = write_json(json.loads(dml.OperatorDesc.model_validate(conv(y=(1, 1, 3, 4))).model_dump_json()), "bad.json")
    refused_run = run("validate", str(bad))
    assert refused_run.returncode == 1 and "CONVOLUTION.OutputTensor.Sizes is [1, 1, 3, 4]" in refused_run.stdout
    explained = run("explain", str(path))
    assert explained.returncode == 0, explained.stderr
    # One channel in and out: a depth-wise convolution, depthwise.cl's direct kernel in one launch.
    assert "depthwise in opencl/depthwise.cl" in explained.stdout and "gemm.cl" not in explained.stdout
    two = write_json(
        json.loads(dml.OperatorDesc.model_validate(conv(w=(2, 1, 3, 3), y=(1, 2, 3, 3))).model_dump_json()), "two.json"
    )
    explained = run("explain", str(two))
    # The "cpu" profile: the contraction reads the input through the window, no unfold.
    assert "unfold" not in explained.stdout and "contraction in opencl/gemm.cl" in explained.stdout
