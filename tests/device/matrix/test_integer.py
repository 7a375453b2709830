"""MATRIX_MULTIPLY_INTEGER, QUANTIZED_LINEAR_MATRIX_MULTIPLY and MATRIX_MULTIPLY_INTEGER_TO_FLOAT run (opencl/gemm.cl)
against NumPy (cases.integer_case): every pair of types of their support tables at their highest level, zero points
and scales one value or one per row of A and column of B (and of the output), left out; integer results exact,
MATRIX_MULTIPLY_INTEGER_TO_FLOAT within its bound; strided, and as a graph node."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.matrix.cases import integer_case, past_bound
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
BYTES = [T.INT8, T.UINT8]
TO_FLOAT_TYPES = sorted(
    dml.MatrixMultiplyIntegerToFloatOperatorDesc.SUPPORT.rows[-1].data_types["ATensor"], key=lambda t: t.value
)


def _run_and_check(device: Any, case: Any) -> None:
    case.desc.validate_on(device.feature_level)
    got = run_structured(device, case.desc, case.inputs)["output_tensor"]
    wrong = past_bound(got, case.expected, case.allowed)
    assert not wrong.size, f"past the bound at elements {wrong[:8].tolist()} ({wrong.size} in all)"


@pytest.mark.one_profile
@pytest.mark.parametrize("a_type", BYTES, ids=lambda t: t.name)
@pytest.mark.parametrize("b_type", BYTES, ids=lambda t: t.name)
@pytest.mark.parametrize("per", ["vectors", "one"])
def test_matrix_multiply_integer(device: Any, a_type: Any, b_type: Any, per: str) -> None:
    _run_and_check(device, integer_case("MATRIX_MULTIPLY_INTEGER", a_type, b_type, T.INT32, per))


@pytest.mark.one_profile
@pytest.mark.parametrize("a_type", BYTES, ids=lambda t: t.name)
@pytest.mark.parametrize("b_type", BYTES, ids=lambda t: t.name)
@pytest.mark.parametrize("per", ["vectors", "one"])
def test_quantized_linear_matrix_multiply(device: Any, a_type: Any, b_type: Any, per: str) -> None:
    out_type = BYTES[(a_type == T.UINT8) ^ (per == "one")]
    case = integer_case("QUANTIZED_LINEAR_MATRIX_MULTIPLY", a_type, b_type, out_type, per)
    _run_and_check(device, case)


@pytest.mark.one_profile
@pytest.mark.parametrize("a_type", TO_FLOAT_TYPES, ids=lambda t: t.name)
def test_matrix_multiply_integer_to_float(device: Any, a_type: Any) -> None:
    out_type = T.FLOAT16 if a_type in BYTES else T.FLOAT32  # wider sums pass FLOAT16's range
    per = "vectors" if a_type.value % 3 else "one"
    _run_and_check(device, integer_case("MATRIX_MULTIPLY_INTEGER_TO_FLOAT", a_type, a_type, out_type, per))


@pytest.mark.parametrize("operator", ["MATRIX_MULTIPLY_INTEGER", "QUANTIZED_LINEAR_MATRIX_MULTIPLY"])
def test_without_zero_points(device: Any, operator: str) -> None:
    _run_and_check(
        device,
        integer_case(
            operator,
            T.UINT8,
            T.INT8,
            T.INT32 if operator == "MATRIX_MULTIPLY_INTEGER" else T.UINT8,
            "vectors",
            zero_points=False,
        ),
    )


def test_to_float_without_zero_points_or_bias(device: Any) -> None:
    case = integer_case(
        "MATRIX_MULTIPLY_INTEGER_TO_FLOAT", T.INT8, T.INT8, T.FLOAT32, "one", zero_points=False, bias=False
    )
    _run_and_check(device, case)


def test_matrix_multiply_integer_as_a_graph_node(device: Any) -> None:
    """A MATRIX_MULTIPLY_INTEGER node whose INT32 result feeds an element-wise node."""
    case = integer_case("MATRIX_MULTIPLY_INTEGER", T.INT8, T.UINT8, T.INT32, "one", zero_points=False)
    a, b = case.inputs["a_tensor"], case.inputs["b_tensor"]
    g = dml.Graph(device)
    ga, gb = g.input(a.shape, T.INT8), g.input(b.shape, T.UINT8)
    product = g.add_operator(case.desc, [ga, None, gb, None])  # by slot: the zero points null
    got = np.asarray(g.compile([product + product])(a, b))
    assert np.array_equal(got, 2 * case.expected.astype(np.int32))


@pytest.mark.parametrize("operator", ["QUANTIZED_LINEAR_MATRIX_MULTIPLY", "MATRIX_MULTIPLY_INTEGER_TO_FLOAT"])
def test_strided_matrices(device: Any, operator: str) -> None:
    gaps = {"a_tensor": 3, "b_tensor": 1, "bias_tensor": 2, "output_tensor": 5}
    out_type = T.INT8 if operator == "QUANTIZED_LINEAR_MATRIX_MULTIPLY" else T.FLOAT32
    _run_and_check(device, integer_case(operator, T.INT8, T.INT8, out_type, "vectors", gaps=gaps))
