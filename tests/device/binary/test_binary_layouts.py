"""The binary operators in place and broadcast, beyond their rows' layouts (which run in place on ATensor and
broadcast BTensor along axis 1):

* in place on ATensor and on BTensor (DirectML lets the output alias either input), each operator at FLOAT32 and
  FLOAT16 on every pair of special values, equal to the row's reference; packed 1-D, the program the row's value
  test builds (a single operator's kernel is built to allow aliasing, ``MAY_ALIAS``, whether or not it aliases);
* 0-strides: BTensor broadcast along each axis, along two, and ATensor broadcast while BTensor is full, against
  NumPy's broadcasting of the small arrays, for SUBTRACT, whose operands do not commute (every operator reads its
  inputs through the same loads: each new stride pattern is a program of its own, so one operator takes them)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.ops._binary import BinaryArithmeticDesc
from dmlpy.ops.element_wise_arithmetic import ARITHMETIC_OPERATORS
from tests.device.binary.pairs import F16, F32, Array, case_of, cross_product, float_specials, operator_name
from tests.helpers.ext_oracle import describe, mismatches
from tests.helpers.layouts import packed
from tests.helpers.object_model import compile_and_initialize, dispatch, run_operator
from tests.helpers.operators import descriptor, row_of

FLOAT_CASES = [
    pytest.param(desc, dtype, id=f"{operator_name(desc)}-{dtype.name}")
    for desc in ARITHMETIC_OPERATORS
    for dtype in (F32, F16)
]


def run_in_place_on_b(device: Any, desc: Any, a: Array, b: Array) -> Array:
    """``desc`` with OutputTensor bound to BTensor's buffer; what that buffer holds afterwards."""
    compiled = compile_and_initialize(device, desc)
    a_buffer, b_buffer = device.upload(a), device.upload(b)
    size = desc.a_tensor.desc.total_tensor_size_in_bytes  # whole DWORDs, as upload allocates them
    b_binding = dml.BufferBinding(b_buffer, 0, size)
    dispatch(device, compiled, [dml.BufferBinding(a_buffer, 0, size), b_binding], [b_binding])
    assert a_buffer.read(a.dtype, a.size).tobytes() == a.tobytes(), "ATensor's buffer changed"
    return b_buffer.read(b.dtype, b.size)


@pytest.mark.parametrize(("desc", "dtype"), FLOAT_CASES)
def test_in_place_on_either_input(device: Any, desc: type[BinaryArithmeticDesc], dtype: np.dtype[Any]) -> None:
    row = row_of(desc)
    case = case_of(row, dtype)
    a, b = cross_product(float_specials(dtype))
    want = row.reference({"a_tensor": a, "b_tensor": b}, case)
    operator = descriptor(row, (a.size,), case.dtypes)
    on_a = run_operator(device, operator, {"a_tensor": lambda n: a[:n], "b_tensor": lambda n: b[:n]}, in_place=True)
    on_b = run_in_place_on_b(device, operator, a, b)
    for where, got in (("in place on ATensor", on_a.got), ("in place on BTensor", on_b)):
        wrong = mismatches(got, want, nan="any")
        assert wrong.size == 0, f"{where}: " + describe(wrong, a, got, want)


SIZES = (3, 4, 5)
BROADCASTS = {
    # (ATensor's shape, BTensor's shape): a 1 where the tensor repeats, read with a 0-stride there
    "B-along-axis-0": (SIZES, (1, 4, 5)),
    "B-along-axis-1": (SIZES, (3, 1, 5)),
    "B-along-axis-2": (SIZES, (3, 4, 1)),
    "B-along-axes-0-and-2": (SIZES, (1, 4, 1)),
    "A-along-axes-0-and-1": ((1, 1, 5), SIZES),
}


def broadcast_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The packed strides of ``shape``, 0 along its dimensions of size 1: it is read repeated to SIZES."""
    return tuple(0 if size == 1 else stride for size, stride in zip(shape, packed(shape), strict=True))


@pytest.mark.parametrize(
    "desc", [dml.ElementWiseSubtractOperatorDesc, dml.ElementWiseDivideOperatorDesc], ids=operator_name
)
@pytest.mark.parametrize("shapes", BROADCASTS.values(), ids=BROADCASTS.keys())
def test_zero_strides_broadcast_as_numpy_does(
    device: Any, desc: type[BinaryArithmeticDesc], shapes: tuple[tuple[int, ...], tuple[int, ...]]
) -> None:
    row = row_of(desc)
    case = case_of(row, F32)
    specials = float_specials(F32)
    a_shape, b_shape = shapes
    a_small = np.resize(specials, a_shape)
    b_small = np.resize(np.roll(specials, 7), b_shape)  # another value beside each
    strides = {"a_tensor": broadcast_strides(a_shape), "b_tensor": broadcast_strides(b_shape)}
    operator = descriptor(row, SIZES, case.dtypes, strides)
    values = {"a_tensor": lambda n: a_small.reshape(-1)[:n], "b_tensor": lambda n: b_small.reshape(-1)[:n]}
    run = run_operator(device, operator, values)
    assert run.changed_outside == []
    a, b = (np.broadcast_to(small, SIZES).reshape(-1) for small in (a_small, b_small))
    want = row.reference({"a_tensor": a, "b_tensor": b}, case).reshape(SIZES)
    wrong = mismatches(run.got, want, nan="any")
    assert wrong.size == 0, describe(wrong, a, run.got, want)
