"""Every value that enters the graph builder is held by its type or refused with an InvalidArgumentError
(dmlpy/graph/values.py): a constant's values, a number or array operand, a scale or zero point, a DML_SCALE_BIAS, a
clip bound, an operator's FLOAT field; and every refused call leaves the graph as it was.

Before: g.constant converted with a NumPy cast (300 as INT8 was 44, -129 was 127, 1.5 was 1, NaN was 0, 1e6 as
FLOAT16 was an infinity; 300 in a list raised NumPy's OverflowError, a wrong shape its ValueError), a 1-tuple
ScaleBias raised IndexError and a 3-tuple lost its third value, a bool bound was read as 1.0, and dml.graph.quantize
rounded a float32 scale array to a FLOAT16 input's type. tests/unit/graph/test_builder_values_fuzz.py fuzzes the
same calls against an independent reference."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dmlpy as dml

FL = dml.FeatureLevel
T = dml.TensorDataType
SIZES = (1, 1, 2, 3)
NUMBERS = (
    "it must be a number (an int or a float; True and False are not numbers here), or for several a NumPy array of them"
)
FLOAT32_FIX = (
    "FLOAT32, whose largest finite value is 3.4028234663852886e+38: give a number from -3.4028234663852886e+38 to "
    "3.4028234663852886e+38 (one beyond would round to infinity; NaN and the infinities are taken as they are)"
)
FLOAT16_FIX = (
    "FLOAT16, whose largest finite value is 65504.0: give a number from -65504.0 to 65504.0 (one beyond would round "
    "to infinity; NaN and the infinities are taken as they are)"
)
INT8_FIX = "INT8, which holds the integers -128 to 127: give one of them"


class Inputs:
    """A graph at DML_FEATURE_LEVEL_6_4 with an input of each type the calls below take, and what it held."""

    def __init__(self) -> None:
        self.g = dml.Graph(FL.FL_6_4)
        self.f32, self.f16, self.i8, self.i64 = (
            self.g.input(desc(t, SIZES)) for t in ("FLOAT32", "FLOAT16", "INT8", "INT64")
        )
        self.before = self.state()

    def state(self) -> tuple[str, list[Any], int]:
        return repr(self.g), [node.desc for node in self.g._nodes], len(self.g._inputs)

    def refused(self, call: Callable[[Inputs], Any]) -> str:
        """The message of the InvalidArgumentError ``call`` raises, after checking it changed nothing."""
        with pytest.raises(dml.InvalidArgumentError) as refused:
            call(self)
        assert self.state() == self.before, "a refused call changed the graph"
        return str(refused.value)


def constant_data(g: dml.Graph, expression: Any) -> bytes:
    data: bytes = g._nodes[expression.node].desc.data
    return data


def desc(data_type: Any, sizes: tuple[int, ...] = (1,), strides: tuple[int, ...] | None = None) -> Any:
    return dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides)


# -------------------------------------------------------------------------------------------------- constants
@pytest.mark.parametrize(
    ("values", "data_type", "sizes", "message"),
    [
        (300, "INT8", (1,), f"values is 300; desc's DataType is {INT8_FIX}"),
        (-129, "INT8", (1,), f"values is -129; desc's DataType is {INT8_FIX}"),
        (1.5, "INT8", (1,), f"values is 1.5; desc's DataType is {INT8_FIX}"),
        (math.nan, "INT8", (1,), f"values is NaN; desc's DataType is {INT8_FIX}"),
        (1e6, "FLOAT16", (1,), f"values is 1000000.0; desc's DataType is {FLOAT16_FIX}"),
        ([1, 300], "INT8", (2,), f"values[1] is 300; desc's DataType is {INT8_FIX}"),
        (np.array([[1, 2], [3, 300]]), "INT8", (2, 2), f"values[1, 1] is 300; desc's DataType is {INT8_FIX}"),
        (np.array([1.0, 70000.0]), "FLOAT16", (2,), f"values[1] is 70000.0; desc's DataType is {FLOAT16_FIX}"),
        (
            [2**64],
            "UINT64",
            (1,),
            "values[0] is 18446744073709551616; desc's DataType is UINT64, which holds the integers 0 to "
            "18446744073709551615: give one of them",
        ),
        (
            np.uint64(2**63),
            "INT64",
            (1,),
            "values is 9223372036854775808; desc's DataType is INT64, which holds the integers -9223372036854775808 "
            "to 9223372036854775807: give one of them",
        ),
        (
            [2**53 + 1, 0.5],
            "INT64",
            (2,),
            "values[1] is 0.5; desc's DataType is INT64, which holds the integers -9223372036854775808 to "
            "9223372036854775807: give one of them",
        ),
        (8, "INT4", (1,), "values is 8; desc's DataType is INT4, which holds the integers -8 to 7: give one of them"),
        (2**1100, "FLOAT64", (1,), "desc's DataType is FLOAT64, whose largest finite value is 1.7976931348623157e+308"),
    ],
    ids=[
        "300-int8",
        "-129-int8",
        "1.5-int8",
        "nan-int8",
        "1e6-float16",
        "list",
        "array",
        "array-float16",
        "2^64-uint64",
        "numpy-uint64-int64",
        "mixed-list",
        "int4",
        "beyond-a-double",
    ],
)
def test_a_constant_its_type_does_not_hold_is_refused(values: Any, data_type: str, sizes: Any, message: str) -> None:
    inputs = Inputs()
    refused = inputs.refused(lambda i: i.g.constant(values, desc(data_type, sizes)))
    assert refused.startswith("Graph.constant: ") and message in refused


def test_a_constant_holds_each_number_exactly_or_rounded_once_to_the_nearest() -> None:
    g = dml.Graph(FL.FL_6_4)
    exact = g.constant([2**53 + 1, 2.0, -(2**63)], desc("INT64", (3,)))  # never read through a double
    assert np.frombuffer(constant_data(g, exact), np.int64).tolist() == [2**53 + 1, 2, -(2**63)]
    assert constant_data(g, g.constant([2**64 - 1], desc("UINT64"))) == np.uint64(2**64 - 1).tobytes()
    assert constant_data(g, g.constant([-8, 7], desc("INT4", (2,)))) == bytes([0x78])  # two nibbles, even one low
    assert constant_data(g, g.constant(0.1, desc("FLOAT32"))) == np.float32(0.1).tobytes()
    assert constant_data(g, g.constant(65519, desc("FLOAT16"))) == np.float16(65504).tobytes()  # rounds down
    halves = np.frombuffer(constant_data(g, g.constant([-0.0, math.inf, math.nan], desc("FLOAT16", (3,)))), np.float16)
    assert np.signbit(halves[0]) and halves[1] == np.inf and np.isnan(halves[2])
    # An int rounds once: through a double first, 2^60 + 2^36 + 1 would be 2^60 + 2^36, a tie, then 2^60.
    rounded = g.constant(2**60 + 2**36 + 1, desc("FLOAT32"))
    assert constant_data(g, rounded) == np.float32(2.0**60 + 2.0**37).tobytes()
    # A NumPy array of another type is converted when its values are held.
    assert constant_data(g, g.constant(np.array([3, -4]), desc("INT8", (2,)))) == bytes([3, 0xFC])


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (True, f"values is True; {NUMBERS}"),
        ("1", f"values is '1'; {NUMBERS}"),
        (None, f"values is None; {NUMBERS}"),
        (1j, f"values is 1j; {NUMBERS}"),
        ([1.0, "a"], f"values[1] is 'a'; {NUMBERS}"),
        ([[1.0], [2.0, 3.0]], f"values[0] is [1.0]; {NUMBERS}"),
        (np.array([True, False]), f"values is a NumPy array of bool; {NUMBERS}"),
        (np.array(["1"]), f"values is a NumPy array of <U1; {NUMBERS}"),
        (dml.TensorDataType.FLOAT32, f"values is <TensorDataType.FLOAT32: 1>; {NUMBERS}"),
    ],
    ids=["bool", "text", "none", "complex", "text-in-a-list", "ragged", "bool-array", "text-array", "enum"],
)
def test_a_constant_of_something_else_than_numbers_is_refused(values: Any, message: str) -> None:
    inputs = Inputs()
    assert inputs.refused(lambda i: i.g.constant(values, desc("FLOAT32", (2,)))).startswith(
        f"Graph.constant: {message}"
    )


def test_a_constant_of_another_shape_is_refused_and_a_broadcast_one_taken() -> None:
    inputs = Inputs()
    assert inputs.refused(lambda i: i.g.constant([1, 2, 3], desc("FLOAT32", (2,)))) == (
        "Graph.constant: values has shape (3,); desc has Sizes [2]: give values of that shape, or of one NumPy "
        "broadcasts to it (1 along a dimension, or fewer leading dimensions, repeats the values)"
    )
    row = inputs.g.constant([[1, 2]], desc("INT16", (3, 2)))
    assert np.frombuffer(constant_data(inputs.g, row), np.int16).tolist() == [1, 2] * 3


def test_values_that_desc_s_strides_put_in_one_place_must_be_equal() -> None:
    # Before: the last one written was kept, and the constant read [3, 3, 3].
    inputs = Inputs()
    assert inputs.refused(lambda i: i.g.constant([1, 2, 3], desc("INT32", (3,), (0,)))) == (
        "Graph.constant: values[0] is 1, but desc's Strides [0] put it in the place of another element, 3: elements "
        "that share a place must be equal. Give one value along a dimension of Stride 0 (or Strides that keep the "
        "elements apart)"
    )
    inputs.refused(lambda i: i.g.constant([0.0, -0.0], desc("FLOAT32", (2,), (0,))))  # equal, but not the same bits
    assert constant_data(inputs.g, inputs.g.constant([7, 7, 7], desc("INT32", (3,), (0,)))) == np.int32(7).tobytes()


# --------------------------------------------------------------------------------- operands, scales, zero points
@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda i: i.i8 + 300, f"dml.graph.add: b is 300; the other operand is {INT8_FIX}"),
        (lambda i: 1.5 * i.i8, f"dml.graph.multiply: a is 1.5; the other operand is {INT8_FIX}"),
        (
            lambda i: dml.graph.subtract(i.f16, 1e6),
            f"dml.graph.subtract: b is 1000000.0; the other operand is {FLOAT16_FIX}",
        ),
        (lambda i: dml.graph.divide(i.f32, 1e40), f"dml.graph.divide: b is 1e+40; the other operand is {FLOAT32_FIX}"),
        (
            lambda i: dml.graph.if_(256, i.i8, i.i8),
            "dml.graph.if_: condition is 256; its DataType is UINT8, which holds the integers 0 to 255: give one of "
            "them",
        ),
        (
            lambda i: dml.graph.quantize_linear(i.f16, 1e6),
            f"dml.graph.quantize_linear: scale is 1000000.0; the scale's DataType is {FLOAT16_FIX}",
        ),
        (
            lambda i: dml.graph.dequantize_linear(i.i8, 1e40),
            f"dml.graph.dequantize_linear: scale is 1e+40; the scale's DataType is {FLOAT32_FIX}",
        ),
        (
            lambda i: dml.graph.quantize(i.f16, -1e5),
            f"dml.graph.quantize: scale is -100000.0; the scale's DataType is {FLOAT16_FIX}",
        ),
        (
            # Before: OverflowError, the number read through a float to name a type that holds it.
            lambda i: dml.graph.quantize_linear(i.f32, 0.5, 2**1100),
            f"dml.graph.quantize_linear: zero_point {2**1100} is not a whole number from 0 to 255, as UINT8 holds "
            "them; give a whole number that UINT8 or INT8 holds",
        ),
        (
            lambda i: dml.graph.quantize_linear(i.f32, 0.5, True),
            "dml.graph.quantize_linear: zero_point is True; it must be an expression, a number or a NumPy array of x's "
            "rank (a constant node, from 6_2)",
        ),
    ],
    ids=[
        "add-300",
        "reflected-1.5",
        "1e6-float16",
        "1e40-float32",
        "if",
        "quantize-linear",
        "dequantize-linear",
        "quantize",
        "huge-zero-point",
        "bool-zero-point",
    ],
)
def test_a_number_its_tensor_does_not_hold_is_refused(call: Callable[[Inputs], Any], message: str) -> None:
    assert Inputs().refused(call) == message


def test_quantize_refuses_a_float32_scale_array_for_a_float16_input_in_the_descriptor_s_words() -> None:
    """An array keeps its type, never converted: QUANTIZE's rule on its QuantizationTensors speaks, as it does for
    an expression of the same type (before: the float32 values were rounded to halves without a word)."""
    inputs = Inputs()
    scale = np.full((1, 1, 1, 3), 0.1, np.float32)
    assert inputs.refused(lambda i: dml.graph.quantize(i.f16, scale)) == (
        "QUANTIZE.QuantizationTensors[0].DataType is DML_TENSOR_DATA_TYPE_FLOAT32; it must equal InputTensor.DataType "
        "(DML_TENSOR_DATA_TYPE_FLOAT16)"
    )
    scale_input = inputs.g.input(desc("FLOAT32", (1, 1, 1, 3)))
    with pytest.raises(dml.InvalidArgumentError) as as_expression:
        dml.graph.quantize(inputs.f16, scale_input)
    assert str(as_expression.value).startswith(
        "QUANTIZE.QuantizationTensors[0].DataType is DML_TENSOR_DATA_TYPE_FLOAT32"
    )
    inputs = Inputs()
    assert inputs.refused(lambda i: dml.graph.quantize_linear(i.f16, np.full((1, 1, 1, 3), 0.1, np.float32))) == (
        "ELEMENT_WISE_QUANTIZE_LINEAR.ScaleTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32; with an InputTensor of "
        "DML_TENSOR_DATA_TYPE_FLOAT16 it must be DML_TENSOR_DATA_TYPE_FLOAT16 (an INT32 input takes a FLOAT32 scale, "
        "any other input a scale of its own type)"
    )
    # Before: a UINT8 zero point array of 200 for an INT8 input was wrapped to -56.
    assert inputs.refused(lambda i: dml.graph.dequantize(i.i8, 0.5, np.full((1, 1, 1, 1), 200, np.uint8))) == (
        "DEQUANTIZE.QuantizationTensors[1].DataType is DML_TENSOR_DATA_TYPE_UINT8; it must equal InputTensor.DataType "
        "(DML_TENSOR_DATA_TYPE_INT8)"
    )
    # What the message asks for: a scale of the input's type (or a Python number, rounded to it).
    assert dml.graph.quantize(inputs.f16, scale.astype(np.float16)).data_type == T.UINT8
    assert inputs.g._nodes[-2].desc.data == np.full(3, 0.1, np.float16).tobytes()
    assert dml.graph.quantize(inputs.f16, 0.1).data_type == T.UINT8
    assert inputs.g._nodes[-2].desc.data == np.float16(0.1).tobytes()


# ------------------------------------------------------------------------------ ScaleBias, bounds, FLOAT fields
SCALE_BIAS = "it must be a dml.ScaleBias(scale=..., bias=...), a (scale, bias) pair of numbers, or None"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda i: dml.graph.identity(i.f32, (1.0,)), f"dml.graph.identity: scale_bias is (1.0,); {SCALE_BIAS}"),
        (
            lambda i: dml.graph.identity(i.f32, (1.0, 2.0, 3.0)),
            f"dml.graph.identity: scale_bias is (1.0, 2.0, 3.0); {SCALE_BIAS}",
        ),
        (
            lambda i: dml.graph.ceil(i.f32, {"Scale": 1.0}),
            f"dml.graph.ceil: scale_bias is {{'Scale': 1.0}}; {SCALE_BIAS}",
        ),
        (
            lambda i: dml.graph.identity(i.f32, (1e40, 0.0)),
            f"dml.graph.identity: scale_bias[0] is 1e+40; DML_SCALE_BIAS.Scale is read as {FLOAT32_FIX}",
        ),
        (
            lambda i: dml.graph.floor(i.f16, scale_bias=dml.ScaleBias(scale=1.0, bias=-1e39)),
            f"dml.graph.floor: scale_bias.bias is -1e+39; DML_SCALE_BIAS.Bias is read as {FLOAT32_FIX}",
        ),
        (lambda i: dml.graph.identity(i.i8, ("2", 1.0)), f"dml.graph.identity: scale_bias[0] is '2'; {NUMBERS}"),
        (lambda i: dml.graph.identity(i.i8, (2.0, True)), f"dml.graph.identity: scale_bias[1] is True; {NUMBERS}"),
        (lambda i: dml.graph.clip1(i.f32, 0, 1, (1.0,)), f"dml.graph.clip1: scale_bias is (1.0,); {SCALE_BIAS}"),
        (lambda i: dml.graph.clip1(i.i8, 300, 2), f"dml.graph.clip1: min is 300; x is {INT8_FIX}"),
        (lambda i: dml.graph.clip1(i.i8, -1, 1.5), f"dml.graph.clip1: max is 1.5; x is {INT8_FIX}"),
        (lambda i: dml.graph.clip1(i.f16, -1e6, 0), f"dml.graph.clip1: min is -1000000.0; x is {FLOAT16_FIX}"),
        (lambda i: dml.graph.clip1(i.f32, "1", 2), f"dml.graph.clip1: min is '1'; {NUMBERS}"),
        (lambda i: dml.graph.clip1(i.f32, None, 2), f"dml.graph.clip1: min is None; {NUMBERS}"),
        (
            lambda i: dml.graph.clip_grad1(i.i64, i.i64, 0, 2**63),
            "dml.graph.clip_grad1: max is 9223372036854775808; x is INT64, which holds the integers "
            "-9223372036854775808 to 9223372036854775807: give one of them",
        ),
        (lambda i: dml.graph.clip(i.f32, True, 1.0), f"dml.graph.clip: min is True; {NUMBERS}"),
        (
            lambda i: dml.graph.clip(i.i8, -1e40, 1.0),
            f"dml.graph.clip: min is -1e+40; ELEMENT_WISE_CLIP.Min is read as {FLOAT32_FIX}",
        ),
        (
            lambda i: dml.graph.clip_grad(i.f32, i.f32, 0.0, 1e39),
            f"dml.graph.clip_grad: max is 1e+39; ELEMENT_WISE_CLIP_GRAD.Max is read as {FLOAT32_FIX}",
        ),
        (
            lambda i: dml.graph.activation_elu(i.f32, alpha="1.5"),
            f"dml.graph.activation_elu: alpha is '1.5'; {NUMBERS}",
        ),
        (
            lambda i: dml.graph.activation_linear(i.f32, 2**200, 0.0),
            "dml.graph.activation_linear: alpha is 1606938044258990275541962092341162602522202993782792835301376; "
            f"ACTIVATION_LINEAR.Alpha is read as {FLOAT32_FIX}",
        ),
    ],
    ids=[
        "1-tuple",
        "3-tuple",
        "dict",
        "scale-1e40",
        "bias-object",
        "text",
        "bool",
        "clip1-1-tuple",
        "clip1-300",
        "clip1-1.5",
        "clip1-float16",
        "clip1-text",
        "clip1-none",
        "clip-grad1",
        "clip-bool",
        "clip-1e40",
        "clip-grad",
        "alpha-text",
        "alpha-huge-int",
    ],
)
def test_a_scale_bias_bound_or_float_field_not_held_is_refused(call: Callable[[Inputs], Any], message: str) -> None:
    assert Inputs().refused(call) == message


def test_scale_bias_bounds_and_float_fields_keep_the_values_given() -> None:
    inputs = Inputs()

    def last() -> Any:
        return inputs.g._nodes[-1].desc.op

    dml.graph.identity(inputs.f32, [2, 0.1])  # a list pair, as a tuple
    assert last().scale_bias == dml.ScaleBias(scale=2.0, bias=0.1)  # a float kept as given: the kernel rounds it
    dml.graph.identity(inputs.f32, (2**60 + 2**36 + 1, np.float16(0.5)))  # an int as its nearest float32
    assert last().scale_bias == dml.ScaleBias(scale=2.0**60 + 2.0**37, bias=0.5)
    dml.graph.clip1(inputs.i64, -(2**53) - 1, 2**53 + 1)  # exact beyond 2^53
    assert (last().min.int64, last().max.int64) == (-(2**53) - 1, 2**53 + 1)
    dml.graph.clip1(inputs.i8, -128.0, np.int16(127))  # whole numbers INT8 holds
    assert (last().min.int8, last().max.int8) == (-128, 127)
    dml.graph.clip1(inputs.f16, -math.inf, 65519.0)  # rounded to the nearest half, 65504
    assert last().max.uint16 == int(np.float16(65504).view(np.uint16)) and last().min.uint16 == 0xFC00
    dml.graph.clip(inputs.i8, -7.9, 2.5e9)  # FLOAT bounds of an integer input, as CLIP takes them
    assert (last().min, last().max) == (-7.9, 2.5e9)


def test_a_4_bit_clip1_input_is_refused_by_the_operator_s_support_table() -> None:
    # Before: KeyError from DML_SCALAR_UNION, which has no 4-bit member.
    g = dml.Graph(FL.FL_6_4)
    x = g.input(desc("INT4", (2, 2)))
    with pytest.raises(
        dml.InvalidArgumentError, match=r"^ELEMENT_WISE_CLIP1.InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT4"
    ):
        dml.graph.clip1(x, -8, 7)
    assert repr(g) == "<dmlpy.Graph of 1 inputs and 0 nodes, at DML_FEATURE_LEVEL_6_4>"
