"""The movement operators' cases, shared by their device tests and their Oclgrind script: each a descriptor built for
one data type and layout, its inputs by slot, and the expected outputs by slot from an independent reference (NumPy's
slicing, np.pad, np.tile, np.concatenate, np.split; onnx.reference for DepthToSpace and SpaceToDepth). Elements are
random bits of their width, so every float encoding (NaN payloads, -0, subnormals) must arrive unchanged."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
import onnx.reference
from onnx import helper

import dmlpy as dml
from tests.helpers.dtypes import NUMPY_DTYPE

T = dml.TensorDataType


@dataclass(frozen=True)
class MovementCase:
    """One dispatch: the descriptor, its inputs by slot, the expected outputs by slot, byte offsets by slot."""

    desc: Any
    inputs: dict[str, npt.NDArray[Any]]
    expected: dict[str, npt.NDArray[Any]]
    offsets: dict[str, int]


def tensor(data_type: Any, sizes: Sequence[int], strides: Sequence[int] | None = None) -> dml.TensorDesc:
    return dml.TensorDesc(desc=dml.BufferTensorDesc(data_type=data_type, sizes=tuple(sizes), strides=strides))


def random_bits(data_type: Any, sizes: Sequence[int], seed: int) -> npt.NDArray[Any]:
    """Random encodings of ``data_type`` in ``sizes``."""
    dtype = NUMPY_DTYPE[data_type]
    raw = np.random.default_rng(seed).integers(0, 256, size=int(np.prod(sizes)) * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(sizes)


def padded_strides(sizes: Sequence[int], gap: int) -> tuple[int, ...]:
    """Row-major strides with ``gap`` unused elements after each innermost row."""
    strides, step = [], 1
    for k, size in enumerate(reversed(sizes)):
        strides.append(step)
        step *= size + (gap if k == 0 else 0)
    return tuple(reversed(strides))


def onnx_depth_space(op_type: str, x: npt.NDArray[Any], block: int, mode: str | None) -> npt.NDArray[Any]:
    """ONNX's DepthToSpace or SpaceToDepth on ``x`` by onnx.reference (over the bits as unsigned integers)."""
    attributes: dict[str, Any] = {"blocksize": block} if mode is None else {"blocksize": block, "mode": mode}
    node = helper.make_node(op_type, ["x"], ["y"], **attributes)
    bits = x.view(f"u{x.dtype.itemsize}")
    element = helper.np_dtype_to_tensor_dtype(bits.dtype)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", element, bits.shape)],
        [helper.make_tensor_value_info("y", element, None)],
    )
    result = onnx.reference.ReferenceEvaluator(helper.make_model(graph)).run(None, {"x": bits})[0]
    return np.asarray(result).view(x.dtype)


def _integer_fill(value: float, dtype: np.dtype[Any]) -> Any:
    """PADDING's FLOAT PaddingValue in an integer tensor: truncated toward zero, saturated (dmlpy's documented rule)."""
    limits = np.iinfo(dtype)
    return dtype.type(0 if np.isnan(value) else np.clip(np.trunc(value), limits.min, limits.max))


def slice_case(data_type: Any, strided: bool) -> MovementCase:
    sizes = (3, 4, 5, 6)
    x = random_bits(data_type, sizes, 1)
    strides = padded_strides(sizes, 3) if strided else None
    desc = dml.SliceOperatorDesc(
        input_tensor=tensor(data_type, sizes, strides),
        output_tensor=tensor(data_type, (2, 2, 2, 3)),
        offsets=(1, 0, 1, 0),
        sizes=(2, 2, 2, 3),
        strides=(1, 3, 2, 2),
    )
    return MovementCase(desc, {"input_tensor": x}, {"output_tensor": x[1:3, 0:4:3, 1:5:2, 0:6:2]}, {})


def slice1_case(data_type: Any, strided: bool) -> MovementCase:
    """A window read forwards along two dimensions and backwards along two (movement.cl)."""
    sizes = (3, 4, 5, 6)
    x = random_bits(data_type, sizes, 2)
    output_strides = padded_strides((2, 2, 2, 3), 1) if strided else None
    desc = dml.Slice1OperatorDesc(
        input_tensor=tensor(data_type, sizes),
        output_tensor=tensor(data_type, (2, 2, 2, 3), output_strides),
        input_window_offsets=(0, 1, 1, 0),
        input_window_sizes=(3, 3, 4, 6),
        input_window_strides=(2, -2, 3, -2),
    )
    # Negative strides start at the window's end: 1 + 3 - 1 = 3 along dimension 1, 5 along dimension 3.
    expected = x[0:3:2, 3:0:-2, 1:5:3, 5::-2][:, :2, :2, :3]
    return MovementCase(desc, {"input_tensor": x}, {"output_tensor": expected}, {"output_tensor": 32})


def join_case(data_type: Any, strided: bool) -> MovementCase:
    sizes = [(2, 1, 3, 5), (2, 3, 3, 5), (2, 2, 3, 5)]
    parts = [random_bits(data_type, s, 10 + k) for k, s in enumerate(sizes)]
    output_strides = padded_strides((2, 6, 3, 5), 2) if strided else None
    desc = dml.JoinOperatorDesc(
        inputs=[
            tensor(data_type, s, padded_strides(s, 1) if strided and k == 1 else None) for k, s in enumerate(sizes)
        ],
        output_tensor=tensor(data_type, (2, 6, 3, 5), output_strides),
        axis=1,
    )
    inputs = {f"inputs[{k}]": part for k, part in enumerate(parts)}
    return MovementCase(desc, inputs, {"output_tensor": np.concatenate(parts, axis=1)}, {"inputs[1]": 16})


def split_case(data_type: Any, strided: bool) -> MovementCase:
    sizes = (2, 3, 7, 4)
    x = random_bits(data_type, sizes, 3)
    shares = (2, 4, 1)
    desc = dml.SplitOperatorDesc(
        input_tensor=tensor(data_type, sizes, padded_strides(sizes, 5) if strided else None),
        outputs=[tensor(data_type, (2, 3, share, 4)) for share in shares],
        axis=2,
    )
    expected = dict(zip(("outputs[0]", "outputs[1]", "outputs[2]"), np.split(x, [2, 6], axis=2), strict=True))
    return MovementCase(desc, {"input_tensor": x}, expected, {"input_tensor": 48})


PAD_MODES = {"CONSTANT": "constant", "EDGE": "edge", "REFLECTION": "reflect", "SYMMETRIC": "symmetric", "WRAP": "wrap"}
"""DML_PADDING_MODE's modes and np.pad's names for them."""


def padding_case(data_type: Any, strided: bool, mode: str = "REFLECTION", first: bool = False) -> MovementCase:
    """PADDING (``first``, a FLOAT PaddingValue) or PADDING1 (a typed one), padding wider than the input along one
    dimension (REFLECTION and SYMMETRIC fold again, as np.pad does)."""
    sizes = (2, 3, 4, 3)
    x = random_bits(data_type, sizes, 4)
    pads = ((1, 0), (0, 2), (2, 3), (4, 5))
    output_sizes = tuple(size + a + b for size, (a, b) in zip(sizes, pads, strict=True))
    dtype = NUMPY_DTYPE[data_type]
    value = -7.75
    fill = dtype.type(value) if dtype.kind == "f" else _integer_fill(value, dtype)
    common: dict[str, Any] = {
        "input_tensor": tensor(data_type, sizes, padded_strides(sizes, 2) if strided else None),
        "output_tensor": tensor(data_type, output_sizes),
        "padding_mode": mode,
        "start_padding": [a for a, _ in pads],
        "end_padding": [b for _, b in pads],
    }
    if first:
        desc = dml.PaddingOperatorDesc(**common, padding_value=value)
    else:
        union = dml.ScalarUnion.of(fill.item(), data_type)
        desc = dml.Padding1OperatorDesc(**common, padding_value_data_type=data_type, padding_value=union)
    keywords = {"constant_values": fill} if mode == "CONSTANT" else {}
    expected = np.pad(x, pads, mode=PAD_MODES[mode], **keywords)  # type: ignore[call-overload]
    return MovementCase(desc, {"input_tensor": x}, {"output_tensor": expected}, {})


def tile_case(data_type: Any, strided: bool) -> MovementCase:
    sizes = (2, 1, 3, 4)
    x = random_bits(data_type, sizes, 5)
    desc = dml.TileOperatorDesc(
        input_tensor=tensor(data_type, sizes, padded_strides(sizes, 1) if strided else None),
        output_tensor=tensor(data_type, (2, 3, 6, 4)),
        repeats=(1, 3, 2, 1),
    )
    return MovementCase(desc, {"input_tensor": x}, {"output_tensor": np.tile(x, (1, 3, 2, 1))}, {})


def depth_space_case(data_type: Any, strided: bool, to_depth: bool, order: str | None) -> MovementCase:
    """SPACE_TO_DEPTH or DEPTH_TO_SPACE, the *1 form with ``order`` (None: the first form)."""
    block = 2
    spatial, deep = (1, 3, 4, 6), (1, 12, 2, 3)
    sizes_in, sizes_out = (spatial, deep) if to_depth else (deep, spatial)
    x = random_bits(data_type, sizes_in, 6)
    common: dict[str, Any] = {
        "input_tensor": tensor(data_type, sizes_in, padded_strides(sizes_in, 3) if strided else None),
        "output_tensor": tensor(data_type, sizes_out),
        "block_size": block,
    }
    mode = None if order is None else {"DEPTH_COLUMN_ROW": "DCR", "COLUMN_ROW_DEPTH": "CRD"}[order]
    if to_depth:
        desc = (
            dml.SpaceToDepthOperatorDesc(**common)
            if order is None
            else dml.SpaceToDepth1OperatorDesc(**common, order=order)
        )
        expected = space_to_depth(x, block, mode or "DCR")
    else:
        desc = (
            dml.DepthToSpaceOperatorDesc(**common)
            if order is None
            else dml.DepthToSpace1OperatorDesc(**common, order=order)
        )
        expected = onnx_depth_space("DepthToSpace", x, block, mode)
    return MovementCase(desc, {"input_tensor": x}, {"output_tensor": expected}, {})


def space_to_depth(x: npt.NDArray[Any], block: int, mode: str) -> npt.NDArray[Any]:
    """SpaceToDepth in either order: ONNX's SpaceToDepth has no mode (DCR), so CRD is DepthToSpace CRD inverted,
    found by running onnx.reference's DepthToSpace over the output's element indices."""
    if mode == "DCR":
        return onnx_depth_space("SpaceToDepth", x, block, None)
    n, c, h, w = x.shape
    positions = np.arange(x.size, dtype=np.uint32).reshape(n, c * block * block, h // block, w // block)
    placed = onnx_depth_space("DepthToSpace", positions, block, "CRD")
    result = np.empty(positions.size, dtype=x.dtype)
    result[placed.reshape(-1)] = x.reshape(-1)
    return result.reshape(positions.shape)


def rows_depth_space_case(data_type: Any, strided: bool, to_depth: bool, order: str | None, block: int) -> MovementCase:
    """SPACE_TO_DEPTH(1) or DEPTH_TO_SPACE(1) (``order`` None: the first form) of more groups of ``block`` than one
    work-item of block_copy.cl copies (4096 / ``block``), rows not a multiple of its share: work-items end mid-row."""
    spatial = (1, 2, 3 * block, 241 * block)
    deep = (1, 2 * block * block, 3, 241)
    sizes_in, sizes_out = (spatial, deep) if to_depth else (deep, spatial)
    x = random_bits(data_type, sizes_in, 20 + block)
    common: dict[str, Any] = {
        "input_tensor": tensor(data_type, sizes_in, padded_strides(sizes_in, 2) if strided else None),
        "output_tensor": tensor(data_type, sizes_out),
        "block_size": block,
    }
    mode = None if order is None else {"DEPTH_COLUMN_ROW": "DCR", "COLUMN_ROW_DEPTH": "CRD"}[order]
    order_field = {} if order is None else {"order": order}
    if to_depth:
        kind = dml.SpaceToDepthOperatorDesc if order is None else dml.SpaceToDepth1OperatorDesc
        expected = space_to_depth(x, block, mode or "DCR")
    else:
        kind = dml.DepthToSpaceOperatorDesc if order is None else dml.DepthToSpace1OperatorDesc
        expected = onnx_depth_space("DepthToSpace", x, block, mode)
    offsets = {"input_tensor": 32} if strided else {}
    return MovementCase(kind(**common, **order_field), {"input_tensor": x}, {"output_tensor": expected}, offsets)


def rows_join_case(data_type: Any, strided: bool, shares: Sequence[int] = (4, 1, 5)) -> MovementCase:
    """JOIN along axis 2 of parts (2, 40, share, 7): 80 rows of sum(shares) * 7 elements, several work-items of
    join_rows.cl; ``strided`` pads the outer dimensions of the output and of part 1 (their rows stay packed)."""
    sizes = [(2, 40, share, 7) for share in shares]
    whole = (2, 40, sum(shares), 7)

    def outer_padded(shape: tuple[int, ...]) -> tuple[int, ...]:
        row = shape[2] * 7 + 3
        return (shape[1] * row + 5, row, 7, 1)

    parts = [random_bits(data_type, s, 30 + k) for k, s in enumerate(sizes)]
    desc = dml.JoinOperatorDesc(
        inputs=[tensor(data_type, s, outer_padded(s) if strided and k == 1 else None) for k, s in enumerate(sizes)],
        output_tensor=tensor(data_type, whole, outer_padded(whole) if strided else None),
        axis=2,
    )
    inputs = {f"inputs[{k}]": part for k, part in enumerate(parts)}
    offsets = {"inputs[1]": 48} if strided else {}
    return MovementCase(desc, inputs, {"output_tensor": np.concatenate(parts, axis=2)}, offsets)


def rows_slice1_case(data_type: Any, strided: bool) -> MovementCase:
    """SLICE1 reading rows of 35 backwards (movement.cl's reversed spans, several vectors long)."""
    sizes = (3, 5, 37)
    x = random_bits(data_type, sizes, 40)
    desc = dml.Slice1OperatorDesc(
        input_tensor=tensor(data_type, sizes, padded_strides(sizes, 3) if strided else None),
        output_tensor=tensor(data_type, (3, 4, 35)),
        input_window_offsets=(0, 1, 2),
        input_window_sizes=(3, 4, 35),
        input_window_strides=(1, 1, -1),
    )
    offsets = {"input_tensor": 32} if strided else {}
    return MovementCase(desc, {"input_tensor": x}, {"output_tensor": x[:, 1:5, 2:37][..., ::-1]}, offsets)


def rows_tile_case(data_type: Any, strided: bool) -> MovementCase:
    """TILE of rows of 37 twice along them (movement.cl's forward spans, several vectors long)."""
    sizes = (2, 3, 37)
    x = random_bits(data_type, sizes, 41)
    desc = dml.TileOperatorDesc(
        input_tensor=tensor(data_type, sizes, padded_strides(sizes, 3) if strided else None),
        output_tensor=tensor(data_type, (2, 6, 74)),
        repeats=(1, 2, 2),
    )
    offsets = {"input_tensor": 32} if strided else {}
    return MovementCase(desc, {"input_tensor": x}, {"output_tensor": np.tile(x, (1, 2, 2))}, offsets)


CASES: dict[str, Callable[[Any, bool], MovementCase]] = {
    "SLICE": slice_case,
    "SLICE1": slice1_case,
    "JOIN": join_case,
    "SPLIT": split_case,
    "PADDING": lambda t, s: padding_case(t, s, "CONSTANT", first=True),
    "PADDING1": padding_case,
    "TILE": tile_case,
    "SPACE_TO_DEPTH": lambda t, s: depth_space_case(t, s, True, None),
    "DEPTH_TO_SPACE": lambda t, s: depth_space_case(t, s, False, None),
    "SPACE_TO_DEPTH1": lambda t, s: depth_space_case(t, s, True, "COLUMN_ROW_DEPTH"),
    "DEPTH_TO_SPACE1": lambda t, s: depth_space_case(t, s, False, "COLUMN_ROW_DEPTH"),
}
"""Each running movement operator's case builder: (data type, strided) -> a case."""


def table_types(desc_class: Any) -> list[Any]:
    """The data types the operator's support table takes at its highest level, for its first tensor."""
    row = desc_class.SUPPORT.rows[-1]
    first = next(iter(row.data_types.values()))
    return sorted(first, key=int)
