"""MAX_UNPOOLING runs: OutputTensor zero-filled, each InputTensor element written at IndicesTensor's packed row-major
index of OutputTensor (NumPy's ``flat`` assignment as the reference, and onnx.reference's MaxUnpool as a second
check), bits exactly; every type of its table at the highest level, UINT32 and UINT64 indices, strided tensors at
byte offsets, an index past OutputTensor writing nothing, both launch profiles, and MAX_POOLING1 -> MAX_UNPOOLING
as a graph."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

import dmlpy as dml
from tests.device.movement.cases import padded_strides, random_bits, tensor
from tests.device.pooling.cases import T, Window, pooling_case, values
from tests.helpers.dtypes import NUMPY_DTYPE
from tests.helpers.structured_runs import run_structured

UNPOOL = dml.MaxUnpoolingOperatorDesc
INPUT, OUTPUT = (2, 3, 3, 2), (2, 3, 6, 5)


def _desc(data_type: Any, index_type: Any, strided: bool) -> Any:
    def described(element: Any, sizes: Any, gap: int) -> Any:
        return tensor(element, sizes, padded_strides(sizes, gap) if strided else None)

    return UNPOOL(
        input_tensor=described(data_type, INPUT, 2),
        indices_tensor=described(index_type, INPUT, 1),
        output_tensor=described(data_type, OUTPUT, 3),
    )


def _indices(index_type: Any, seed: int) -> Any:
    """Distinct indices into OUTPUT's elements, the last one past them (it writes nothing)."""
    chosen = np.random.default_rng(seed).permutation(int(np.prod(OUTPUT)))[: int(np.prod(INPUT))]
    chosen[-1] = int(np.prod(OUTPUT)) + 7
    return chosen.astype(NUMPY_DTYPE[index_type]).reshape(INPUT)


def _expected(x: Any, indices: Any) -> Any:
    y = np.zeros(OUTPUT, x.dtype)
    inside = indices.ravel() < y.size
    y.flat[indices.ravel()[inside]] = x.ravel()[inside]
    return y


@pytest.mark.parametrize("index_type", [T.UINT32, T.UINT64], ids=lambda t: t.name)
def test_max_unpooling_strided(device: Any, index_type: Any) -> None:
    x, indices = values(T.FLOAT32, INPUT, 4), _indices(index_type, 5)
    inputs = {"input_tensor": x, "indices_tensor": indices}
    offsets = {"input_tensor": 16, "indices_tensor": 32, "output_tensor": 48}
    got = run_structured(device, _desc(T.FLOAT32, index_type, True), inputs, offsets=offsets)["output_tensor"]
    np.testing.assert_array_equal(got, _expected(x, indices))


@pytest.mark.one_profile
@pytest.mark.parametrize(
    "data_type", sorted(UNPOOL.SUPPORT.rows[-1].data_types["InputTensor"], key=int), ids=lambda t: t.name
)
def test_every_type_of_the_table(device: Any, data_type: Any) -> None:
    """The elements move as bits: random encodings (NaN payloads among the floats) arrive unchanged."""
    x, indices = random_bits(data_type, INPUT, 6), _indices(T.UINT32, 7)
    got = run_structured(device, _desc(data_type, T.UINT32, False), {"input_tensor": x, "indices_tensor": indices})
    width = f"u{x.dtype.itemsize}"
    np.testing.assert_array_equal(got["output_tensor"].view(width), _expected(x, indices).view(width))


def test_onnx_max_unpool_agrees_after_max_pooling1(device: Any) -> None:
    """MAX_POOLING1's values and indices unpooled give ONNX's MaxUnpool of ONNX's MaxPool (2x2, stride 2)."""
    x = values(T.FLOAT32, (2, 3, 6, 4), 8) + np.arange(24, dtype=np.float32).reshape(6, 4)  # no ties
    pool = pooling_case(dml.MaxPooling1OperatorDesc, T.FLOAT32, x.shape, Window((2, 2), (2, 2)), x=x,
                        index_type=T.UINT32)  # fmt: skip
    pooled = run_structured(device, pool.desc, pool.inputs)
    unpool = UNPOOL(
        input_tensor=tensor(T.FLOAT32, (2, 3, 3, 2)),
        indices_tensor=tensor(T.UINT32, (2, 3, 3, 2)),
        output_tensor=tensor(T.FLOAT32, x.shape),
    )
    inputs = {"input_tensor": pooled["output_tensor"], "indices_tensor": pooled["output_indices_tensor"]}
    got = run_structured(device, unpool, inputs)["output_tensor"]
    node = helper.make_node("MaxUnpool", ["x", "i"], ["y"], kernel_shape=[2, 2], strides=[2, 2])
    onnx_inputs = {"x": inputs["input_tensor"], "i": inputs["indices_tensor"].astype(np.int64)}
    (onnx_y,) = ReferenceEvaluator(node).run(None, onnx_inputs)
    np.testing.assert_array_equal(got, onnx_y)
