"""QuantizeLinear / DequantizeLinear through DirectML's object model: create_device, create_operator,
compile_operator, an initializer dispatch, a binding table of dml.BufferBinding (None for a null ZeroPointTensor)
and record_dispatch. The whole output buffer is checked: the tensor's elements hold the oracle's results and every
other byte is unchanged. A default run takes each case on one (device, launch profile) pair, taking turns (every
pair with --run-slow)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers import quantize_oracle as oracle
from tests.helpers.layouts import byte_mask, element_offsets, packed, padded, sentinel_bytes
from tests.helpers.object_model import compile_and_initialize, dispatch
from tests.helpers.turns import one_run_each, one_run_product, pairs_by_value

from .test_quantize_values import assert_same

T = dml.TensorDataType
NP = {
    T.FLOAT32: np.dtype(np.float32),
    T.FLOAT16: np.dtype(np.float16),
    T.INT32: np.dtype(np.int32),
    T.UINT32: np.dtype(np.uint32),
    T.INT16: np.dtype(np.int16),
    T.UINT16: np.dtype(np.uint16),
    T.INT8: np.dtype(np.int8),
    T.UINT8: np.dtype(np.uint8),
}


def run(
    device: Any,
    dequantize: bool,
    types: tuple[T, T, T | None, T],
    sizes: tuple[int, ...],
    axis: int | None,
    *,
    output_strides: tuple[int, ...] | None = None,
    offsets: tuple[int, int, int, int] = (0, 0, 0, 0),
    seed: int = 0,
) -> None:
    input_type, scale_type, zero_point_type, output_type = types
    rng = np.random.default_rng(seed)
    rank = len(sizes)
    n = 1 if axis is None else sizes[axis]
    parameter_strides = tuple(1 if d == axis else 0 for d in range(rank))
    in_dtype, scale_dtype, out_dtype = NP[input_type], NP[scale_type], NP[output_type]
    count = int(np.prod(sizes))
    if dequantize:
        low, high = oracle.INTEGER_RANGES[in_dtype]
        low, high = max(low, -(2**20)), min(high, 2**20)
        x = rng.integers(low, high, count, endpoint=True).astype(in_dtype)
        scale = rng.uniform(0.001, 3.0, n).astype(scale_dtype)
    else:
        if in_dtype.kind == "i":
            x = rng.integers(-5000, 5000, count).astype(in_dtype)
        else:
            x = np.where(rng.random(count) < 0.5, rng.integers(-600, 600, count) / 4, rng.uniform(-300, 300, count))
            x = x.astype(in_dtype)
            x[:3] = [np.nan, np.inf, -np.inf][: min(3, count)]
        scale = rng.uniform(0.05, 3.0, n).astype(scale_dtype)
    zero_point = None
    if zero_point_type is not None:
        low, high = oracle.INTEGER_RANGES[NP[zero_point_type]]
        zero_point = rng.integers(max(low, -1000), min(high, 1000), n, endpoint=True).astype(NP[zero_point_type])
    x = x.reshape(sizes)

    descs = [
        dml.BufferTensorDesc(data_type=input_type, sizes=sizes),
        dml.BufferTensorDesc(data_type=scale_type, sizes=sizes, strides=parameter_strides),
        None
        if zero_point_type is None
        else dml.BufferTensorDesc(data_type=zero_point_type, sizes=sizes, strides=parameter_strides),
        dml.BufferTensorDesc(data_type=output_type, sizes=sizes, strides=output_strides),
    ]
    desc_class = (
        dml.ElementWiseDequantizeLinearOperatorDesc if dequantize else dml.ElementWiseQuantizeLinearOperatorDesc
    )
    op_desc = desc_class(
        input_tensor=descs[0], scale_tensor=descs[1], zero_point_tensor=descs[2], output_tensor=descs[3]
    )
    compiled = compile_and_initialize(device, op_desc)

    def upload(array: np.ndarray | None, desc, offset: int, salt: int):
        if array is None:
            return None, None
        image = sentinel_bytes(offset + desc.total_tensor_size_in_bytes + 32, salt)
        data = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        image[offset : offset + data.size] = data
        buffer = device.create_buffer(image.size)
        buffer.write(image)
        return buffer, dml.BufferBinding(buffer, offset, desc.total_tensor_size_in_bytes)

    bindings = []
    for i, array in enumerate((x, scale, zero_point)):
        bindings.append(upload(array, descs[i], offsets[i], i)[1])
    out_desc = descs[3]
    out_size = offsets[3] + out_desc.total_tensor_size_in_bytes + 32
    before = sentinel_bytes(out_size, 99)
    out_buffer = device.create_buffer(out_size)
    out_buffer.write(before)
    out_binding = dml.BufferBinding(out_buffer, offsets[3], out_desc.total_tensor_size_in_bytes)
    dispatch(device, compiled, bindings, [out_binding])
    got = out_buffer.read(np.uint8, out_size)

    out_strides = output_strides if output_strides is not None else packed(sizes)
    positions = offsets[3] + out_dtype.itemsize * element_offsets(sizes, out_strides)
    elements = np.stack([got[positions + b] for b in range(out_dtype.itemsize)], axis=-1).reshape(-1).view(out_dtype)
    if dequantize:
        want = oracle.dequantize(x, scale, zero_point, axis=axis if axis is not None else 0, out_dtype=out_dtype)
    else:
        want = oracle.quantize(x, scale, zero_point, axis=axis if axis is not None else 0, out_dtype=out_dtype)
    assert_same(elements.reshape(sizes), want)
    mask = byte_mask(out_size, offsets[3], out_dtype.itemsize, element_offsets(sizes, out_strides))
    changed = np.flatnonzero((got != before) & ~mask)
    assert changed.size == 0, f"bytes outside the output tensor changed at {changed[:8]}"


Q_TYPES = {
    "f32_f32_u8": (T.FLOAT32, T.FLOAT32, T.UINT8, T.UINT8),
    "f32_f32_i8": (T.FLOAT32, T.FLOAT32, T.INT8, T.INT8),
    "f32_f32_null_u8": (T.FLOAT32, T.FLOAT32, None, T.UINT8),
    "f16_f16_i8": (T.FLOAT16, T.FLOAT16, T.INT8, T.INT8),
    "f16_f16_null_u8": (T.FLOAT16, T.FLOAT16, None, T.UINT8),
    "i32_f32_u8": (T.INT32, T.FLOAT32, T.UINT8, T.UINT8),
    "i32_f32_null_i8": (T.INT32, T.FLOAT32, None, T.INT8),
}
DQ_TYPES = {
    f"{i.name}_{s.name}{'_null' if null else ''}": (i, s, None if null else i, s)
    for i in (T.INT8, T.UINT8, T.INT16, T.UINT16, T.INT32, T.UINT32)
    for s in (T.FLOAT32, T.FLOAT16)
    for null in (False, True)
    if not (null and s == T.FLOAT16 and i in (T.INT16, T.UINT16))
}
LAYOUTS = {
    "per_tensor_rank4": {"sizes": (2, 3, 4, 5), "axis": None},
    "per_axis1_rank4_offsets": {"sizes": (2, 3, 4, 5), "axis": 1, "offsets": (16, 32, 48, 64)},
    "per_axis0_rank1": {"sizes": (37,), "axis": 0},
    "per_axis_last_rank8": {"sizes": (1, 2, 1, 2, 1, 2, 1, 5), "axis": 7},
    "per_axis2_padded_output": {"sizes": (3, 2, 7), "axis": 2, "output_strides": padded((3, 2, 7), 3)},
}


Q_CASES = one_run_product((list(Q_TYPES.values()), list(Q_TYPES)), (list(LAYOUTS.values()), list(LAYOUTS)))


@pytest.mark.parametrize(("types", "layout"), Q_CASES)
def test_quantize_object_model(device, types, layout):
    run(device, False, types, seed=len(str(layout)), **layout)


DQ_CASES = [
    pytest.param(types, "per_axis1_rank4_offsets", id=f"{name}-per_axis1_rank4_offsets")
    for name, types in DQ_TYPES.items()
]
DQ_CASES = one_run_each(
    DQ_CASES
    + [
        pytest.param(DQ_TYPES[name], layout, id=f"{name}-{layout}")
        for layout in ("per_tensor_rank4", "per_axis2_padded_output")  # each layout on four consecutive turns
        for name in ("INT8_FLOAT32", "UINT16_FLOAT16", "INT32_FLOAT32_null", "UINT32_FLOAT16_null")
    ]
)


def test_the_turns_run_every_layout_on_every_pair() -> None:
    """With CI's two devices under two profiles (four turns), a default run takes each layout of both lists, and
    each QuantizeLinear type, on every (device, profile) pair; a DequantizeLinear type on one (test_quantize_values
    checks every type's values on every device)."""
    for cases, places in ((Q_CASES, (0, 1)), (DQ_CASES, (1,))):
        for place in places:
            assert {value: turns for value, turns in pairs_by_value(cases, place).items() if len(turns) < 4} == {}


@pytest.mark.parametrize(("types", "layout"), DQ_CASES)
def test_dequantize_object_model(device, types, layout):
    run(device, True, types, seed=len(layout), **LAYOUTS[layout])


@pytest.mark.parametrize("dequantize", [False, True], ids=["quantize", "dequantize"])
def test_feature_level_1_0_device(dequantize):
    old = dml.create_device(max_feature_level=dml.FeatureLevel.FL_1_0)
    types = (T.UINT8, T.FLOAT32, T.UINT8, T.FLOAT32) if dequantize else (T.FLOAT32, T.FLOAT32, T.UINT8, T.UINT8)
    run(old, dequantize, types, (1, 3, 4, 5), 1)


def test_null_zero_point_must_be_bound_to_none(device):
    td = dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(4,))
    out = dml.BufferTensorDesc(data_type=T.UINT8, sizes=(4,))
    desc = dml.ElementWiseQuantizeLinearOperatorDesc(input_tensor=td, scale_tensor=td, output_tensor=out)
    compiled = device.compile_operator(device.create_operator(desc))
    table = device.create_binding_table(compiled)
    buffer = device.create_buffer(64)
    with pytest.raises(dml.InvalidArgumentError, match="bind None"):
        table.bind_inputs([dml.BufferBinding(buffer, 0, 16)] * 3)
    with pytest.raises(dml.InvalidArgumentError, match="exactly 3"):
        table.bind_inputs([dml.BufferBinding(buffer, 0, 16)] * 2)
