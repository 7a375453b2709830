"""The pooling family as descriptors, without OpenCL: AVERAGE_POOLING(1), LP_POOLING(1), MAX_POOLING(1, 2),
QUANTIZED_LINEAR_AVERAGE_POOLING, AVERAGE_POOLING_GRAD, MAX_POOLING_GRAD and MAX_UNPOOLING. Worked examples (the
AVERAGE_POOLING_GRAD page's 2x2 window over a 3x3 input, ONNX's pooling examples, which the operators model)
validate from their level; each documented rule broken is refused naming the field and the rule; the window rule
agrees with ONNX's reference AveragePool, MaxPool (dilations, indices), LpPool and MaxUnpool on small random arrays;
JSON, the schema and the command line take them; the forward poolings (the quantized one too) and MAX_UNPOOLING
plan opencl/pooling.cl, the gradients say dmlpy does not run them yet."""

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
from dmlpy.ops._window import window_output_size
from tests.helpers.cli import Run, assert_one_line_error
from tests.helpers.schema import schema_validator
from tests.helpers.structured import tensor

T, FL = dml.TensorDataType, dml.FeatureLevel
F32, F16, I8, U8, U32, U64 = T.FLOAT32, T.FLOAT16, T.INT8, T.UINT8, T.UINT32, T.UINT64


def window(spatial: int = 2, window_size: int = 2, stride: int = 1, dilated: bool = False, **fields: Any) -> Any:
    arrays = {"Strides": [stride] * spatial, "WindowSize": [window_size] * spatial}
    arrays |= {"StartPadding": [0] * spatial, "EndPadding": [0] * spatial}
    if dilated:
        arrays["Dilations"] = [1] * spatial
    return {**arrays, **fields}


def pool(
    desc_class: type[OperatorDescBase],
    x: tuple[int, ...] = (1, 1, 4, 4),
    out: tuple[int, ...] = (1, 1, 3, 3),
    data_type: T = F32,
    **fields: Any,
) -> Any:
    """A forward pooling descriptor: a 2x2 window, stride 1, no padding unless ``fields`` say otherwise."""
    dilated = any(f.alias == "Dilations" for f in desc_class.model_fields.values())
    base = window(len(x) - 2, dilated=dilated)
    tensors = {"InputTensor": tensor(data_type, x), "OutputTensor": tensor(data_type, out)}
    return desc_class.model_validate({**tensors, **base, **fields})


def quantized(**fields: Any) -> Any:
    one = (1, 1, 1, 1)
    tensors = {
        "InputTensor": tensor(U8, (1, 3, 4, 4)),
        "InputScaleTensor": tensor(F32, (1, 3, 1, 1)),
        "InputZeroPointTensor": tensor(U8, (1, 3, 1, 1)),
        "OutputScaleTensor": tensor(F32, one),
        "OutputZeroPointTensor": tensor(I8, one),
        "OutputTensor": tensor(I8, (1, 3, 3, 3)),
    }
    return dml.QuantizedLinearAveragePoolingOperatorDesc.model_validate(
        {**tensors, **window(dilated=True), "IncludePadding": False, **fields}
    )


def average_grad(**fields: Any) -> Any:
    """The AVERAGE_POOLING_GRAD page's example: a 2x2 window, stride 1, over a 3x3 input; its gradient 2x2."""
    tensors = {"InputGradientTensor": tensor(F32, (1, 1, 2, 2)), "OutputGradientTensor": tensor(F32, (1, 1, 3, 3))}
    return dml.AveragePoolingGradOperatorDesc.model_validate({**tensors, **window(), "IncludePadding": False, **fields})


def max_grad(**fields: Any) -> Any:
    tensors = {
        "InputTensor": tensor(F32, (1, 1, 3, 3)),
        "InputGradientTensor": tensor(F32, (1, 1, 2, 2)),
        "OutputGradientTensor": tensor(F32, (1, 1, 3, 3)),
    }
    return dml.MaxPoolingGradOperatorDesc.model_validate({**tensors, **window(dilated=True), **fields})


def unpool(**tensors: Any) -> Any:
    base = {
        "InputTensor": tensor(F32, (1, 1, 2, 2)),
        "IndicesTensor": tensor(U32, (1, 1, 2, 2)),
        "OutputTensor": tensor(F32, (1, 1, 4, 4)),
    }
    return dml.MaxUnpoolingOperatorDesc.model_validate({**base, **tensors})


EXAMPLES = {
    "AVERAGE_POOLING, padded, IncludePadding": (
        pool(dml.AveragePoolingOperatorDesc, (1, 1, 5, 5), (1, 1, 3, 3), WindowSize=[3, 3], Strides=[2, 2],
             StartPadding=[1, 1], EndPadding=[1, 1], IncludePadding=True),
        FL.FL_1_0,
    ),
    "AVERAGE_POOLING1 5-D": (
        pool(dml.AveragePooling1OperatorDesc, (1, 2, 3, 4, 4), (1, 2, 2, 3, 3), IncludePadding=False), FL.FL_6_2
    ),
    "LP_POOLING": (pool(dml.LpPoolingOperatorDesc, P=2, data_type=F16), FL.FL_1_0),
    "LP_POOLING1 dilated": (
        pool(dml.LpPooling1OperatorDesc, (1, 1, 5, 5), (1, 1, 3, 3), Dilations=[2, 2], P=1), FL.FL_6_2
    ),
    "MAX_POOLING": (pool(dml.MaxPoolingOperatorDesc), FL.FL_1_0),
    "MAX_POOLING INT8": (pool(dml.MaxPoolingOperatorDesc, data_type=I8), FL.FL_3_0),
    "MAX_POOLING1 with indices": (
        pool(dml.MaxPooling1OperatorDesc, OutputIndicesTensor=tensor(U32, (1, 1, 3, 3))), FL.FL_2_0
    ),
    "MAX_POOLING2 dilated, UINT64 indices": (
        pool(dml.MaxPooling2OperatorDesc, (1, 1, 5, 5), (1, 1, 2, 2), Strides=[2, 2], Dilations=[2, 2],
             OutputIndicesTensor=tensor(U64, (1, 1, 2, 2))),
        FL.FL_5_0,
    ),
    "QUANTIZED_LINEAR_AVERAGE_POOLING per channel": (quantized(), FL.FL_6_2),
    "AVERAGE_POOLING_GRAD (the page's example)": (average_grad(), FL.FL_3_0),
    "MAX_POOLING_GRAD": (max_grad(), FL.FL_3_0),
    "MAX_UNPOOLING (the header's FL 2_0)": (unpool(), FL.FL_2_0),
}  # fmt: skip


@pytest.mark.parametrize("name", EXAMPLES)
def test_worked_examples_validate_from_their_level(name: str) -> None:
    desc, level = EXAMPLES[name]
    dml.validate(desc, level)
    dml.validate(desc, FL.FL_6_4)
    below = [lower for lower in FL if lower < level]
    if below:
        with pytest.raises(dml.DmlError):
            dml.validate(desc, below[-1])


def test_average_pooling_grad_takes_any_forward_input_of_its_gradient() -> None:
    """Stride 2 over 4 or 5 elements gives 2 windows of 2 either way: both forward inputs are the caller's."""
    for size in (4, 5):
        desc = average_grad(
            InputGradientTensor=tensor(F32, (1, 1, 2, 2)), OutputGradientTensor=tensor(F32, (1, 1, size, size)),
            Strides=[2, 2],
        )  # fmt: skip
        dml.validate(desc, FL.FL_3_0)
    (shape,) = average_grad().expected_outputs()
    assert shape.sizes is None and shape.data_type == F32 and "the caller's choice" in shape.rule


HALF_OUTPUT = dml.TensorDesc(desc=tensor(F16, (1, 1, 3, 3)))


def refused(desc: OperatorDescBase, *fragments: str, level: FL = FL.FL_6_4) -> None:
    with pytest.raises(dml.InvalidArgumentError) as raised:
        dml.validate(desc, level)
    for fragment in fragments:
        assert fragment in str(raised.value), (fragment, str(raised.value))


def test_output_sizes_are_the_window_rule_with_its_formula() -> None:
    refused(
        pool(dml.MaxPoolingOperatorDesc, out=(1, 1, 2, 3)),
        "MAX_POOLING.OutputTensor.Sizes is [1, 1, 2, 3]; it must be [1, 1, 3, 3]: InputTensor's BatchCount and "
        "ChannelCount [1, 1], then per spatial dimension i (InputTensor.Sizes[2 + i] + StartPadding[i] + "
        "EndPadding[i] - WindowSize[i]) / Strides[i] + 1, rounded down: [3, 3]",
    )
    refused(
        pool(dml.MaxPooling2OperatorDesc, (1, 1, 5, 5), (1, 1, 4, 4), Dilations=[2, 2]),
        "MAX_POOLING2.OutputTensor.Sizes is [1, 1, 4, 4]; it must be [1, 1, 3, 3]",
        "- (WindowSize[i] - 1) * Dilations[i] - 1) / Strides[i] + 1, rounded down",
    )


@pytest.mark.parametrize(
    ("desc", "fragments"),
    [
        (pool(dml.MaxPoolingOperatorDesc, (1, 1, 4, 4, 4), (1, 1, 3, 3, 3), **window(2)),
         ("MAX_POOLING.DimensionCount is 2; it must be InputTensor.DimensionCount - 2 (3)",)),
        (pool(dml.AveragePoolingOperatorDesc, Strides=[1, 0], IncludePadding=False),
         ("AVERAGE_POOLING.Strides[1] is 0; it must be at least 1",)),
        (pool(dml.LpPoolingOperatorDesc, WindowSize=[0, 2], P=2),
         ("LP_POOLING.WindowSize[0] is 0; it must be at least 1",)),
        (pool(dml.MaxPooling2OperatorDesc, Dilations=[1, 0]),
         ("MAX_POOLING2.Dilations[1] is 0; it must be at least 1",)),
        (pool(dml.MaxPoolingOperatorDesc, WindowSize=[5, 2]),
         ("MAX_POOLING.WindowSize[0] is 5: the window spans 5 elements", "InputTensor.Sizes[2] (4)",
          "the window must fit in the padded input")),
        (pool(dml.MaxPooling2OperatorDesc, Dilations=[4, 1]),
         ("MAX_POOLING2.WindowSize[0] is 2: the window spans 5 elements ((WindowSize - 1) * Dilations + 1",)),
        (pool(dml.LpPoolingOperatorDesc, P=0), ("LP_POOLING.P is 0; it must be at least 1",)),
        (pool(dml.LpPooling1OperatorDesc, P=0), ("LP_POOLING1.P is 0",)),
        (pool(dml.MaxPoolingOperatorDesc).model_copy(update={"output_tensor": HALF_OUTPUT}),
         ("MAX_POOLING.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal InputTensor",
          "the same DataType")),
        (pool(dml.MaxPooling1OperatorDesc, OutputIndicesTensor=tensor(U32, (1, 1, 1, 3, 3))),
         ("MAX_POOLING1.OutputIndicesTensor.DimensionCount is 5; it must equal InputTensor.DimensionCount (4)",)),
        (pool(dml.MaxPooling1OperatorDesc, OutputIndicesTensor=tensor(U32, (1, 1, 3, 2))),
         ("MAX_POOLING1.OutputIndicesTensor.Sizes is [1, 1, 3, 2]; it must be [1, 1, 3, 3]: OutputTensor's Sizes",)),
        (quantized(InputScaleTensor=tensor(F32, (1, 2, 1, 1))),
         ("InputScaleTensor.Sizes is [1, 2, 1, 1]; it must hold one value for the whole tensor (every size 1) or one "
          "per channel (ChannelCount = InputTensor.Sizes[1]) (3",)),
        (quantized(InputZeroPointTensor=tensor(I8, (1, 1, 1, 1))),
         ("QUANTIZED_LINEAR_AVERAGE_POOLING.InputZeroPointTensor.DataType is DML_TENSOR_DATA_TYPE_INT8; it must "
          "equal InputTensor",)),
        (quantized(OutputTensor=tensor(U8, (1, 3, 3, 3))),
         ("OutputTensor.DataType is DML_TENSOR_DATA_TYPE_UINT8; it must equal OutputZeroPointTensor",)),
        (average_grad(InputGradientTensor=tensor(F32, (1, 1, 3, 3))),
         ("AVERAGE_POOLING_GRAD.InputGradientTensor.Sizes is [1, 1, 3, 3]; it must be the forward pass's output, "
          "[1, 1, 2, 2]: OutputGradientTensor's BatchCount",)),
        (max_grad(InputGradientTensor=tensor(F32, (1, 1, 3, 2))),
         ("MAX_POOLING_GRAD.InputGradientTensor.Sizes is [1, 1, 3, 2]; it must be the forward pass's output, "
          "[1, 1, 2, 2]: InputTensor's",)),
        (max_grad(OutputGradientTensor=tensor(F32, (1, 1, 3, 4))),
         ("MAX_POOLING_GRAD.OutputGradientTensor.Sizes is [1, 1, 3, 4]; it must be [1, 1, 3, 3]: "
          "InputTensor's Sizes",)),
        (max_grad(InputGradientTensor=tensor(F16, (1, 1, 2, 2))),
         ("MAX_POOLING_GRAD.InputGradientTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal InputTensor",)),
        (unpool(IndicesTensor=tensor(U32, (1, 1, 2, 3))),
         ("MAX_UNPOOLING.IndicesTensor.Sizes is [1, 1, 2, 3]; it must be InputTensor's, [1, 1, 2, 2]",)),
        (unpool(OutputTensor=tensor(F16, (1, 1, 4, 4))),
         ("MAX_UNPOOLING.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal InputTensor",)),
    ],
    ids=["dimension count", "stride 0", "window 0", "dilation 0", "window too large", "dilated window too large",
         "P 0", "P 0 (1)", "type group", "indices dimension count", "indices sizes", "scale per channel",
         "zero point type", "output zero point type", "average grad sizes", "max grad input gradient",
         "max grad output gradient", "max grad type group", "unpooling indices", "unpooling type"],
)  # fmt: skip
def test_each_rule_is_refused_naming_field_and_rule(desc: OperatorDescBase, fragments: tuple[str, ...]) -> None:
    refused(desc, *fragments)


def test_counts_size_the_arrays() -> None:
    desc = pool(dml.MaxPoolingOperatorDesc, DimensionCount=2)
    assert desc.dimension_count == 2
    with pytest.raises(dml.DmlError, match="Strides has 1 entries; DimensionCount is 2 and sizes it"):
        pool(dml.MaxPoolingOperatorDesc, DimensionCount=2, Strides=[1])
    with pytest.raises(dml.DmlError, match="must have one entry per spatial dimension each"):
        pool(dml.MaxPooling2OperatorDesc, Dilations=[1, 1, 1])


def test_support_tables_teach_the_level() -> None:
    refused(
        pool(dml.MaxPooling1OperatorDesc, OutputIndicesTensor=tensor(U64, (1, 1, 3, 3))),
        "OutputIndicesTensor.DataType is DML_TENSOR_DATA_TYPE_UINT64",
        level=FL.FL_4_1,
    )
    refused(max_grad(**{k: tensor(F32, (1, 1, 3, 3, 3)) for k in ("InputTensor", "OutputGradientTensor")},
                     InputGradientTensor=tensor(F32, (1, 1, 2, 2, 2)), **window(3, dilated=True)),
            "DimensionCount is 5", level=FL.FL_3_0)  # fmt: skip
    dml.validate(
        max_grad(**{k: tensor(F32, (1, 1, 3, 3, 3)) for k in ("InputTensor", "OutputGradientTensor")},
                 InputGradientTensor=tensor(F32, (1, 1, 2, 2, 2)), **window(3, dilated=True)),
        FL.FL_4_0,
    )  # fmt: skip
    with pytest.raises(dml.UnsupportedError, match="MAX_UNPOOLING needs DML_FEATURE_LEVEL_2_0"):
        dml.validate(unpool(), FL.FL_1_0)


def test_output_types() -> None:
    out, indices = pool(dml.MaxPooling2OperatorDesc, data_type=U8).expected_outputs()
    assert out.data_type == U8 and indices.data_type is None and indices.sizes == out.sizes == (1, 1, 3, 3)
    assert quantized().expected_outputs()[0].data_type == I8
    assert quantized(OutputZeroPointTensor=None).expected_outputs()[0].data_type is None
    (unpooled,) = unpool().expected_outputs()
    assert unpooled.sizes is None and unpooled.data_type == F32


def _onnx(op_type: str, inputs: dict[str, np.ndarray], outputs: int = 1, **attributes: Any) -> list[np.ndarray]:
    names = [f"Y{index}" for index in range(outputs)]
    node = helper.make_node(op_type, list(inputs), names, **attributes)
    return list(ReferenceEvaluator(node).run(None, inputs))


def _random_window(rng: np.random.Generator, spatial: int) -> tuple[tuple[int, ...], dict[str, list[int]]]:
    """Sizes {N, C, ..} and window fields whose dilated window fits in the padded input."""
    fields: dict[str, list[int]] = {name: [] for name in ("Strides", "WindowSize", "StartPadding", "EndPadding")}
    fields["Dilations"] = []
    sizes = [int(rng.integers(1, 3)), int(rng.integers(1, 4))]
    for _ in range(spatial):
        window_size, dilation = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        start, end = int(rng.integers(0, window_size)), int(rng.integers(0, window_size))
        extent = (window_size - 1) * dilation + 1
        sizes.append(int(rng.integers(max(1, extent - start - end), 9)))
        for name, value in zip(fields, (int(rng.integers(1, 4)), window_size, start, end, dilation), strict=True):
            fields[name].append(value)
    return tuple(sizes), fields


def _onnx_window(fields: dict[str, list[int]], dilated: bool) -> dict[str, Any]:
    attributes = {
        "kernel_shape": fields["WindowSize"],
        "strides": fields["Strides"],
        "pads": fields["StartPadding"] + fields["EndPadding"],
    }
    return attributes | ({"dilations": fields["Dilations"]} if dilated else {})


@pytest.mark.parametrize("seed", range(6))
def test_window_rule_agrees_with_onnx_reference_pooling(seed: int) -> None:
    """Random sizes, windows, strides, paddings and dilations: each operator's rule gives ONNX's output shape, and
    a descriptor with that output (and the gradients' with the forward pair) validates."""
    rng = np.random.default_rng(seed)
    sizes, fields = _random_window(rng, int(rng.integers(2, 4)))
    x = rng.standard_normal(sizes).astype(np.float32)
    undilated = {name: value for name, value in fields.items() if name != "Dilations"}
    plain = {**undilated, "Dilations": [1] * len(fields["Strides"])}
    y_average = _onnx("AveragePool", {"X": x}, count_include_pad=1, **_onnx_window(plain, False))[0]
    y_lp = _onnx("LpPool", {"X": x}, p=2, **_onnx_window(plain, False))[0]
    y_max, indices = _onnx("MaxPool", {"X": x}, 2, **_onnx_window(fields, True))
    assert y_average.shape == y_lp.shape and indices.shape == y_max.shape
    inputs = {"input_tensor": tensor(F32, sizes)}
    for desc_class, extra, y in (
        (dml.AveragePoolingOperatorDesc, {"IncludePadding": True}, y_average),
        (dml.LpPoolingOperatorDesc, {"P": 2}, y_lp),
        (dml.MaxPoolingOperatorDesc, {}, y_average),
        (dml.MaxPooling2OperatorDesc, {"OutputIndicesTensor": tensor(U32, y_max.shape)}, y_max),
        (dml.AveragePooling1OperatorDesc, {"IncludePadding": False}, y_max),
        (dml.LpPooling1OperatorDesc, {"P": 3}, y_max),
    ):
        window_fields = fields if "dilations" in desc_class.model_fields else undilated
        snake = {desc_class.model_fields[name].alias: name for name in desc_class.model_fields}
        shapes = desc_class.output_shapes(inputs, {snake[name]: tuple(value) for name, value in window_fields.items()})
        assert shapes[0].sizes == y.shape, (desc_class.operator_name(), shapes[0], y.shape)
        desc = desc_class.model_validate(
            {"InputTensor": tensor(F32, sizes), "OutputTensor": tensor(F32, y.shape), **window_fields, **extra}
        )
        dml.validate(desc, FL.FL_6_2)
    average_gradient = {"InputGradientTensor": tensor(F32, y_average.shape), "OutputGradientTensor": tensor(F32, sizes)}
    dml.validate(
        dml.AveragePoolingGradOperatorDesc.model_validate({**average_gradient, **undilated, "IncludePadding": True}),
        FL.FL_3_0,
    )
    if len(sizes) == 4:
        maximum_gradient = {
            "InputTensor": tensor(F32, sizes),
            "InputGradientTensor": tensor(F32, y_max.shape),
            "OutputGradientTensor": tensor(F32, sizes),
        }
        dml.validate(dml.MaxPoolingGradOperatorDesc.model_validate({**maximum_gradient, **fields}), FL.FL_3_0)


def test_max_unpooling_takes_onnx_maxunpools_output() -> None:
    """ONNX's MaxPool then MaxUnpool (with output_shape, the forward input's): MAX_UNPOOLING of the pooled values
    and indices into that shape validates, and the indices address it (each below its element count)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 6, 4)).astype(np.float32)
    attributes = {"kernel_shape": [2, 2], "strides": [2, 2]}
    y, indices = _onnx("MaxPool", {"X": x}, 2, **attributes)
    shape = np.array(x.shape, dtype=np.int64)
    (unpooled,) = _onnx("MaxUnpool", {"X": y, "I": indices, "S": shape}, **attributes)
    assert unpooled.shape == x.shape and int(indices.max()) < x.size
    desc = unpool(
        InputTensor=tensor(F32, y.shape), IndicesTensor=tensor(U64, indices.shape), OutputTensor=tensor(F32, x.shape)
    )
    dml.validate(desc, FL.FL_5_0)


def test_window_output_size_is_the_floor_formula() -> None:
    for size, start, end, window_size, stride, dilation in [(5, 0, 0, 2, 2, 1), (7, 1, 2, 3, 3, 2), (4, 0, 0, 4, 1, 1)]:
        expected = int(np.floor((size + start + end - dilation * (window_size - 1) - 1) / stride)) + 1
        assert window_output_size(size, start, end, window_size, stride, dilation) == expected


@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip_and_schema(name: str) -> None:
    desc, _ = EXAMPLES[name]
    dumped = json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json(by_alias=True))
    read = parse_descriptor(dumped)
    back = read.desc if isinstance(read, dml.OperatorDesc) else read
    assert type(back) is type(desc) and back == desc and hash(back) == hash(desc)
    schema_validator().validate(dumped)


def test_include_padding_is_a_c_bool() -> None:
    assert pool(dml.AveragePoolingOperatorDesc, IncludePadding=1).include_padding is True
    with pytest.raises(dml.DmlError, match="IncludePadding"):
        pool(dml.AveragePoolingOperatorDesc, IncludePadding="yes")


def test_operator_types_take_every_spelling() -> None:
    values = {t.name: t.value for t in dml.OperatorType}
    assert values["AVERAGE_POOLING"] == 56 and values["LP_POOLING"] == 57 and values["MAX_POOLING"] == 58
    assert values["MAX_POOLING1"] == 91 and values["MAX_UNPOOLING"] == 92 and values["MAX_POOLING2"] == 110
    assert values["AVERAGE_POOLING_GRAD"] == 130 and values["MAX_POOLING_GRAD"] == 131
    assert values["LP_POOLING1"] == 165 and values["AVERAGE_POOLING1"] == 166
    assert values["QUANTIZED_LINEAR_AVERAGE_POOLING"] == 169
    spellings = ("DML_OPERATOR_MAX_POOLING2", "MAX_POOLING2", 110)
    assert {dml.OperatorType(s) for s in spellings} == {dml.OperatorType.MAX_POOLING2}


RUNNING = {
    dml.AveragePoolingOperatorDesc,
    dml.AveragePooling1OperatorDesc,
    dml.LpPoolingOperatorDesc,
    dml.LpPooling1OperatorDesc,
    dml.MaxPoolingOperatorDesc,
    dml.MaxPooling1OperatorDesc,
    dml.MaxPooling2OperatorDesc,
    dml.MaxUnpoolingOperatorDesc,
    dml.QuantizedLinearAveragePoolingOperatorDesc,
}
"""The pooling operators that run (opencl/pooling.cl); the gradients do not yet."""


def test_the_poolings_plan_pooling_cl_and_the_others_say_they_do_not_run_yet() -> None:
    for desc, _ in EXAMPLES.values():
        assert desc.runs() == (type(desc) in RUNNING)
        if type(desc) in RUNNING:
            kernels = [step.lowered.kernel for step in desc.plan().steps]
            assert kernels[-1].source_name == "pooling.cl" and "__kernel void" in kernels[-1].source
        else:
            with pytest.raises(dml.UnsupportedError, match=f"dmlpy validates {desc.operator_name()} but does not"):
                desc.plan()
    unpooling = EXAMPLES["MAX_UNPOOLING (the header's FL 2_0)"][0].plan()
    assert [step.lowered.kernel.kernel_name for step in unpooling.steps] == ["generate", "max_unpooling"]


def test_dmlpy_validate_and_explain_a_pooling_file(run: Run, write_json: Any) -> None:
    desc = EXAMPLES["MAX_POOLING1 with indices"][0]
    path = write_json(json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json()))
    result = run("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert (
        '"Type": "DML_OPERATOR_MAX_POOLING1"' in result.stdout and "valid from DML_FEATURE_LEVEL_2_0" in result.stdout
    )
    wrong = pool(dml.MaxPooling1OperatorDesc, out=(1, 1, 2, 2))
    bad = write_json(json.loads(dml.OperatorDesc.model_validate(wrong).model_dump_json()), "bad.json")
    refused_run = run("validate", str(bad))
    assert refused_run.returncode == 1 and "MAX_POOLING1.OutputTensor.Sizes is [1, 1, 2, 2]" in refused_run.stdout
    explained = run("explain", str(path))
    assert explained.returncode == 0 and "kernel: pooling in opencl/pooling.cl" in explained.stdout
    grad = EXAMPLES["MAX_POOLING_GRAD"][0]
    grad_path = write_json(json.loads(dml.OperatorDesc(type=grad.OPERATOR_TYPE, desc=grad).model_dump_json()), "g.json")
    assert_one_line_error(run("explain", str(grad_path)), 1, "UnsupportedError", "does not run it yet")
