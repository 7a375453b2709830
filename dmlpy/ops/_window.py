"""The forward window arithmetic that pooling, convolution and UNFOLD/FOLD share: how many positions a window of
``window`` elements, ``dilation`` apart, takes along a padded dimension at ``stride`` steps."""

from __future__ import annotations


def window_output_size(size: int, start: int, end: int, window: int, stride: int, dilation: int = 1) -> int:
    """The output's length along one spatial dimension: floor((size + start + end - (window - 1) * dilation - 1) /
    stride) + 1. Negative or 0 where the dilated window is longer than the padded input; a stride of 0 is read as 1
    (the operators' rules refuse both first)."""
    return (size + start + end - (window - 1) * dilation - 1) // max(stride, 1) + 1
