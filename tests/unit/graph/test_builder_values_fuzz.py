"""The graph builder's value-taking calls fuzzed (hypothesis), without a device: constants of every data type,
number operands of the binary functions and of Python's operators, scales and zero points, ScaleBias, CLIP1's typed
bounds and CLIP's FLOAT ones, given numbers of every kind (Python ints past 64 bits, floats of every width, NumPy
numbers and arrays, nested lists) and things that are not numbers. Each call either holds exactly the values an
independent reference computes (integers: Python's exact comparisons; floats: rounded to the nearest with
fractions.Fraction, ties to even, refused where that is an infinity from a finite number), read back from the
constant node's bytes or the node's fields, or raises a DmlError and leaves the graph as it was.
dmlpy/graph/values.py holds the rule; test_builder_values.py its messages."""

from __future__ import annotations

import enum
import math
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dmlpy as dml
from dmlpy.dtypes import DATA_TYPES

T = dml.TensorDataType
SIZES = (1, 2)
FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

FLOATS = {T.FLOAT16: (11, -14, 15), T.FLOAT32: (24, -126, 127), T.FLOAT64: (53, -1022, 1023)}
"""Precision (bits, the implicit one included) and the least and greatest normal exponents."""
INTEGERS = {
    T.INT4: (4, True),
    T.UINT4: (4, False),
    T.INT8: (8, True),
    T.UINT8: (8, False),
    T.INT16: (16, True),
    T.UINT16: (16, False),
    T.INT32: (32, True),
    T.UINT32: (32, False),
    T.INT64: (64, True),
    T.UINT64: (64, False),
}
ARITHMETIC_TYPES = [t for t in (*FLOATS, *INTEGERS) if t not in (T.FLOAT64, T.INT4, T.UINT4)]
"""What ADD, SUBTRACT, MULTIPLY, DIVIDE and CLIP1 take at DML_FEATURE_LEVEL_6_4."""
NUMPY_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
NUMPY_TYPES += [np.float16, np.float32, np.float64]

EDGES = [0, -0.0, 0.5, -1.5, 7, 8, -8, -9, 15, 16, 127, 128, -128, -129, 255, 256, 65504.0, 65519.0, 65520.0]
EDGES += [2**31 - 1, 2**31, -(2**31) - 1, 2**32, 2**53 + 1, 2**60 + 2**36 + 1, 2**63 - 1, 2**63, -(2**63) - 1]
EDGES += [2**64 - 1, 2**64, 2**200, 2**1100, 3.4028234663852886e38, 3.4028235677973366e38, 1e-45, 1e-300, 1e308]
EDGES += [math.nan, math.inf, -math.inf, 2.0**24 + 1, 1 / 3]
PYTHON_NUMBERS = st.one_of(
    st.sampled_from(EDGES),
    st.integers(-(2**70), 2**70),
    st.integers(-300, 300),
    st.floats(width=64),
    st.floats(width=32),
    st.floats(width=16),
)
NUMPY_NUMBERS = st.sampled_from(NUMPY_TYPES).flatmap(lambda t: hnp.from_dtype(np.dtype(t)))
NOT_NUMBERS = st.sampled_from(
    [True, False, np.bool_(True), None, "1", "", b"1", 1j, np.complex64(1), object(), T.FLOAT32, [1, [2]]]
)
VALUES = st.one_of(PYTHON_NUMBERS, PYTHON_NUMBERS, NUMPY_NUMBERS, NOT_NUMBERS)


# ------------------------------------------------------------------------------------------------- the reference
def is_number(value: Any) -> bool:
    """An int or a float, Python's or NumPy's; not a bool, nor an enum's member (an IntEnum is an int)."""
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool | enum.Enum)


def reference(value: Any, data_type: T) -> int | float | None:
    """The value ``data_type`` holds for the number ``value``; None where it holds none."""
    number = value.item() if isinstance(value, np.generic) else value
    if data_type in INTEGERS:
        bits, signed = INTEGERS[data_type]
        low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
        if isinstance(number, float) and not (math.isfinite(number) and number.is_integer()):
            return None
        return int(number) if low <= int(number) <= high else None
    if isinstance(number, float) and not math.isfinite(number):
        return number
    precision, least, greatest = FLOATS[data_type]
    exact = Fraction(number)
    if exact == 0:
        return float(number)  # a float zero keeps its sign
    magnitude = abs(exact)
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if magnitude < Fraction(2) ** exponent:
        exponent -= 1
    quantum = Fraction(2) ** (max(exponent, least) - precision + 1)
    rounded = round(magnitude / quantum) * quantum  # halves to even
    if rounded >= Fraction(2) ** (greatest + 1):
        return None  # a finite number that rounding makes infinite
    return float(rounded) if exact > 0 else -float(rounded)


def same(got: Any, want: int | float) -> bool:
    if isinstance(want, float):
        got = float(got)
        return (math.isnan(got) and math.isnan(want)) or (
            got == want and math.copysign(1, got) == math.copysign(1, want)
        )
    return bool(got == want)


def decoded(data: bytes, data_type: T, count: int) -> list[Any]:
    """The first ``count`` elements of a constant node's bytes, read independently of dmlpy's packing."""
    if data_type in (T.INT4, T.UINT4):
        nibbles = [(byte >> shift) & 0xF for byte in data for shift in (0, 4)][:count]
        return [n - 16 if data_type == T.INT4 and n >= 8 else n for n in nibbles]
    return np.frombuffer(data, DATA_TYPES[data_type].numpy)[:count].tolist()


def tensor(data_type: T) -> dml.BufferTensorDesc:
    return dml.BufferTensorDesc(data_type=data_type, sizes=SIZES)


class Snapshot:
    def __init__(self, g: dml.Graph) -> None:
        self.g = g
        self.before = self.state()

    def state(self) -> tuple[str, list[Any], int]:
        return repr(self.g), [node.desc for node in self.g._nodes], len(self.g._inputs)

    def unchanged(self) -> bool:
        return self.state() == self.before


def attempt(g: dml.Graph, call: Any) -> Any:
    """``call()``, or None where it raised a DmlError, after checking the graph was left as it was."""
    snapshot = Snapshot(g)
    try:
        return call()
    except dml.DmlError:
        assert snapshot.unchanged(), "a refused call changed the graph"
        return None


# ------------------------------------------------------------------------------------------------------- fuzzes
CONSTANT_VALUES = st.one_of(
    VALUES.map(lambda value: (value, [value])),
    st.lists(VALUES, min_size=1, max_size=4).map(lambda values: (values, values)),
    st.sampled_from(NUMPY_TYPES).flatmap(lambda t: hnp.arrays(t, st.integers(1, 4))).map(lambda a: (a, a.tolist())),
    st.sampled_from([np.array([True]), np.array(["1"]), np.array([1j])]).map(lambda a: (a, [object()])),
)


@FUZZ
@given(st.sampled_from([*FLOATS, *INTEGERS]), CONSTANT_VALUES)
def test_a_constant_holds_exactly_what_the_reference_holds_or_is_refused(data_type: T, given_values: Any) -> None:
    values, elements = given_values
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    wanted = [reference(e, data_type) if is_number(e) else None for e in elements]
    sizes = (len(elements),)
    made = attempt(g, lambda: g.constant(values, dml.BufferTensorDesc(data_type=data_type, sizes=sizes)))
    assert (made is None) == (None in wanted), (values, wanted)
    if made is not None:
        got = decoded(g._nodes[made.node].desc.data, data_type, len(elements))
        assert all(same(x, w) for x, w in zip(got, wanted, strict=True)), (values, got, wanted)  # type: ignore[arg-type]


OPERAND_CALLS = {
    "add": lambda x, v: dml.graph.add(x, v),
    "v - x": lambda x, v: v - x,
    "x * v": lambda x, v: x * v,
    "v / x": lambda x, v: v / x,
    "multiply(v, x)": lambda x, v: dml.graph.multiply(v, x),
}


def number_operand(data_type: T, value: Any, variant: str) -> tuple[Any, int | float | None]:
    """(the constant node's one value, or None where refused) for ``value`` as an operand of a ``data_type`` input,
    given to the ``variant`` of OPERAND_CALLS, and what the reference holds."""
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x = g.input(tensor(data_type))
    made = attempt(g, lambda: OPERAND_CALLS[variant](x, value))
    got = None if made is None else decoded(g._nodes[-2].desc.data, data_type, 1)[0]
    return got, reference(value, data_type) if is_number(value) else None


def scale_or_zero_point(data_type: T, value: Any, variant: str) -> tuple[Any, int | float | None]:
    """A scale of a FLOAT input (QuantizeLinear, FL 6_3's QUANTIZE) or of DequantizeLinear's output, or a Python
    number zero point of QuantizeLinear's output type. A NumPy integer has a type of its own where it decides the
    output's (a zero point; DequantizeLinear's scale, whose integer output is refused)."""
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    zero_point = value is not None and not isinstance(value, np.generic)  # None is no zero point: no value to hold
    if data_type in (T.UINT8, T.INT8) and zero_point:
        x = g.input(tensor(T.FLOAT32))
        made = attempt(g, lambda: dml.graph.quantize_linear(x, 0.5, value, dtype=data_type))
    elif data_type == T.FLOAT16:
        x = g.input(tensor(T.FLOAT16))
        made = attempt(g, lambda: dml.graph.quantize(x, value))
    else:
        data_type = T.FLOAT32
        q = g.input(tensor(T.INT8))
        made = attempt(g, lambda: dml.graph.dequantize_linear(q, value))
        if isinstance(value, np.integer):
            return made, None
    got = None if made is None else decoded(g._nodes[-2].desc.data, data_type, 1)[0]
    return got, reference(value, data_type) if is_number(value) else None


def c_float(value: Any) -> int | float | None:
    """A C FLOAT field's value: a float as given, an int as its nearest float32; None where FLOAT32 holds neither."""
    if not is_number(value) or reference(value, T.FLOAT32) is None:
        return None
    return float(value) if isinstance(value, float | np.floating) else reference(value, T.FLOAT32)


def scale_bias(data_type: T, value: Any, variant: str) -> tuple[Any, int | float | None]:
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x = g.input(tensor(T.FLOAT32))
    made = attempt(g, lambda: dml.graph.identity(x, (value, 0.25)))
    return None if made is None else g._nodes[-1].desc.op.scale_bias.scale, c_float(value)


def clip_bounds(data_type: T, value: Any, variant: str) -> tuple[Any, int | float | None]:
    """CLIP1's Min of x's type, read back as MinMaxDataType reads it (CLIP's FLOAT Min for FLOAT64, which CLIP1's
    table leaves out)."""
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    if data_type == T.FLOAT64:
        x = g.input(tensor(T.INT16))
        made = attempt(g, lambda: dml.graph.clip(x, value, 1.0))
        return None if made is None else g._nodes[-1].desc.op.min, c_float(value)
    x = g.input(tensor(data_type))
    made = attempt(g, lambda: dml.graph.clip1(x, value, 0))
    got = None if made is None else g._nodes[-1].desc.op.min.read_as(data_type, "Min")
    return got, reference(value, data_type) if is_number(value) else None


CALLS = [number_operand, scale_or_zero_point, scale_bias, clip_bounds]


@FUZZ
@given(
    st.sampled_from(CALLS),
    st.sampled_from([*ARITHMETIC_TYPES, T.FLOAT64]),
    VALUES,
    st.sampled_from(sorted(OPERAND_CALLS)),
)
def test_a_builder_value_is_held_exactly_or_refused(call: Any, data_type: T, value: Any, variant: str) -> None:
    if call is number_operand and data_type == T.FLOAT64:
        data_type = T.FLOAT32  # no arithmetic operator takes FLOAT64
    got, want = call(data_type, value, variant)
    assert (got is None) == (want is None), (call.__name__, data_type, value, got, want)
    assert want is None or same(got, want), (call.__name__, data_type, value, got, want)


def test_the_reference_itself() -> None:
    """The reference's roundings where a double on the way would differ, and its edges."""
    assert reference(2**60 + 2**36 + 1, T.FLOAT32) == 2.0**60 + 2.0**37
    assert reference(65519.99, T.FLOAT16) == 65504.0 and reference(65520.0, T.FLOAT16) is None
    assert reference(3.4028235677973366e38, T.FLOAT32) is None and reference(-(2**63) - 1, T.INT64) is None
    assert reference(2**64 - 1, T.UINT64) == 2**64 - 1 and reference(0.1, T.FLOAT32) == float(np.float32(0.1))
    assert same(reference(-1e-300, T.FLOAT32), -0.0) and not same(0.0, -0.0)  # underflow keeps the sign
    assert reference(2.5, T.INT8) is None and reference(-8.0, T.INT4) == -8 and reference(math.nan, T.UINT8) is None
