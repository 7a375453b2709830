"""What the table-driven tests share (tests/device/test_operator_rows_values.py, _layouts.py, _graphs.py and the
Oclgrind pass, tests/device/oclgrind_operator_rows.py): a case's tensor values, its strides in a layout, the
device it runs on, the reference's output (kept per inputs), the comparison with it, and the fused chain that runs
an operator between two neighbours in one kernel."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from dmlpy.graph.fusion import fuses
from dmlpy.ops._base import OperatorDescBase

from .ext_oracle import describe, mismatches
from .object_model import run_graph, run_operator
from .operators import descriptor
from .row_model import Case, OperatorRow, input_values
from .ulps import within_ulps

Array = npt.NDArray[Any]
F16 = np.dtype(np.float16)


def fills(row: OperatorRow, case: Case) -> dict[str, Callable[[int], Array]]:
    """The values of each tensor of ``case``: the input's value set (a ``reduction`` row's own) repeated to the
    span, the row's parameters drawn from a generator seeded by the case."""
    rng = np.random.default_rng(zlib.crc32(f"{row.name}-{case.id}".encode()))
    dtype = case.dtypes[row.first]
    reduction = row.reduction
    main = input_values(dtype, rng) if reduction is None else reduction.values(dtype, reduction.count, rng)
    values: dict[str, Callable[[int], Array]] = {row.first: lambda count: np.resize(main, count)}
    for name, parameter in row.parameters.items():
        if name in case.dtypes:
            values[name] = lambda count, p=parameter, d=case.dtypes[name], r=rng: p(d, count, r)
    return values


_EXPECTED: dict[tuple[str, str, tuple[int, ...], bytes], Array] = {}


def expected(row: OperatorRow, case: Case, inputs: Mapping[str, Array]) -> Array:
    """The reference's output for ``inputs`` in their shape; kept per input bytes (and, for a row that reduces
    groups, shape), so the second launch profile (and a layout that reads the same elements) does not recompute
    an exact but slow oracle."""
    flat = b"".join(np.ascontiguousarray(array).tobytes() for array in inputs.values())
    shape = inputs[row.first].shape if row.reduction is not None else ()
    key = (row.name, case.id, shape, flat)
    if key not in _EXPECTED:
        _EXPECTED[key] = row.reference_in_shape(inputs, case)
    return _EXPECTED[key].reshape(inputs[row.first].shape)


def skip_without_fp64(device: Any, case: Case) -> None:
    if any(d == np.float64 for d in case.dtypes.values()) and "cl_khr_fp64" not in device.cl_device.extensions:
        pytest.skip(f"{device.name} has no cl_khr_fp64")


def device_for(row: OperatorRow, request: pytest.FixtureRequest) -> Any:
    """The ``device`` fixture's device, or for an extension row ``ext_device`` (tests/device/conftest.py)."""
    return request.getfixturevalue("ext_device" if row.desc.is_extension() else "device")


def layout_strides(row: OperatorRow, case: Case, layout: Mapping[str, Any]) -> dict[str, tuple[int, ...] | None]:
    """The layout's input and output strides (the first input's and the output's); the other inputs (a scale, a zero
    point, BTensor) broadcast along axis 1 (a scalar at rank 1)."""
    strides: dict[str, tuple[int, ...] | None] = {
        row.first: layout.get("input_strides"),
        row.output: layout.get("output_strides"),
    }
    rank = len(layout["sizes"])
    for name in row.parameters:
        if name in case.dtypes:
            strides[name] = tuple(1 if axis == 1 else 0 for axis in range(rank))
    return strides


def assert_same(row: OperatorRow, got: Array, want: Array, inputs: Array, case: Case) -> None:
    """Bit for bit, or within the row's ULPs of the output type (``OperatorRow.ulps``) of ``want``, then the exact
    float64 value (ulps.ulp_error); where ``want`` is NaN, a NaN, by the row's NaN rule (the same sign and payload,
    the quiet bit aside, for an operator that passes a NaN through), and any NaN where the case computes
    ``x * Scale + Bias`` first: IEEE 754 fixes neither the sign nor the payload of a NaN that arithmetic returns
    (an NVIDIA H100 returns one canonical NaN, x86 the operand's), as docs/operators/element_wise_identity.md says
    of ScaleBias."""
    bound = row.ulps(got.dtype, case)
    if bound:  # want: the exact float64 value
        wrong = within_ulps(got, want, bound)
        assert wrong.size == 0, f"more than {bound} ULPs off: " + describe(wrong, inputs, got, want.astype(got.dtype))
        return
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    if want.dtype.kind in "iu":
        wrong = np.flatnonzero(got.reshape(-1) != want.reshape(-1))
        assert wrong.size == 0, (
            f"{wrong.size} of {want.size} differ, first at {wrong[:8]}: {got.reshape(-1)[wrong[:8]]}"
        )
        return
    wrong = mismatches(got, want, nan="any" if case.options.get("scale_bias") is not None else row.nan)
    assert wrong.size == 0, describe(wrong, inputs, got, want)


EXACT_FLOAT16_NEIGHBOUR = dml.ScaleBias(scale=1.0, bias=-0.0)
"""The FLOAT16 neighbour of the fused chain: ``x * 1 + -0`` is ``x`` for every value but a NaN (signed zeros,
infinities and subnormals included: a half is a normal float), and unlike a FLOAT16 Identity copy, which keeps a
kernel of its own to move a signalling NaN bit for bit, it fuses. A NaN comes out a NaN; arithmetic fixes no
payload (IEEE 754), so it is compared as a NaN."""


def neighbour(operand: Any, *, copy: bool = False) -> Any:
    """An Identity node on ``operand`` that fuses and keeps every value: a copy, or at FLOAT16
    EXACT_FLOAT16_NEIGHBOUR; with ``copy`` a copy at every type (bit for bit, a FLOAT16 one in a kernel of its
    own), for an operator that reads encodings, to which ``x * 1 + -0``'s NaN would be another value."""
    if operand.desc.data_type == dml.TensorDataType.FLOAT16 and not copy:
        return dml.graph.identity(operand, EXACT_FLOAT16_NEIGHBOUR)
    return dml.graph.identity(operand)


def assert_equal_nan_as_nan(got: Array, want: Array, message: str) -> None:
    """Bit for bit, except that where ``want`` is a NaN ``got`` may be any NaN."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind == "f":
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan), f"{message}: NaN where the operator alone has none, or the reverse"
        got, want = np.where(nan, want.dtype.type(0), got), np.where(nan, want.dtype.type(0), want)
    assert got.tobytes() == want.tobytes(), message


def keeps_its_own_kernel(row: OperatorRow, case: Case) -> bool:
    """Whether the operator cannot join a fused kernel (``fusion.fuses``): a FLOAT64 tensor (no register type), more
    tensors than a fused kernel binds (QUANTIZED_LINEAR_ADD with its three zero points binds 9), an operator that at
    this case's types acts on encodings only (``bits_expression`` and no ``expression``: a FLOAT16 Identity copy,
    ABS and NEGATE, the bit operators on floats, whose signalling NaNs a float register would not keep), or one that
    is not element-wise (the softmax family)."""
    return not fuses(descriptor(row, (1,), case.dtypes, **case.options))


def run_fused_chain(
    device: Any, desc: OperatorDescBase, arrays: list[Array], *, copies: bool = False
) -> tuple[Array, Any]:
    """neighbour -> ``desc`` -> neighbour as a graph on ``arrays`` (``desc``'s bound inputs, packed): the
    operator reads its InputTensor from a register and its result is stored by the node after it, in one kernel
    at every data type the operator fuses at (FLOAT16 included); neighbours that are ``copies`` at every type
    for an operator on encodings. The chain's output and the compiled graph."""
    chain = dml.Graph(device)
    operands = [None if getattr(desc, n) is None else chain.input(getattr(desc, n).desc) for n in desc.INPUTS]
    operands[0] = neighbour(operands[0], copy=copies)
    y = neighbour(chain.add_operator(desc, operands), copy=copies)
    (fused,), compiled = run_graph(device, chain.desc_for([y]), arrays)
    return fused, compiled


def assert_fused_equals_alone(row: OperatorRow, fused: Array, alone: Array, case: Case) -> None:
    """Bit for bit; a NaN as a NaN where a FLOAT16 neighbour computed on it (EXACT_FLOAT16_NEIGHBOUR) or where the
    operator's NaN is arithmetic's (``row.nan`` "any": Intel's compiler builds acos(281.25) as 0xffcc2000 alone
    and as 0xffc00000 between two copies, the numbers bit for bit the same)."""
    through_half = F16 in case.dtypes.values()
    message = "fused between two neighbours differs from the operator alone"
    assert_equals_alone(row, fused, alone, message, nan_as_nan=through_half)


def assert_equals_alone(row: OperatorRow, got: Array, alone: Array, message: str, *, nan_as_nan: bool) -> None:
    """``got`` (a graph's result) bit for bit as the operator alone computed it; a NaN as a NaN where
    ``nan_as_nan`` or where the operator's NaN is arithmetic's (``row.nan`` "any")."""
    if nan_as_nan or row.nan == "any":
        assert_equal_nan_as_nan(got, alone, message)
    else:
        assert got.tobytes() == alone.tobytes(), message


def run_on(device: Any, row: OperatorRow, case: Case, inputs: Mapping[str, Array]) -> tuple[Array, Array]:
    """``case`` of ``row`` on ``inputs`` (1-D arrays by field name, one length), one packed 1-D launch, the row's own
    program: what it wrote (no byte outside the output changed) and the row's reference for the same inputs."""
    size = next(iter(inputs.values())).size
    desc = descriptor(row, (size,), case.dtypes)
    run = run_operator(device, desc, {name: lambda n, v=values: v[:n] for name, values in inputs.items()})
    assert run.changed_outside == []
    return run.got, row.reference(dict(inputs), case)
