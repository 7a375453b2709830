"""VALUE_SCALE_2D runs as one launch of ELEMENT_WISE_IDENTITY's scale-bias kernel per channel: against NumPy's
float32 steps (Scale * x, then + Bias[c], each rounded once; FLOAT16 read exactly and the float result rounded once
to half), bit for bit, for both types of its table, one and three channels, strided tensors at offsets under both
launch profiles, and a graph node between element-wise nodes."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from tests.device.movement.cases import padded_strides
from tests.device.resample.cases import NUMPY_DTYPE, T, tensor, values
from tests.helpers.structured_runs import run_structured

TYPES = sorted(dml.ValueScale2DOperatorDesc.SUPPORT.rows[-1].data_types["InputTensor"], key=int)
SCALE = 1 / 255


def _reference(x: npt.NDArray[Any], scale: float, bias: tuple[float, ...]) -> npt.NDArray[Any]:
    product = x.astype(np.float32) * np.float32(scale)
    shifted = product + np.asarray(bias, dtype=np.float32).reshape(1, -1, 1, 1)
    return shifted.astype(x.dtype)


def _desc(data_type: Any, sizes: tuple[int, ...], bias: tuple[float, ...], strides: Any = (None, None)) -> Any:
    return dml.ValueScale2DOperatorDesc(
        input_tensor=tensor(data_type, sizes, strides[0]),
        output_tensor=tensor(data_type, sizes, strides[1]),
        scale=SCALE,
        bias=bias,
    )


@pytest.mark.parametrize("data_type", TYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("bias", [(-0.5,), (-0.485, -0.456, -0.406)], ids=["grey", "colour"])
def test_per_channel_bias_strided(device: Any, data_type: Any, bias: tuple[float, ...]) -> None:
    sizes = (2, len(bias), 5, 7)
    x = (values(T.FLOAT32, sizes, len(bias)) * 100).astype(NUMPY_DTYPE[data_type])
    desc = _desc(data_type, sizes, bias, (padded_strides(sizes, 3), padded_strides(sizes, 1)))
    desc.validate_on(device.feature_level)
    got = run_structured(device, desc, {"input_tensor": x}, offsets={"input_tensor": 16, "output_tensor": 48})
    assert np.array_equal(got["output_tensor"], _reference(x, SCALE, bias))


def test_a_graph_node_between_element_wise_nodes(device: Any) -> None:
    sizes, bias = (1, 3, 4, 6), (0.25, -1.0, 2.0)
    x = values(T.FLOAT32, sizes, 7)
    g = dml.Graph(device)
    scaled = g.add_operator(_desc(T.FLOAT32, sizes, bias), [dml.graph.abs(g.input(sizes, T.FLOAT32))])
    y = g.compile([dml.graph.negate(scaled)])(x)
    assert np.array_equal(np.asarray(y), -_reference(np.abs(x), SCALE, bias))
