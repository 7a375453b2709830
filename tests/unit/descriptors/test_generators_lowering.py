"""The generators' lowering, without a device: FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX and
DIAGONAL_MATRIX1 plan one launch of opencl/generators.cl with their values as the output type's bits (a
DML_SCALAR_UNION's exactly, DIAGONAL_MATRIX's FLOAT by PADDING's rule), while RANDOM_GENERATOR still refuses."""

from __future__ import annotations

import pytest

import dmlpy as dml
from dmlpy.kernels.generators import sequence_kernel
from dmlpy.ops._typed_values import union_bits

T = dml.TensorDataType


def _tensor(data_type: dml.TensorDataType, sizes: tuple[int, ...]) -> dml.TensorDesc:
    return dml.TensorDesc(desc=dml.BufferTensorDesc(data_type=data_type, sizes=sizes))


def _step(desc: dml.ops.OperatorDescBase) -> tuple[dict[str, str], list[int]]:
    (step,) = desc.plan().steps
    assert step.lowered.kernel.source_name == "generators.cl"
    return dict(step.lowered.kernel.defines), [p.values[0] for p in step.lowered.parameters]


def test_a_constant_is_its_bits() -> None:
    nan = dml.ScalarUnion(bytes=(0x01, 0x7D, 0, 0, 0, 0, 0, 0))  # a signalling half NaN
    desc = dml.FillValueConstantOperatorDesc(
        output_tensor=_tensor(T.FLOAT16, (2, 3)), value_data_type=T.FLOAT16, value=nan
    )
    defines, parameters = _step(desc)
    assert (defines["ELEMENT_T"], defines["GENERATOR"], defines["PACKED"]) == ("ushort", "0", "1")
    assert parameters[0] == 0x7D01


def test_a_sequence_takes_its_arithmetic_from_the_type() -> None:
    def sequence(data_type: dml.TensorDataType, start: float, delta: float) -> dml.FillValueSequenceOperatorDesc:
        return dml.FillValueSequenceOperatorDesc(
            output_tensor=_tensor(data_type, (4,)),
            value_data_type=data_type,
            value_start=dml.ScalarUnion.of(start, data_type),
            value_delta=dml.ScalarUnion.of(delta, data_type),
        )

    assert _step(sequence(T.FLOAT32, -0.0, 0.5)) == (
        {"ELEMENT_T": "uint", "GENERATOR": "1", "TENSOR_COUNT": "1", "RANK": "1", "PACKED": "1", "SEQUENCE": "1",
         "GRID_STRIDE": "0", "ELEMENTS_PER_ITEM": "2048"},
        [0x80000000, 0x3F000000, 0, 0],
    )  # fmt: skip
    assert _step(sequence(T.FLOAT16, 1.0, 2.0))[0]["SEQUENCE"] == "2"
    assert _step(sequence(T.INT8, -1, -2))[1][:2] == [0xFF, 0xFE]
    with pytest.raises(dml.UnsupportedError, match=r"FILL_VALUE_SEQUENCE of FLOAT64: .* has no FLOAT64"):
        sequence_kernel(T.FLOAT64, (4,), (1,), 0, 0, dml.kernels.CPU_PROFILE)


def test_a_diagonal_keeps_its_dimensions_and_its_band() -> None:
    desc = dml.DiagonalMatrixOperatorDesc(output_tensor=_tensor(T.INT8, (1, 3, 4)), offset=-(2**31), value=-300.5)
    defines, parameters = _step(desc)
    assert (defines["RANK"], defines["TENSOR_COUNT"], defines["PACKED"]) == ("3", "1", "0")
    assert parameters == [0x80, 0, 2**64 - 2**31, 2**64 - 2**31 + 1]  # -128, the band [Offset, Offset + 1)
    given = dml.DiagonalMatrix1OperatorDesc(
        input_tensor=None,
        output_tensor=_tensor(T.UINT64, (3, 4)),
        value_data_type=T.UINT64,
        value=dml.ScalarUnion(uint64=2**64 - 1),
        diagonal_fill_begin=2,
        diagonal_fill_end=-1,
    )
    defines, parameters = _step(given)
    assert (defines["TENSOR_COUNT"], defines["HAS_INPUT"]) == ("2", "0")
    assert parameters == [2**64 - 1, 0, 2, 2**64 - 1]
    assert given.plan().steps[0].tensors == (None, dml.kernels.PlanRef("output", 0))


def test_a_union_is_read_bit_for_bit() -> None:
    signalling = dml.ScalarUnion(bytes=(0x23, 0x01, 0, 0, 0, 0, 0xF0, 0xFF))
    assert union_bits(signalling, T.FLOAT64, "X.Value", "ValueDataType") == 0xFFF0000000000123
    assert union_bits(dml.ScalarUnion(float64=-0.0), T.FLOAT64, "X.Value", "ValueDataType") == 2**63
    with pytest.raises(dml.InvalidArgumentError, match=r"X\.Value gives Int32; ValueDataType FLOAT32 reads"):
        union_bits(dml.ScalarUnion(int32=1), T.FLOAT32, "X.Value", "ValueDataType")


def test_random_generator_is_still_validated_only() -> None:
    state = _tensor(T.UINT32, (1, 1, 1, 6))
    desc = dml.RandomGeneratorOperatorDesc(
        input_state_tensor=state, output_tensor=_tensor(T.UINT32, (1, 1, 2, 4)), type="PHILOX_4X32_10"
    )
    assert not desc.runs()
    with pytest.raises(dml.UnsupportedError, match="dmlpy validates RANDOM_GENERATOR but does not run it yet"):
        desc.plan()
