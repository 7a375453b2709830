"""GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1, SCATTER_ELEMENTS, SCATTER_ND and ONE_HOT run, bit for bit against
onnx.reference's Gather, GatherElements, GatherND, ScatterElements, ScatterND and OneHot (on the elements' bits as
unsigned integers, so every encoding must arrive unchanged), for every data type and index type of their tables,
negative indices, strided tensors at offsets, and as graph nodes. Out of range, dmlpy's documented rules: a gather
reads the nearest element, a scatter writes nothing, ONE_HOT leaves the sequence OffValue."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from tests.device.indexing.cases import (
    gather_case,
    gather_elements_case,
    gather_nd_case,
    one_hot_case,
    scatter_elements_case,
    scatter_nd_case,
    table,
)
from tests.device.movement.cases import tensor
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType


def _run(device: Any, desc: Any, inputs: dict[str, Any], offsets: dict[str, int] | None = None) -> npt.NDArray[Any]:
    desc.validate_on(device.feature_level)
    return run_structured(device, desc, inputs, offsets=offsets)["output_tensor"]


def _equal(got: npt.NDArray[Any], expected: npt.NDArray[Any]) -> None:
    bits = f"u{got.dtype.itemsize}"
    np.testing.assert_array_equal(got.view(bits), np.ascontiguousarray(expected).reshape(got.shape).view(bits))


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", table(dml.GatherOperatorDesc, "InputTensor"), ids=lambda t: t.name)
def test_gather_every_type(device: Any, data_type: Any) -> None:
    desc, inputs, expected = gather_case(data_type, T.INT32)
    _equal(_run(device, desc, inputs), expected)


@pytest.mark.parametrize("index_type", table(dml.GatherOperatorDesc, "IndicesTensor"), ids=lambda t: t.name)
def test_gather_every_index_type_strided(device: Any, index_type: Any) -> None:
    desc, inputs, expected = gather_case(T.FLOAT16, index_type, ("input_tensor",))
    _equal(_run(device, desc, inputs, {"input_tensor": 32}), expected)


@pytest.mark.parametrize("axis", [0, 2, 3])
def test_gather_elements(device: Any, axis: int) -> None:
    desc, inputs, expected = gather_elements_case(T.FLOAT32, T.INT64, axis, ("input_tensor",))
    _equal(_run(device, desc, inputs), expected)


@pytest.mark.parametrize("batch", [0, 1])
def test_gather_nd(device: Any, batch: int) -> None:
    desc, inputs, expected = gather_nd_case(T.INT16, T.INT32, batch, ("output_tensor",))
    _equal(_run(device, desc, inputs), expected)


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", table(dml.ScatterElementsOperatorDesc, "InputTensor"), ids=lambda t: t.name)
def test_scatter_elements_every_type(device: Any, data_type: Any) -> None:
    desc, inputs, expected = scatter_elements_case(data_type, T.INT64, ("output_tensor",))
    _equal(_run(device, desc, inputs), expected)


def test_scatter_nd(device: Any) -> None:
    desc, inputs, expected = scatter_nd_case(T.FLOAT32, T.INT32, ("input_tensor",))
    _equal(_run(device, desc, inputs, {"updates_tensor": 16}), expected)


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("index_type", [T.UINT32, T.INT64])
def test_one_hot(device: Any, axis: int, index_type: Any) -> None:
    desc, inputs, expected = one_hot_case(T.FLOAT32, index_type, axis)
    _equal(_run(device, desc, inputs), expected)


def test_gather_then_scatter_in_a_graph(device: Any) -> None:
    """x -> GATHER (rows) -> ADD 1 -> SCATTER_ELEMENTS back into y: each its own kernel, the element-wise node fused
    with nothing across them."""
    f32 = T.FLOAT32
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 4, 3)
    rows = np.array([2, 0], np.uint32)
    g = dml.Graph(device)
    gx, gy = g.input(x.shape, f32), g.input((1, 1, 4, 3), f32)
    gathered = g.add_operator(
        dml.GatherOperatorDesc(
            input_tensor=tensor(f32, x.shape), indices_tensor=tensor(T.UINT32, (1, 1, 1, 2)),
            output_tensor=tensor(f32, (1, 1, 2, 3)), axis=2, index_dimensions=1,
        ),
        [gx, g.constant(rows.reshape(1, 1, 1, 2), dml.BufferTensorDesc(data_type=T.UINT32, sizes=(1, 1, 1, 2)))],
    )  # fmt: skip
    where = np.array([[3, 3, 3], [1, 1, 1]], np.uint32).reshape(1, 1, 2, 3)
    scattered = g.add_operator(
        dml.ScatterElementsOperatorDesc(
            input_tensor=tensor(f32, (1, 1, 4, 3)), indices_tensor=tensor(T.UINT32, (1, 1, 2, 3)),
            updates_tensor=tensor(f32, (1, 1, 2, 3)), output_tensor=tensor(f32, (1, 1, 4, 3)), axis=2,
        ),
        [gy, g.constant(where, dml.BufferTensorDesc(data_type=T.UINT32, sizes=(1, 1, 2, 3))), gathered + 1],
    )  # fmt: skip
    y = np.zeros((1, 1, 4, 3), np.float32)
    got = np.asarray(g.compile([scattered])(x, y))
    expected = y.copy()
    expected[0, 0, 3], expected[0, 0, 1] = x[0, 0, 2] + 1, x[0, 0, 0] + 1
    np.testing.assert_array_equal(got, expected)
