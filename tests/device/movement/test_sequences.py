"""REVERSE_SUBSEQUENCES (opencl/reverse_subsequences.cl) and NONZERO_COORDINATES (opencl/nonzero_coordinates.cl) run,
bit for bit against NumPy and onnx.reference (sequence_cases.py): every data type of their tables, lengths of both
types, 0, 1 and past the axis, axes from the first to the last, 1 to 8 dimensions, strided tensors at byte offsets
under both launch profiles, and as graph nodes; nothing outside their outputs is written."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.movement.cases import MovementCase, table_types, tensor
from tests.device.movement.sequence_cases import (
    count_rows,
    nonzero_case,
    reverse_case,
    reverse_sequence_case,
    reversed_subsequences,
)
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
REVERSE, NONZERO = dml.ReverseSubsequencesOperatorDesc, dml.NonzeroCoordinatesOperatorDesc


def _check(device: Any, case: MovementCase) -> None:
    case.desc.validate_on(device.feature_level)
    got = run_structured(device, case.desc, case.inputs, offsets=case.offsets)
    if "output_count_tensor" in got:
        got = count_rows(got)
    assert got.keys() == case.expected.keys()
    for slot, expected in case.expected.items():
        bits = f"u{expected.dtype.itemsize}"
        np.testing.assert_array_equal(got[slot].view(bits), expected.view(bits), err_msg=slot)


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", table_types(REVERSE), ids=lambda t: t.name)
def test_reverse_every_type_of_the_table(device: Any, data_type: Any) -> None:
    lengths_type = T.UINT64 if int(data_type) % 2 else T.UINT32
    _check(device, reverse_case(data_type, (2, 3, 5, 4), 2, lengths_type))


@pytest.mark.parametrize(
    ("sizes", "axis"),
    [((7,), 0), ((3, 5, 2, 4), 0), ((3, 5, 2, 4), 3), ((2, 1, 3, 2, 4, 1, 2, 3), 4)],
    ids=["1 dimension", "axis 0", "last axis", "8 dimensions"],
)
def test_reverse_strided_every_axis_under_both_profiles(device: Any, sizes: tuple[int, ...], axis: int) -> None:
    _check(device, reverse_case(T.FLOAT32, sizes, axis, T.UINT64, strided=True))


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", [T.FLOAT16, T.INT8], ids=lambda t: t.name)
def test_reverse_is_onnx_reverse_sequence(device: Any, data_type: Any) -> None:
    _check(device, reverse_sequence_case(data_type))


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", table_types(NONZERO), ids=lambda t: t.name)
def test_nonzero_every_type_of_the_table(device: Any, data_type: Any) -> None:
    _check(device, nonzero_case(data_type, (1, 3, 4, 5), 3))


@pytest.mark.parametrize(
    ("sizes", "columns"),
    [((9,), 1), ((2, 3, 4), 3), ((1, 1, 3, 4), 2), ((2, 1, 3, 1, 2, 1, 2, 2), 8)],
    ids=["1 dimension", "3 dimensions", "the effective rank", "8 dimensions"],
)
def test_nonzero_strided_under_both_profiles(device: Any, sizes: tuple[int, ...], columns: int) -> None:
    _check(device, nonzero_case(T.FLOAT32, sizes, columns, strided=True))


def test_nonzero_of_all_zeros_counts_none(device: Any) -> None:
    desc = nonzero_case(T.FLOAT32, (1, 1, 2, 3), 2).desc
    got = run_structured(device, desc, {"input_tensor": np.array([0.0, -0.0] * 3, np.float32).reshape(1, 1, 2, 3)})
    assert got["output_count_tensor"].reshape(-1).tolist() == [0]


def test_in_a_graph_between_element_wise_nodes(device: Any) -> None:
    """x -> ADD -> REVERSE_SUBSEQUENCES (lengths a graph input) -> SUBTRACT 1 -> NONZERO_COORDINATES: the count
    and the coordinates as graph outputs."""
    sizes, f32, u32 = (2, 5, 3, 1), T.FLOAT32, T.UINT32
    x = np.random.default_rng(9).integers(0, 3, size=sizes).astype(np.float32)
    lengths = np.array([[[[2], [5], [0]]], [[[9], [1], [3]]]], np.uint32)
    g = dml.Graph(device)
    gx, glengths = g.input(sizes, f32), g.input(lengths.shape, u32)
    reverse = REVERSE(
        input_tensor=tensor(f32, sizes), sequence_lengths_tensor=tensor(u32, lengths.shape),
        output_tensor=tensor(f32, sizes), axis=1,
    )  # fmt: skip
    reversed_ = g.add_operator(reverse, [gx + gx, glengths])
    nonzero = NONZERO(
        input_tensor=tensor(f32, sizes), output_count_tensor=tensor(u32, (1, 1, 1, 1)),
        output_coordinates_tensor=tensor(u32, (1, 1, 30, 4)),
    )  # fmt: skip
    count, coordinates = g.add_operator_outputs(nonzero, [reversed_ - 2])
    got_count, got_coordinates = g.compile([count, coordinates])(x, lengths)
    shifted = reversed_subsequences(x + x, lengths, 1) - 2
    found = np.argwhere(shifted)
    assert np.asarray(got_count).reshape(-1).tolist() == [len(found)]
    np.testing.assert_array_equal(np.asarray(got_coordinates).reshape(30, 4)[: len(found)], found)
