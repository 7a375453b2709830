"""The movement benchmark's cases (benchmarks/bench_movement.py): each a descriptor builder, its inputs, NumPy's
result and NumPy's own call into preallocated arrays, and the ONNX node that does the same. ``cases`` are the
default run's; ``extra_cases`` (``--extra``) add the layouts the row kernels took over later: SPACE_TO_DEPTH, JOIN
along H, TILE along W."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

FILL = -7.75
"""PADDING CONSTANT's value."""

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Case:
    """One movement: its descriptor's builder, the inputs, NumPy's result and NumPy's preallocated call, and the
    ONNX node (operator, attributes, constant inputs by name) that does the same."""

    name: str
    desc: Callable[[Any], Any]
    inputs: list[np.ndarray]
    expected: list[np.ndarray]
    numpy_call: Callable[[], object]
    onnx: tuple[str, dict[str, Any], dict[str, np.ndarray]]
    read_elements: int


def tensor(dml: Any, sizes: Shape) -> Any:
    return dml.TensorDesc(desc=dml.BufferTensorDesc(data_type="FLOAT32", sizes=tuple(sizes)))


def data(shape: Shape, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


def halves(shape: Shape, axis: int) -> Shape:
    return tuple(size // 2 if k == axis else size for k, size in enumerate(shape))


def onnx_slice(shape: Shape, starts: Shape, ends: Shape, steps: Shape) -> tuple[str, dict[str, Any], dict[str, Any]]:
    axes = np.arange(len(shape), dtype=np.int64)
    named = (("starts", starts), ("ends", ends), ("axes", axes), ("steps", steps))  # Slice's inputs in order
    return "Slice", {}, {name: np.array(v, np.int64) for name, v in named}


def slice_rows(shape: Shape) -> Case:
    x = data(shape, 1)
    out_shape = halves(shape, 2)
    out = np.empty(out_shape, np.float32)

    def desc(dml: Any) -> Any:
        return dml.SliceOperatorDesc(
            input_tensor=tensor(dml, shape),
            output_tensor=tensor(dml, out_shape),
            offsets=(0, 0, 0, 0),
            sizes=out_shape,
            strides=(1, 1, 2, 1),
        )

    onnx = onnx_slice(shape, (0, 0, 0, 0), shape, (1, 1, 2, 1))
    return Case("SLICE rows ::2", desc, [x], [x[:, :, ::2]], lambda: np.copyto(out, x[:, :, ::2]), onnx, out.size)


def slice1_reversed(shape: Shape) -> Case:
    x = data(shape, 2)
    out = np.empty(shape, np.float32)

    def desc(dml: Any) -> Any:
        return dml.Slice1OperatorDesc(
            input_tensor=tensor(dml, shape),
            output_tensor=tensor(dml, shape),
            input_window_offsets=(0, 0, 0, 0),
            input_window_sizes=shape,
            input_window_strides=(1, 1, 1, -1),
        )

    big = np.iinfo(np.int64).min  # ONNX: an end below -size runs a negative step to the axis's start
    onnx = onnx_slice(shape, (0, 0, 0, -1), (*shape[:3], big), (1, 1, 1, -1))
    return Case("SLICE1 W reversed", desc, [x], [x[..., ::-1]], lambda: np.copyto(out, x[..., ::-1]), onnx, x.size)


def join(shape: Shape, axis: int) -> Case:
    parts = [data(halves(shape, axis), 10 + k) for k in range(2)]
    out = np.empty(shape, np.float32)

    def desc(dml: Any) -> Any:
        inputs = [tensor(dml, part.shape) for part in parts]
        return dml.JoinOperatorDesc(inputs=inputs, output_tensor=tensor(dml, shape), axis=axis)

    return Case(
        f"JOIN 2 along {'CHW'[axis - 1]}",
        desc,
        parts,
        [np.concatenate(parts, axis=axis)],
        lambda: np.concatenate(parts, axis=axis, out=out),
        ("Concat", {"axis": axis}, {}),
        out.size,
    )


def split(shape: Shape) -> Case:
    x = data(shape, 3)
    half = halves(shape, 1)
    outs = [np.empty(half, np.float32) for _ in range(2)]
    c = half[1]

    def desc(dml: Any) -> Any:
        return dml.SplitOperatorDesc(input_tensor=tensor(dml, shape), outputs=[tensor(dml, half)] * 2, axis=1)

    def numpy_call() -> None:
        np.copyto(outs[0], x[:, :c])
        np.copyto(outs[1], x[:, c:])

    onnx = ("Split", {"axis": 1}, {"split": np.array([c, c], np.int64)})
    return Case("SPLIT 2 along C", desc, [x], [x[:, :c], x[:, c:]], numpy_call, onnx, x.size)


def padding(shape: Shape, mode: str) -> Case:
    inner = (*shape[:2], shape[2] - 2, shape[3] - 2)
    x = data(inner, 4)
    pads = ((0, 0), (0, 0), (1, 1), (1, 1))
    numpy_mode = {"CONSTANT": "constant", "REFLECTION": "reflect"}[mode]
    keywords: dict[str, Any] = {"constant_values": np.float32(FILL)} if mode == "CONSTANT" else {}

    def desc(dml: Any) -> Any:
        return dml.PaddingOperatorDesc(
            input_tensor=tensor(dml, inner),
            output_tensor=tensor(dml, shape),
            padding_mode=mode,
            padding_value=FILL,
            start_padding=(0, 0, 1, 1),
            end_padding=(0, 0, 1, 1),
        )

    expected = np.pad(x, pads, mode=numpy_mode, **keywords)  # type: ignore[call-overload]
    constants = {"pads": np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64)}
    if mode == "CONSTANT":
        constants["constant_value"] = np.array(FILL, np.float32)
    onnx = ("Pad", {"mode": "constant" if mode == "CONSTANT" else "reflect"}, constants)
    numpy_call = lambda: np.pad(x, pads, mode=numpy_mode, **keywords)  # noqa: E731
    return Case(f"PADDING {mode}", desc, [x], [expected], numpy_call, onnx, x.size)


def tile(shape: Shape) -> Case:
    x = data(halves(shape, 1), 5)
    out = np.empty(shape, np.float32)
    as_tiles = out.reshape(shape[0], 2, *x.shape[1:])  # np.tile(x, (1, 2, 1, 1)) into ``out``: a broadcast copy

    def desc(dml: Any) -> Any:
        return dml.TileOperatorDesc(
            input_tensor=tensor(dml, x.shape), output_tensor=tensor(dml, shape), repeats=(1, 2, 1, 1)
        )

    onnx = ("Tile", {}, {"repeats": np.array([1, 2, 1, 1], np.int64)})
    numpy_call = lambda: np.copyto(as_tiles, x[:, None])  # noqa: E731
    return Case("TILE x2 along C", desc, [x], [np.tile(x, (1, 2, 1, 1))], numpy_call, onnx, x.size)


def depth_to_space(shape: Shape) -> Case:
    n, c, h, w = shape
    b = 2
    x = data((n, c * b * b, h // b, w // b), 6)
    out = np.empty(shape, np.float32)
    # ONNX's DCR: the depth splits as (block row, block column, channel).
    moved = x.reshape(n, b, b, c, h // b, w // b).transpose(0, 3, 4, 1, 5, 2)
    target = out.reshape(n, c, h // b, b, w // b, b)

    def desc(dml: Any) -> Any:
        return dml.DepthToSpaceOperatorDesc(
            input_tensor=tensor(dml, x.shape), output_tensor=tensor(dml, shape), block_size=b
        )

    onnx = ("DepthToSpace", {"blocksize": b, "mode": "DCR"}, {})
    expected = moved.reshape(shape)
    return Case("DEPTH_TO_SPACE 2", desc, [x], [expected], lambda: np.copyto(target, moved), onnx, x.size)


def cases(shape: Shape) -> list[Case]:
    return [
        slice_rows(shape),
        slice1_reversed(shape),
        join(shape, 1),
        join(shape, 3),
        split(shape),
        padding(shape, "CONSTANT"),
        padding(shape, "REFLECTION"),
        tile(shape),
        depth_to_space(shape),
    ]


def space_to_depth(shape: Shape) -> Case:
    n, c, h, w = shape
    b = 2
    x = data((n, c // (b * b), h * b, w * b), 7)
    out = np.empty(shape, np.float32)
    # ONNX's SpaceToDepth (DCR): the depth takes (block row, block column, channel).
    moved = x.reshape(n, c // (b * b), h, b, w, b).transpose(0, 3, 5, 1, 2, 4)
    target = out.reshape(n, b, b, c // (b * b), h, w)

    def desc(dml: Any) -> Any:
        return dml.SpaceToDepthOperatorDesc(
            input_tensor=tensor(dml, x.shape), output_tensor=tensor(dml, shape), block_size=b
        )

    onnx = ("SpaceToDepth", {"blocksize": b}, {})
    return Case("SPACE_TO_DEPTH 2", desc, [x], [moved.reshape(shape)], lambda: np.copyto(target, moved), onnx, x.size)


def tile_w(shape: Shape) -> Case:
    x = data(halves(shape, 3), 8)
    out = np.empty(shape, np.float32)
    as_tiles = out.reshape(*shape[:3], 2, shape[3] // 2)

    def desc(dml: Any) -> Any:
        return dml.TileOperatorDesc(
            input_tensor=tensor(dml, x.shape), output_tensor=tensor(dml, shape), repeats=(1, 1, 1, 2)
        )

    onnx = ("Tile", {}, {"repeats": np.array([1, 1, 1, 2], np.int64)})
    numpy_call = lambda: np.copyto(as_tiles, x[:, :, :, None])  # noqa: E731
    return Case("TILE x2 along W", desc, [x], [np.tile(x, (1, 1, 1, 2))], numpy_call, onnx, x.size)


def extra_cases(shape: Shape) -> list[Case]:
    return [space_to_depth(shape), join(shape, 2), tile_w(shape)]
