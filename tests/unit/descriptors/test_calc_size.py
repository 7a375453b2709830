"""dml.calc_buffer_tensor_size: DMLCalcBufferTensorSize (directml-spec.md §3) in exact integers.

Every expectation is worked out by hand in the comment next to it.
"""

from __future__ import annotations

import pytest

import dmlpy as dml

T = dml.TensorDataType

PACKED = [
    # (data type, sizes, expected bytes)   arithmetic
    pytest.param(T.FLOAT32, (1, 2, 3, 4), 96, id="float32-1x2x3x4"),  # 24 elements * 4 B = 96
    pytest.param(T.FLOAT32, (7,), 28, id="float32-7"),  # 7 * 4 = 28
    pytest.param(T.FLOAT16, (1, 2, 3, 4), 48, id="float16-1x2x3x4"),  # 24 * 2 = 48
    pytest.param(T.FLOAT16, (3,), 8, id="float16-3-rounds-6-to-8"),  # 3 * 2 = 6 -> round up to 8
    pytest.param(T.FLOAT16, (1,), 4, id="float16-1-rounds-2-to-4"),  # 2 -> 4
    pytest.param(T.FLOAT16, (1, 1, 1, 5), 12, id="float16-5-rounds-10-to-12"),  # 10 -> 12
    pytest.param(T.UINT16, (3,), 8, id="uint16-3"),  # 6 -> 8
    pytest.param(T.INT16, (2,), 4, id="int16-2"),  # 4
    pytest.param(T.UINT8, (5,), 8, id="uint8-5-rounds-to-8"),  # 5 -> 8
    pytest.param(T.INT8, (4,), 4, id="int8-4"),  # 4
    pytest.param(T.INT8, (1,), 4, id="int8-1-rounds-to-4"),  # 1 -> 4
    pytest.param(T.UINT32, (3,), 12, id="uint32-3"),  # 12
    pytest.param(T.INT32, (5,), 20, id="int32-5"),  # 20
    pytest.param(T.FLOAT64, (3,), 24, id="float64-3"),  # 3 * 8 = 24
    pytest.param(T.UINT64, (1,), 8, id="uint64-1"),  # 8
    pytest.param(T.INT64, (2, 3), 48, id="int64-2x3"),  # 6 * 8 = 48
    # 4-bit types count in bits (DirectMLX): ceil(bits / 8), then round up to 4.
    pytest.param(T.UINT4, (1,), 4, id="uint4-1"),  # 4 bits -> 1 B -> 4
    pytest.param(T.UINT4, (5,), 4, id="uint4-5"),  # 20 bits -> 3 B -> 4
    pytest.param(T.INT4, (8,), 4, id="int4-8"),  # 32 bits -> 4 B -> 4
    pytest.param(T.INT4, (9,), 8, id="int4-9"),  # 36 bits -> 5 B -> 8
    pytest.param(T.UINT4, (16,), 8, id="uint4-16"),  # 64 bits -> 8 B -> 8
    pytest.param(T.UINT4, (17,), 12, id="uint4-17"),  # 68 bits -> 9 B -> 12
    pytest.param(T.INT4, (1, 2, 3, 4), 12, id="int4-1x2x3x4"),  # 24 * 4 = 96 bits -> 12 B -> 12
    # UNKNOWN is never valid: the helper returns 0.
    pytest.param(T.UNKNOWN, (1, 2, 3, 4), 0, id="unknown-is-0"),
    # Exact integers, no 32-bit overflow.
    pytest.param(T.FLOAT32, (65536, 65536), 17179869184, id="float32-65536x65536-is-2^34"),  # 2^32 * 4 = 2^34
    pytest.param(
        T.FLOAT64, (4294967295, 4294967295), 147573952520956936200, id="float64-uint32max-squared"
    ),  # (2^32-1)^2 * 8 = 18446744065119617025 * 8
    pytest.param(T.UINT8, (65536, 65536, 2), 8589934592, id="uint8-2^33"),  # 2^16 * 2^16 * 2 * 1 = 2^33
]


@pytest.mark.parametrize(("data_type", "sizes", "expected"), PACKED)
def test_packed(data_type: dml.TensorDataType, sizes: tuple[int, ...], expected: int) -> None:
    assert dml.calc_buffer_tensor_size(data_type, sizes) == expected
    assert dml.calc_buffer_tensor_size(data_type, sizes, None) == expected


STRIDED = [
    # (data type, sizes, strides, expected)   arithmetic: last = sum((size - 1) * stride); (last + 1) * element size
    pytest.param(T.FLOAT32, (1, 2, 3, 4), (24, 12, 4, 1), 96, id="explicit-packed"),  # 0+12+8+3=23 -> 24*4=96
    pytest.param(T.FLOAT32, (2, 3), (4, 1), 28, id="row-padding"),  # 1*4+2*1=6 -> 7*4=28
    pytest.param(T.FLOAT16, (2, 3), (4, 1), 16, id="row-padding-float16"),  # 7*2=14 -> 16
    pytest.param(T.FLOAT32, (2, 3), (1, 2), 24, id="permuted"),  # 1*1+2*2=5 -> 6*4=24
    pytest.param(T.FLOAT32, (2, 3), (0, 1), 12, id="broadcast-rows"),  # 0+2=2 -> 3*4=12
    pytest.param(T.FLOAT32, (4, 5), (0, 0), 4, id="broadcast-scalar"),  # 0 -> 1*4=4
    pytest.param(T.FLOAT16, (1, 3, 1, 1), (0, 1, 0, 0), 8, id="broadcast-channels-float16"),  # 2 -> 3*2=6 -> 8
    pytest.param(T.UINT8, (2, 2), (3, 1), 8, id="uint8-padded"),  # 3+1=4 -> 5*1=5 -> 8
    pytest.param(T.UINT4, (2, 3), (4, 1), 4, id="uint4-strided"),  # 6 -> 7 elements * 4 bits = 28 bits -> 4 B
    pytest.param(T.UNKNOWN, (2, 3), (4, 1), 0, id="unknown-strided-is-0"),
    pytest.param(
        T.FLOAT32, (65536, 65536), (131072, 1), 34359476224, id="huge-padded"
    ),  # 65535*131072 + 65535 = 8589869055 -> 8589869056 * 4
    pytest.param(
        T.FLOAT32, (4294967295,), (4294967295,), 73786976243298598924, id="huge-stride-no-32bit-wrap"
    ),  # (2^32-2)*(2^32-1) + 1 = 18446744060824649731 -> *4
]


@pytest.mark.parametrize(("data_type", "sizes", "strides", "expected"), STRIDED)
def test_strided(
    data_type: dml.TensorDataType, sizes: tuple[int, ...], strides: tuple[int, ...], expected: int
) -> None:
    assert dml.calc_buffer_tensor_size(data_type, sizes, strides) == expected


@pytest.mark.parametrize("data_type", [T.FLOAT16, "FLOAT16", "DML_TENSOR_DATA_TYPE_FLOAT16", 2], ids=str)
def test_data_type_in_any_spelling(data_type: object) -> None:
    assert dml.calc_buffer_tensor_size(data_type, (3,)) == 8  # type: ignore[arg-type]  # 3 halves = 6 -> 8


def test_result_is_always_a_multiple_of_four() -> None:
    # Sizes 1..9 of UINT8: 1..9 bytes, each rounded up to 4 or 8 or 12.
    assert [dml.calc_buffer_tensor_size(T.UINT8, (n,)) for n in range(1, 10)] == [4, 4, 4, 4, 8, 8, 8, 8, 12]


def test_result_is_a_python_int() -> None:
    assert type(dml.calc_buffer_tensor_size(T.FLOAT32, (65536, 65536))) is int


def test_strides_count_mismatch_is_refused() -> None:
    with pytest.raises(dml.InvalidArgumentError, match="Strides has 1 entries but Sizes has 2"):
        dml.calc_buffer_tensor_size(T.FLOAT32, (2, 3), (1,))


def test_bad_data_type_name_is_refused() -> None:
    with pytest.raises(ValueError):
        dml.calc_buffer_tensor_size("FLOAT128", (2,))  # type: ignore[arg-type]


def test_model_default_total_matches_hand_computed_size() -> None:
    # The descriptor's default TotalTensorSizeInBytes is DMLCalcBufferTensorSize.
    assert dml.BufferTensorDesc(data_type=T.FLOAT16, sizes=(3,)).total_tensor_size_in_bytes == 8  # 6 -> 8
    assert dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(2, 3), strides=(4, 1)).total_tensor_size_in_bytes == 28
    assert dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(65536, 65536)).total_tensor_size_in_bytes == 2**34


@pytest.mark.parametrize(
    ("sizes", "strides"),
    [((-2,), None), ((2, 3), (-4, 1))],
    ids=["negative-size", "negative-stride"],
)
def test_negative_sizes_or_strides_are_refused(sizes: tuple[int, ...], strides: tuple[int, ...] | None) -> None:
    # DMLCalcBufferTensorSize takes UINT sizes and strides; a negative value is not a tensor (it once gave -8
    # and -4 here, negative byte counts).
    with pytest.raises(ValueError):
        dml.calc_buffer_tensor_size(T.FLOAT32, sizes, strides)
