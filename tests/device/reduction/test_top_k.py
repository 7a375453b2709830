"""TOP_K and TOP_K1 run (opencl/top_k.cl), against onnx.reference's TopK (top_k_cumulative_cases.py): the values bit
for bit and the indices exactly, for every data type of TOP_K1's table, K = 1, a middle K and the whole axis, both
AxisDirections, UINT32 and UINT64 indices, inputs full of ties and special values (NaN of either sign and with a
payload, +-inf, +-0: NaN the largest, -0 equal to +0, ties by ascending index), the insertion's worst case (an input
sorted the wrong way round), strided tensors along every axis under both launch profiles, and a graph node."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.movement.cases import padded_strides
from tests.device.reduction.top_k_cumulative_cases import T, tied_values, top_k_desc, top_k_mismatch, top_k_reference
from tests.helpers.structured_runs import run_structured

SHAPE = (3, 9, 4)
TYPES = sorted(dml.TopK1OperatorDesc.SUPPORT.rows[-1].data_types["InputTensor"], key=int)


def _run(device: Any, desc: Any, x: Any) -> dict[str, Any]:
    desc.validate_on(device.feature_level)
    return run_structured(device, desc, {"input_tensor": x}, offsets={"input_tensor": 32})


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", TYPES, ids=lambda t: t.name)
def test_every_type_k_and_direction(device: Any, data_type: Any) -> None:
    x = tied_values(data_type, SHAPE, int(data_type))
    for k in (1, 4, SHAPE[1]):
        for largest in (True, False):
            index_type = T.UINT64 if k == 4 else T.UINT32
            desc = top_k_desc(dml.TopK1OperatorDesc, data_type, index_type, SHAPE, 1, k, largest)
            problem = top_k_mismatch(_run(device, desc, x), x, 1, k, largest)
            assert problem is None, f"K {k}, largest {largest}: {problem}"


@pytest.mark.one_profile
def test_top_k_selects_the_largest(device: Any) -> None:
    x = tied_values(T.FLOAT16, SHAPE, 7)
    desc = top_k_desc(dml.TopKOperatorDesc, T.FLOAT16, T.UINT32, SHAPE, 2, 3, largest=True)
    assert top_k_mismatch(_run(device, desc, x), x, 2, 3, True) is None


@pytest.mark.one_profile
@pytest.mark.parametrize("largest", [True, False], ids=["largest", "smallest"])
def test_an_input_sorted_the_wrong_way_round_moves_every_element(device: Any, largest: bool) -> None:
    """Each element enters and shifts every held one down: the insertion's O(N K) case, and its ties."""
    ramp = np.arange(40, dtype=np.int32) // 2  # pairs of equal values
    x = np.stack([ramp if largest else ramp[::-1], ramp[::-1] if largest else ramp]).astype(np.int32)
    desc = top_k_desc(dml.TopK1OperatorDesc, T.INT32, T.UINT32, x.shape, 1, 25, largest)
    got = _run(device, desc, x)
    assert top_k_mismatch(got, x, 1, 25, largest) is None
    first = got["output_index_tensor"][0, :4].tolist()
    assert first == [38, 39, 36, 37]  # the last pair first, the earlier index of each pair first


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_strided_along_every_axis_under_both_profiles(device: Any, axis: int) -> None:
    x = np.random.default_rng(axis).standard_normal(SHAPE).astype(np.float32)
    k = SHAPE[axis] - 1
    desc = top_k_desc(dml.TopK1OperatorDesc, T.FLOAT32, T.UINT32, SHAPE, axis, k, True, padded_strides(SHAPE, 3))
    assert top_k_mismatch(_run(device, desc, x), x, axis, k, True) is None


def test_top_k_between_element_wise_nodes_in_a_graph(device: Any) -> None:
    x = np.random.default_rng(4).standard_normal(SHAPE).astype(np.float32)
    g = dml.Graph(device)
    gx = g.input(SHAPE, T.FLOAT32)
    desc = top_k_desc(dml.TopK1OperatorDesc, T.FLOAT32, T.UINT32, SHAPE, 1, 3, largest=False)
    values, indices = g.add_operator_outputs(desc, [gx * 2])
    got_values, got_indices = g.compile([dml.graph.abs(values), indices])(x)
    expected_values, expected_indices = top_k_reference(2 * x, 1, 3, largest=False)
    np.testing.assert_array_equal(np.asarray(got_values), np.abs(expected_values))
    np.testing.assert_array_equal(np.asarray(got_indices), expected_indices)
