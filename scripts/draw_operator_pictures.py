"""Draw the operator pages' pictures (docs/images/operators/*.svg): what a GEMM, a CONVOLUTION, a REDUCE, a JOIN and
a SPLIT descriptor mean (``desc.drawn_shape()``, the part of ``desc.picture()`` above the tensors), for the examples
below. No OpenCL device is needed.

    python scripts/draw_operator_pictures.py          # rewrite docs/images/operators
    python scripts/draw_operator_pictures.py --check  # exit 1 if any picture there differs from what dmlpy draws now

tests/unit/pictures/test_operator_images.py runs the check, so the pictures never go stale. (They live in a folder
of their own: every docs/images/*.svg is a tour picture, scripts/draw_pictures.py's.)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import dmlpy as dml
from dmlpy.drawing import Picture, stacked
from dmlpy.ops._base import OperatorDescBase

sys.path.insert(0, str(Path(__file__).resolve().parent))
from draw_pictures import ROOT, main  # a sibling script, not a package

IMAGES = ROOT / "docs" / "images" / "operators"
F32 = {"DataType": "FLOAT32"}


def _tensor(*sizes: int) -> dict[str, Any]:
    return {**F32, "Sizes": list(sizes)}


def descriptors() -> dict[str, OperatorDescBase]:
    """The pages' examples: a batched GEMM with A transposed and a C; ONNX's Conv example with padding 1, stride 2
    and a dilation along the width; a SUM over two axes; a JOIN of three parts and the SPLIT back."""
    gemm = dml.GemmOperatorDesc.model_validate(
        {"ATensor": _tensor(2, 1, 3, 4), "BTensor": _tensor(2, 1, 3, 5), "CTensor": _tensor(2, 1, 4, 5),
         "OutputTensor": _tensor(2, 1, 4, 5), "TransA": "TRANSPOSE", "TransB": "NONE", "Alpha": 1.0, "Beta": 1.0}
    )  # fmt: skip
    convolution = dml.ConvolutionOperatorDesc.model_validate(
        {"InputTensor": _tensor(1, 1, 5, 7), "FilterTensor": _tensor(1, 1, 3, 3), "OutputTensor": _tensor(1, 1, 3, 3),
         "Mode": "CROSS_CORRELATION", "Direction": "FORWARD", "Strides": [2, 2], "Dilations": [1, 2],
         "StartPadding": [1, 1], "EndPadding": [1, 1], "OutputPadding": [0, 0], "GroupCount": 1}
    )  # fmt: skip
    reduce = dml.ReduceOperatorDesc.model_validate(
        {"Function": "SUM", "InputTensor": _tensor(2, 3, 4, 5), "OutputTensor": _tensor(2, 1, 1, 5), "Axes": [1, 2]}
    )
    parts = [_tensor(1, size, 2, 2) for size in (2, 5, 1)]
    join = dml.JoinOperatorDesc.model_validate({"InputTensors": parts, "OutputTensor": _tensor(1, 8, 2, 2), "Axis": 1})
    split = dml.SplitOperatorDesc.model_validate(
        {"InputTensor": _tensor(1, 8, 2, 2), "OutputTensors": parts, "Axis": 1}
    )
    return {"gemm": gemm, "convolution": convolution, "reduce": reduce, "join": join, "split": split}


def pictures() -> dict[str, Picture]:
    """Each example's meaning under the title its whole picture has (every example is valid)."""
    drawn = {}
    for name, desc in descriptors().items():
        desc.validate_on(dml.FeatureLevel.FL_6_4)
        shape = desc.drawn_shape()
        assert shape is not None, name
        drawn[name] = stacked(f"{desc.struct_name()} operator: {desc.describe()}", [shape.picture()])
    return drawn


if __name__ == "__main__":
    sys.exit(main(pictures, IMAGES, Path(__file__).resolve(), __doc__))
