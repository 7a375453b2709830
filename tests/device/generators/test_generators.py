"""The generators run: FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX and DIAGONAL_MATRIX1 against NumPy
(tests/device/generators/cases.py), bit for bit, for every data type of their tables, packed and strided at a byte
offset, alone and as graph nodes; nothing outside their outputs is written. RANDOM_GENERATOR stays validated only."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.generators.cases import (
    CASES,
    GeneratorCase,
    band,
    constant_case,
    diagonal1_case,
    diagonal_case,
    sequence_case,
    sequence_reference,
    table_types,
    tensor,
)
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
OPERATORS = {desc_class.OPERATOR_TYPE.name: desc_class for desc_class in dml.ops.OPERATORS.values()}
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
WRAPPING_SEQUENCES = [(T.UINT8, 3, -2), (T.INT8, -128, -1), (T.UINT16, 65535, 1), (T.INT32, INT_MAX, 7),
                      (T.INT64, -(2**63), -1), (T.UINT64, 2**64 - 1, 2**63 + 1)]  # fmt: skip
"""(type, ValueStart, ValueDelta): the page's UINT8 example, and each width's wrap at its ends."""
MEMBER_CONSTANTS = [(T.FLOAT32, -0.0), (T.FLOAT64, -0.0), (T.FLOAT64, 0.1), (T.FLOAT16, 65519.0), (T.INT8, -128),
                    (T.UINT64, 2**64 - 1)]  # fmt: skip
DIAGONAL_VALUES = [(T.INT8, 1000.0), (T.INT8, -3.99), (T.UINT8, -3.7), (T.UINT8, float("nan")), (T.INT64, -1e30),
                   (T.UINT32, 4294967295.9), (T.FLOAT16, 1e6), (T.FLOAT16, 0.1), (T.FLOAT64, 0.1)]  # fmt: skip


def _check(device: Any, case: GeneratorCase) -> None:
    case.desc.validate_on(device.feature_level)
    got = run_structured(device, case.desc, case.inputs, offsets=case.offsets)
    assert got.keys() == case.expected.keys()
    for slot, expected in case.expected.items():
        bits = f"u{expected.dtype.itemsize}"
        np.testing.assert_array_equal(got[slot].view(bits), expected.view(bits), err_msg=slot)


@pytest.mark.one_profile
@pytest.mark.parametrize(
    ("name", "data_type"),
    [(name, data_type) for name in CASES for data_type in table_types(OPERATORS[name])],
    ids=lambda value: getattr(value, "name", value),
)
def test_every_type_of_the_table(device: Any, name: str, data_type: Any) -> None:
    _check(device, CASES[name](data_type, False))


@pytest.mark.parametrize("name", list(CASES))
def test_strided_outputs_and_offsets(device: Any, name: str) -> None:
    """Each operator's case with a strided output at a byte offset (DIAGONAL_MATRIX1's input strided too), under
    both launch profiles."""
    _check(device, CASES[name](T.FLOAT32, True))


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16])
def test_a_sequence_begins_with_start_bits_and_rounds_once(device: Any, data_type: Any) -> None:
    """Element 0 is ValueStart's bits (-0 stays -0); the others start + i * delta rounded once from the exact value
    (FLOAT16: through float), here 1/3 steps over 120 elements, whose running sum would drift."""
    _check(device, sequence_case(data_type, True, start=-0.0, delta=1 / 3))
    case = sequence_case(data_type, False, start=-0.0, delta=float("nan"))
    got = run_structured(device, case.desc, {})["output_tensor"].reshape(-1)
    assert np.signbit(got[0]) and got[0] == 0 and np.isnan(got[1:]).all()


@pytest.mark.one_profile
@pytest.mark.parametrize(
    ("data_type", "start", "delta"),
    WRAPPING_SEQUENCES,
)
def test_an_integer_sequence_wraps_modulo_2_to_the_width(device: Any, data_type: Any, start: int, delta: int) -> None:
    """The page's UINT8 example (ValueDelta -2) and each width's wrap at both ends, against Python's integers."""
    _check(device, sequence_case(data_type, False, start=start, delta=delta))


def test_the_pages_uint8_example(device: Any) -> None:
    """FILL_VALUE_SEQUENCE's Example 2: UINT8 { 1, 1, 2, 4 }, ValueStart 10, ValueDelta -2 (254): 10, 8, ..., 252."""
    desc = dml.FillValueSequenceOperatorDesc(
        output_tensor=tensor(T.UINT8, (1, 1, 2, 4)),
        value_data_type=T.UINT8,
        value_start=dml.ScalarUnion(uint8=10),
        value_delta=dml.ScalarUnion(uint8=254),
    )
    got = run_structured(device, desc, {})["output_tensor"]
    assert got.reshape(-1).tolist() == [10, 8, 6, 4, 2, 0, 254, 252]


@pytest.mark.one_profile
@pytest.mark.parametrize(
    ("data_type", "value"),
    MEMBER_CONSTANTS,
)
def test_a_constant_from_its_member(device: Any, data_type: Any, value: float) -> None:
    """Value in ValueDataType's member (ScalarUnion.of), not Bytes: -0 keeps its sign, FLOAT64 its 53 bits."""
    case = constant_case(data_type, False)
    desc = case.desc.model_copy(update={"value": dml.ScalarUnion.of(value, data_type)})
    got = run_structured(device, desc, {})["output_tensor"]
    dtype = got.dtype
    expected = np.full(got.shape, np.array(value).astype(dtype))
    np.testing.assert_array_equal(got.view(f"u{dtype.itemsize}"), expected.view(f"u{dtype.itemsize}"))


@pytest.mark.one_profile
@pytest.mark.parametrize("offset", [-5, -3, -1, 0, 2, 5, 6, INT_MAX, INT_MIN])
def test_every_diagonal_offset(device: Any, offset: int) -> None:
    """np.eye(4, 6, k=Offset) in each matrix; beyond the matrix (6 and more, -4 and less) all zeros."""
    _check(device, diagonal_case(T.INT32, False, offset=offset, value=-7.9))


@pytest.mark.one_profile
@pytest.mark.parametrize(
    ("data_type", "value"),
    DIAGONAL_VALUES,
)
def test_the_diagonal_value_by_paddings_rule(device: Any, data_type: Any, value: float) -> None:
    """DIAGONAL_MATRIX's FLOAT Value as PADDING's PaddingValue: integers truncated toward zero and saturated, NaN 0;
    FLOAT16 rounded to nearest even (infinite beyond its range); FLOAT64 the value itself."""
    _check(device, diagonal_case(data_type, False, offset=0, value=value))


@pytest.mark.one_profile
@pytest.mark.parametrize(
    ("begin", "end"),
    [(0, 1), (-1, 2), (2, -1), (3, 3), (INT_MIN, 1), (1, INT_MAX), (INT_MIN, INT_MAX), (INT_MAX, INT_MIN)],
)
@pytest.mark.parametrize("given", [True, False], ids=["input", "no-input"])
def test_the_band_rule(device: Any, begin: int, end: int, given: bool) -> None:
    """DIAGONAL_MATRIX1's XOR rule: a band, its inverse (begin > end), none (begin == end), a triangle, all."""
    _check(device, diagonal1_case(T.UINT16, given, begin=begin, end=end, given=given))


def test_the_band_reference_is_the_pages_examples() -> None:
    """The reference's rule against DIAGONAL_MATRIX1's page's own pictures: the diagonal (0, 1), and the strip
    [-1, 2) of a 3 x 4 matrix, whose inverse (2, -1) fills the rest."""
    assert band(3, 3, 0, 1).tolist() == np.eye(3, dtype=bool).tolist()
    strip = [[1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 1]]
    assert band(3, 4, -1, 2).astype(int).tolist() == strip
    assert (band(3, 4, 2, -1) == ~band(3, 4, -1, 2)).all()


def _masked_node(g: Any, source: Any) -> Any:
    """A DIAGONAL_MATRIX1 node over ``source`` (3 x 4 FLOAT32): -1 off the band [-1, 1], ``source`` on it."""
    f32 = T.FLOAT32
    desc = dml.DiagonalMatrix1OperatorDesc(
        input_tensor=tensor(f32, (3, 4)),
        output_tensor=tensor(f32, (3, 4)),
        value_data_type=f32,
        value=dml.ScalarUnion.of(-1.0, f32),
        diagonal_fill_begin=2,
        diagonal_fill_end=-1,
    )
    return g.add_operator(desc, [source])


def test_diagonal_matrix1_as_a_graph_node_between_element_wise_nodes(device: Any) -> None:
    """x -> ADD -> DIAGONAL_MATRIX1 (its InputTensor) -> ABS."""
    x = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    g = dml.Graph(device)
    gx = g.input(x.shape, T.FLOAT32)
    result = dml.graph.abs(_masked_node(g, gx + gx))
    got = np.asarray(g.compile([result])(x))
    np.testing.assert_array_equal(got, np.abs(np.where(band(3, 4, 2, -1), np.float32(-1), x + x)))


def test_generator_nodes_without_inputs_in_a_graph(device: Any) -> None:
    """FILL_VALUE_SEQUENCE and DIAGONAL_MATRIX nodes (no inputs) feeding element-wise nodes with a graph input,
    then DIAGONAL_MATRIX1."""
    f32 = T.FLOAT32
    x = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    g = dml.Graph(device)
    gx = g.input(x.shape, f32)
    ramp = g.add_operator(sequence_case(f32, False).desc.model_copy(update={"output_tensor": tensor(f32, (3, 4))}), [])
    eye = g.add_operator(dml.DiagonalMatrixOperatorDesc(output_tensor=tensor(f32, (3, 4)), offset=1, value=2.0), [])
    result = dml.graph.abs(_masked_node(g, gx * eye + ramp))
    got = np.asarray(g.compile([result])(x))
    ramp_ref = sequence_reference(f32, np.float32(0.1), np.float32(-0.3), 12).reshape(3, 4)
    mixed_ref = x * np.eye(3, 4, k=1, dtype=np.float32) * 2 + ramp_ref
    np.testing.assert_array_equal(got, np.abs(np.where(band(3, 4, 2, -1), np.float32(-1), mixed_ref)))
