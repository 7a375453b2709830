"""Round through DirectML's object model (create_operator .. record_dispatch), checked byte for byte over the
whole output buffer: the tensor's elements hold the oracle's results and every other byte is unchanged. NaN
payloads in the layouts that store halves one at a time, every rank at DML_FEATURE_LEVEL_3_0, rank 4 only at
2_1. (Every layout class at each type: tests/device/test_operator_rows_layouts.py, the Round row; in every mode
with --run-slow.)"""

from __future__ import annotations

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.layouts import LAYOUTS, S4, padded, permuted
from tests.helpers.modes import DML_ROUNDING_MODES as MODES
from tests.helpers.round_checks import DTYPE_IDS, DTYPES, round_through_object_model
from tests.helpers.turns import one_run_product

NAN_LAYOUTS = [
    "packed",
    "packed_odd_count",
    "strided_padded_both",
    "broadcast_input_inner",
    "permuted_input",
    "transposed_tiled",
    "offsets_strided",
    "in_place_packed_offset",
    "in_place_strided",
]
# Includes the layouts that store halves one at a time (tails, strided scatters): PoCL's scalar vstore_half
# drops NaN payloads, which opencl/half_store.h works around.


def _nan_case(layout: str, dtype: np.dtype) -> object:
    return pytest.param(layout, dtype, id=f"{layout}-{dtype.name}")


@pytest.mark.parametrize(("layout", "dtype"), [_nan_case(name, dtype) for name in NAN_LAYOUTS for dtype in DTYPES])
def test_nan_sign_and_payload_kept(device, layout, dtype):
    for mode in MODES:
        round_through_object_model(device, dtype, mode=mode, seed=int(mode) + 3, nans=True, **LAYOUTS[layout])  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def device_3_0(device):
    return dml.create_device(
        max_feature_level=dml.FeatureLevel.FL_3_0,
        cl_device=device.cl_device,
        launch_profile=device.launch_profile.name,
    )


@pytest.fixture(scope="module")
def device_2_1(device):
    return dml.create_device(
        max_feature_level=dml.FeatureLevel.FL_2_1,
        cl_device=device.cl_device,
        launch_profile=device.launch_profile.name,
    )


RANK_SIZES = (2, 3, 1, 2, 3, 2, 2, 3)


@pytest.mark.parametrize(
    ("strided", "rank", "dtype"),
    one_run_product(
        ([False, True], ["packed", "strided"]),
        (range(1, 9), [f"rank{r}" for r in range(1, 9)]),
        (DTYPES, DTYPE_IDS),
    ),
)
def test_every_rank_at_fl_3_0(device_3_0, rank, dtype, strided):
    """Each rank, layout and type on one (device, launch profile) pair, taking turns (tests/helpers/turns.py)."""
    assert device_3_0.feature_level == dml.FeatureLevel.FL_3_0
    sizes = RANK_SIZES[:rank]
    strides = padded(sizes) if strided else None
    reversed_strides = permuted(sizes, tuple(range(rank - 1, -1, -1))) if strided else None
    for mode in MODES:
        round_through_object_model(
            device_3_0,
            dtype,
            sizes,
            mode,
            input_strides=strides,
            output_strides=reversed_strides,
            input_offset=16 * rank,
            seed=rank,
        )


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", ["packed_offsets", "strided", "in_place"])
def test_rank_4_at_fl_2_1(device_2_1, dtype, layout):
    assert device_2_1.feature_level == dml.FeatureLevel.FL_2_1
    for mode in MODES:
        if layout == "packed_offsets":
            round_through_object_model(device_2_1, dtype, S4, mode, input_offset=32, output_offset=16)
        elif layout == "strided":
            round_through_object_model(
                device_2_1, dtype, S4, mode, input_strides=permuted(S4, (3, 2, 1, 0)), output_strides=padded(S4)
            )
        else:
            round_through_object_model(device_2_1, dtype, S4, mode, in_place=True)


@pytest.mark.parametrize("rank", [1, 3, 5, 8], ids=[f"rank{r}" for r in (1, 3, 5, 8)])
def test_other_ranks_refused_at_fl_2_1(device_2_1, rank):
    td = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=RANK_SIZES[:rank])
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td)
    with pytest.raises(dml.InvalidArgumentError) as error:
        device_2_1.create_operator(desc)
    message = str(error.value)
    assert "DimensionCount" in message and f"is {rank}" in message
    assert "DML_FEATURE_LEVEL_2_1" in message and "DML_FEATURE_LEVEL_3_0" in message


def test_round_refused_below_fl_2_1():
    old = dml.create_device(max_feature_level=dml.FeatureLevel.FL_2_0)
    td = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=S4)
    with pytest.raises(dml.UnsupportedError, match="DML_FEATURE_LEVEL_2_1"):
        old.create_operator(dml.ElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td))


def test_c_field_names_and_tensor_desc_wrapper(device):
    # The same operator spelled with C names and DML_TENSOR_DESC wrappers runs like the snake_case one.
    td = dml.TensorDesc(type=dml.TensorType.BUFFER, desc=dml.BufferTensorDesc(DataType="FLOAT32", Sizes=[2, 2, 2, 3]))
    desc = dml.OperatorDesc(
        type=dml.OperatorType.ELEMENT_WISE_ROUND,
        desc=dml.ElementWiseRoundOperatorDesc(
            InputTensor=td, OutputTensor=td, RoundingMode="DML_ROUNDING_MODE_TOWARD_INFINITY"
        ),
    )
    compiled = device.compile_operator(device.create_operator(desc))
    initializer = device.create_operator_initializer([compiled])
    recorder = device.create_command_recorder()
    recorder.record_dispatch(device.queue, initializer, device.create_binding_table(initializer)).wait()
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5] * 4, dtype=np.float32)
    buffer = device.upload(x)
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(buffer, 0, 96)])
    table.bind_outputs([dml.BufferBinding(buffer, 0, 96)])
    recorder.record_dispatch(device.queue, compiled, table).wait()
    np.testing.assert_array_equal(buffer.read(np.float32, 24), np.array([-3, -2, -1, 1, 2, 3] * 4, np.float32))
