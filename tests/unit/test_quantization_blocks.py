"""dmlpy.quantization_blocks, the one shape helper of blocked quantization, against NumPy: the split views it
describes (as_strided over the same memory) hold the input's elements as NumPy's reshape does, and the scale
repeated over its blocks as NumPy's repeat does; ONNX's form becomes runs that cover the axis block by block."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from dmlpy.quantization_blocks import block_split, onnx_block_runs

CASES = [
    pytest.param((6, 8), (3, 2), (3, 2, 2, 4), (0, 1), id="two-axes"),
    pytest.param((4, 6, 10), (1, 3, 10), (4, 3, 2, 10), (1,), id="broadcast-blocks-per-element"),
    pytest.param((5, 12), (5, 12), (5, 12), (), id="per-element"),
    pytest.param((5, 12), (1, 1), (5, 12), (), id="broadcast"),
    pytest.param((1, 9), (1, 3), (1, 3, 3), (1,), id="size-one-axis"),
    pytest.param((2, 1, 3, 1, 2, 1, 8), (2, 1, 1, 1, 1, 1, 2), (2, 1, 3, 1, 2, 1, 2, 4), (6,), id="eight-dims"),
]


def _repeated(scale: npt.NDArray[Any], shape: tuple[int, ...]) -> npt.NDArray[Any]:
    for axis, (length, count) in enumerate(zip(shape, scale.shape, strict=True)):
        if count not in (1, length):
            scale = np.repeat(scale, length // count, axis=axis)
    return np.broadcast_to(scale, shape)


@pytest.mark.parametrize(("shape", "scale_shape", "sizes", "blocked"), CASES)
def test_split_views_hold_reshaped_input_and_repeated_scale(
    shape: tuple[int, ...], scale_shape: tuple[int, ...], sizes: tuple[int, ...], blocked: tuple[int, ...]
) -> None:
    split = block_split(shape, scale_shape)
    assert split.sizes == sizes and split.blocked == blocked
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    view = np.lib.stride_tricks.as_strided(x, split.sizes, split.input_strides(x.strides))
    np.testing.assert_array_equal(view, x.reshape(sizes))
    # In elements as in bytes: the split is linear in the strides.
    element_strides = tuple(s // x.itemsize for s in x.strides)
    assert tuple(s * x.itemsize for s in split.input_strides(element_strides)) == view.strides
    scale = np.arange(1, int(np.prod(scale_shape)) + 1, dtype=np.int64).reshape(scale_shape)
    scale_view = np.lib.stride_tricks.as_strided(scale, split.sizes, [s * 8 for s in split.scale_strides])
    np.testing.assert_array_equal(scale_view.reshape(shape), _repeated(scale, shape))


def test_a_non_contiguous_input_splits_where_it_lies() -> None:
    base = np.arange(240, dtype=np.float32).reshape(12, 20)
    x = base.T[::2]  # (10, 12), strides (8, 80) bytes
    split = block_split(x.shape, (5, 3))
    view = np.lib.stride_tricks.as_strided(x, split.sizes, split.input_strides(x.strides))
    assert np.shares_memory(view, base)
    np.testing.assert_array_equal(view, x.copy().reshape(split.sizes))


@pytest.mark.parametrize(
    ("shape", "scale_shape", "match"),
    [
        (
            (4, 6),
            (4, 4),
            r"scale has 4 entries along axis 1, where the input \(shape \(4, 6\)\) has 6: every dimension "
            r"of the scale must be 1, the input's own, or a divisor of it .* one of \[1, 2, 3, 6\] entries",
        ),
        ((4, 6), (8, 6), r"scale has 8 entries along axis 0, .* one of \[1, 2, 4\] entries"),
        ((4, 6), (4,), r"scale has shape \(4,\), 1 dimensions, for an input of shape \(4, 6\)"),
        ((0, 6), (2, 6), r"scale has 2 entries along axis 0, .* one of \[0, 1\] entries"),
    ],
)
def test_shapes_no_block_describes_are_refused(
    shape: tuple[int, ...], scale_shape: tuple[int, ...], match: str
) -> None:
    with pytest.raises(dml.InvalidArgumentError, match=match):
        block_split(shape, scale_shape)


def test_more_than_eight_split_dimensions_are_refused_naming_the_count() -> None:
    with pytest.raises(dml.InvalidArgumentError, match=r"splits it into 9 dimensions .* take at most 8") as error:
        block_split((2, 2, 2, 2, 2, 2, 2, 4), (2, 2, 2, 2, 2, 2, 2, 2), "zero_point")
    assert isinstance(error.value, dml.DmlError)
    assert str(error.value).startswith("zero_point of shape (2, 2, 2, 2, 2, 2, 2, 2) blocks axes [7]")


@pytest.mark.parametrize(
    ("length", "block_size", "runs"),
    [
        (12, 4, [((0, 12), (0, 3))]),
        (10, 4, [((0, 8), (0, 2)), ((8, 10), (2, 3))]),
        (3, 4, [((0, 3), (0, 1))]),
        (0, 4, []),
    ],
)
def test_onnx_form_becomes_whole_blocks_then_the_partial_one(
    length: int, block_size: int, runs: list[tuple[tuple[int, int], tuple[int, int]]]
) -> None:
    scale_blocks = -(-length // block_size)
    along, planned = onnx_block_runs((5, length), (5, scale_blocks), -1, block_size)
    assert along == 1
    assert [
        ((r.input_range.start, r.input_range.stop), (r.scale_range.start, r.scale_range.stop)) for r in planned
    ] == runs
    # Each run is WebNN's form: its scale blocks its input exactly (the partial block: one scale, broadcast).
    for run in planned:
        split = block_split((5, len(run.input_range)), (5, len(run.scale_range)))
        assert int(np.prod(split.sizes)) == 5 * len(run.input_range)


def test_onnx_form_refusals() -> None:
    with pytest.raises(
        dml.InvalidArgumentError,
        match=r"must have shape \(3, 3\): the input's \(3, 10\) but "
        r"ceil\(10 / 4\) = 3 along axis 1",
    ):
        onnx_block_runs((3, 10), (3, 2), 1, 4)
    with pytest.raises(dml.InvalidArgumentError, match="axis 2 is out of range"):
        onnx_block_runs((3, 10), (3, 3), 2, 4)
    with pytest.raises(dml.InvalidArgumentError, match="block_size is 0"):
        onnx_block_runs((3, 10), (3, 3), 1, 0)
