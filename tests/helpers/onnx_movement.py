"""ONNX's node tests of the movement op types that give a descriptor field (Slice's starts, Pad's pads, Split's
split, Tile's repeats) as a graph input: dmlpy takes those from initializers, fixed when the graph is built, so the
runner (tests/device/graph/test_onnx_backend.py) checks they are refused saying so, and
tests/device/graph/test_onnx_movement.py runs each again with those inputs as initializers."""

from __future__ import annotations

MOVEMENT_GIVEN_AS_INPUTS = (
    *(f"slice{form}" for form in ("", "_default_axes", "_default_steps", "_end_out_of_bounds", "_neg", "_neg_steps")),
    *(f"slice{form}" for form in ("_negative_axes", "_start_out_of_bounds")),
    *(f"{mode}_pad" for mode in ("constant", "edge", "reflect", "wrap")),
    "constant_pad_axes",
    "constant_pad_negative_axes",
    *(f"split_{form}_opset{opset}" for form in ("variable_parts_1d", "variable_parts_2d") for opset in (13, 18)),
    *(
        f"split_{form}_opset{opset}"
        for form in ("variable_parts_default_axis", "zero_size_splits")
        for opset in (13, 18)
    ),
    "tile",
    "tile_precomputed",
)
EMPTY_WITH_INITIALIZERS = (
    "slice_start_out_of_bounds",
    "split_zero_size_splits_opset13",
    "split_zero_size_splits_opset18",
)
"""Of those, the ones that are refused with their fields as initializers too: an output of 0 elements along an axis
(a start past the end, a part of 0), and DirectML has no empty tensors."""
