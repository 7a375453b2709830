"""ONNX's node tests of the view op types (dmlpy/onnx/views.py) that give a shape or axes as a graph input: dmlpy
takes those from initializers (a tensor's Sizes are fixed when the graph is built), so the runner
(tests/device/graph/test_onnx_backend.py) checks they are refused saying so, and tests/device/graph/test_onnx_views.py
runs each again with those inputs as initializers."""

from __future__ import annotations

VIEWS_GIVEN_AS_INPUTS = (
    "expand_dim_changed",
    "expand_dim_unchanged",
    *(
        f"reshape_{form}"
        for form in (
            "allowzero_reordered",
            "extended_dims",
            "negative_dim",
            "negative_extended_dims",
            "one_dim",
            "reduced_dims",
            "reordered_all_dims",
            "reordered_last_dims",
            "zero_and_negative_dim",
            "zero_dim",
        )
    ),
    "squeeze",
    "squeeze_negative_axes",
    *(f"unsqueeze_{form}" for form in ("axis_0", "axis_1", "axis_2", "negative_axes", "three_axes", "two_axes")),
    "unsqueeze_unsorted_axes",
)
EMPTY_VIEWS = ("reshape_allowzero_reordered",)
"""Of those, the ones refused with their shape as an initializer too: an output with a dimension of 0 (allowzero
keeps the 0), and DirectML has no empty tensors."""
