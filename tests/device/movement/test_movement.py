"""The movement operators run: SLICE, SLICE1 (forwards and backwards), JOIN, SPLIT, PADDING and PADDING1 (every
DML_PADDING_MODE), TILE, SPACE_TO_DEPTH(1) and DEPTH_TO_SPACE(1), bit for bit against NumPy and onnx.reference
(tests/device/movement/cases.py), for every data type of their tables, packed and strided, at byte offsets, alone and
as graph nodes between element-wise ones; nothing outside their outputs is written."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.movement.cases import CASES, PAD_MODES, MovementCase, padding_case, random_bits, table_types, tensor
from tests.helpers.structured_runs import run_structured

OPERATORS = {desc_class.OPERATOR_TYPE.name: desc_class for desc_class in dml.ops.OPERATORS.values()}


def _check(device: Any, case: MovementCase) -> None:
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
def test_strided_tensors_and_offsets(device: Any, name: str) -> None:
    """Each operator's case with strided tensors, under both launch profiles."""
    _check(device, CASES[name](dml.TensorDataType.FLOAT32, True))


@pytest.mark.parametrize("mode", list(PAD_MODES))
@pytest.mark.parametrize("data_type", [dml.TensorDataType.FLOAT16, dml.TensorDataType.INT64])
def test_every_padding_mode(device: Any, mode: str, data_type: Any) -> None:
    _check(device, padding_case(data_type, True, mode))


@pytest.mark.one_profile
@pytest.mark.parametrize(("value", "expected"), [(3.99, 3), (-3.99, -3), (1e9, 127), (-1e9, -128), (float("nan"), 0)])
def test_padding_float_value_in_an_integer_tensor(device: Any, value: float, expected: int) -> None:
    """PADDING's FLOAT PaddingValue in INT8: truncated toward zero, saturated, NaN 0 (dmlpy's documented rule)."""
    x = np.zeros((1, 1, 1, 1), np.int8)
    desc = dml.PaddingOperatorDesc(
        input_tensor=tensor(dml.TensorDataType.INT8, x.shape),
        output_tensor=tensor(dml.TensorDataType.INT8, (1, 1, 1, 3)),
        padding_mode="CONSTANT",
        padding_value=value,
        start_padding=(0, 0, 0, 1),
        end_padding=(0, 0, 0, 1),
    )
    got = run_structured(device, desc, {"input_tensor": x})["output_tensor"]
    assert got.reshape(-1).tolist() == [expected, 0, expected]


def test_in_a_graph_between_element_wise_nodes(device: Any) -> None:
    """x -> ADD -> SLICE1 (backwards) -> JOIN with y -> PADDING -> TILE -> ABS: each movement node its own
    kernel, the element-wise nodes around them computed where the graph holds their values."""
    f32 = dml.TensorDataType.FLOAT32
    x = np.random.default_rng(7).standard_normal((1, 2, 4, 5)).astype(np.float32)
    y = np.random.default_rng(8).standard_normal((1, 2, 2, 5)).astype(np.float32)
    g = dml.Graph(device)
    gx, gy = g.input(x.shape, f32), g.input(y.shape, f32)
    doubled = gx + gx
    reversed_rows = g.add_operator(
        dml.Slice1OperatorDesc(
            input_tensor=tensor(f32, x.shape),
            output_tensor=tensor(f32, (1, 2, 2, 5)),
            input_window_offsets=(0, 0, 0, 0),
            input_window_sizes=(1, 2, 4, 5),
            input_window_strides=(1, 1, -2, 1),
        ),
        [doubled],
    )
    joined = g.add_operator(
        dml.JoinOperatorDesc(
            inputs=[tensor(f32, (1, 2, 2, 5)), tensor(f32, y.shape)], output_tensor=tensor(f32, (1, 2, 4, 5)), axis=2
        ),
        [reversed_rows, gy],
    )
    padded = g.add_operator(
        dml.PaddingOperatorDesc(
            input_tensor=tensor(f32, (1, 2, 4, 5)),
            output_tensor=tensor(f32, (1, 2, 6, 6)),
            padding_mode="SYMMETRIC",
            padding_value=0.0,
            start_padding=(0, 0, 1, 0),
            end_padding=(0, 0, 1, 1),
        ),
        [joined],
    )
    tiled = g.add_operator(
        dml.TileOperatorDesc(
            input_tensor=tensor(f32, (1, 2, 6, 6)), output_tensor=tensor(f32, (2, 2, 6, 6)), repeats=(2, 1, 1, 1)
        ),
        [padded],
    )
    result = dml.graph.abs(tiled)
    compiled = g.compile([result])
    got = compiled(x, y)
    expected = np.abs(
        np.tile(
            np.pad(np.concatenate([(x + x)[:, :, 3::-2], y], axis=2), ((0, 0), (0, 0), (1, 1), (0, 1)), "symmetric"),
            (2, 1, 1, 1),
        )
    )
    np.testing.assert_array_equal(np.asarray(got), expected)


def test_a_one_node_graph_of_join_reads_its_inputs_where_the_graph_holds_them(device: Any) -> None:
    f32 = dml.TensorDataType.FLOAT32
    parts = [random_bits(f32, (3, 2), k) for k in range(3)]
    g = dml.Graph(device)
    inputs = [g.input(part.shape, f32) for part in parts]
    joined = g.add_operator(
        dml.JoinOperatorDesc(inputs=[tensor(f32, (3, 2))] * 3, output_tensor=tensor(f32, (3, 6)), axis=1), inputs
    )
    got = g.compile([joined])(*parts)
    np.testing.assert_array_equal(np.asarray(got).view(np.uint32), np.concatenate(parts, axis=1).view(np.uint32))
