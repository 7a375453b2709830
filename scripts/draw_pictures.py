"""Draw the pictures the README and the docs show (docs/images/*.svg) from the README tour's own examples.

    python scripts/draw_pictures.py          # rewrite docs/images
    python scripts/draw_pictures.py --check  # exit 1 if any picture there differs from what dmlpy draws now

tests/device/pictures/test_readme_pictures.py runs the check, so the pictures never go stale. The binding pictures
need the default OpenCL device.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

import dmlpy as dml
from dmlpy.cli.files import read_descriptor
from dmlpy.cli.pictures import descriptor_picture
from dmlpy.drawing import Picture
from dmlpy.errors import DmlError

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"


def tensor_pictures() -> dict[str, Picture]:
    """README step 2: padded rows, a broadcast read, and 4-bit elements two a byte (docs/quantization.md)."""
    padded = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 3), strides=(8, 8, 4, 1))
    broadcast = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 3), strides=(0, 0, 0, 1))
    nibbles = dml.BufferTensorDesc(data_type="INT4", sizes=(3, 3))
    return {"padded": padded.picture(), "broadcast": broadcast.picture(), "nibbles": nibbles.picture()}


def binding_pictures(device: dml.Device) -> dict[str, Picture]:
    """README step 8: Round bound in place, and the partial overlap it refuses."""
    td = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 4))
    op = device.create_operator(dml.ElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td))
    compiled = device.compile_operator(op)
    buffer = device.upload(np.zeros(8, np.float32))
    binding = dml.BufferBinding(buffer, offset=0, size_in_bytes=td.total_tensor_size_in_bytes)
    table = device.create_binding_table(compiled)
    table.bind_inputs([binding])
    table.bind_outputs([binding])
    scratch = device.create_buffer(64)
    overlapping = device.create_binding_table(compiled)
    overlapping.bind_inputs([dml.BufferBinding(scratch, offset=0, size_in_bytes=32)])
    try:
        overlapping.bind_outputs([dml.BufferBinding(scratch, offset=16, size_in_bytes=32)])
    except dml.InvalidArgumentError as error:
        assert isinstance(error.picture, Picture)
        return {"in_place": table.picture(), "overlap_refused": error.picture}
    raise AssertionError("the partial overlap was not refused")


def graph_pictures(device: dml.Device) -> dict[str, Picture]:
    """README step 13: the QDQ chain with per-channel scales, fused into one kernel; and a refused descriptor."""
    shape = (1, 3, 2, 2)
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type="INT8", sizes=shape))
    scale = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=shape, strides=(0, 1, 0, 0)))
    zero = g.input(dml.BufferTensorDesc(data_type="INT8", sizes=shape, strides=(0, 1, 0, 0)))
    y = dml.graph.quantize_linear(
        dml.graph.round(dml.graph.dequantize_linear(x, scale, zero), "TOWARD_ZERO"), scale, zero, dtype="INT8"
    )
    refused_desc = read_descriptor(str(ROOT / "examples" / "descriptors" / "round_refused.json"))
    level = dml.FeatureLevel.FL_6_4
    try:
        dml.validate(refused_desc, level)  # type: ignore[arg-type]
    except DmlError as error:
        refused = descriptor_picture(refused_desc, level, str(error))
    else:
        raise AssertionError("examples/descriptors/round_refused.json was accepted")
    return {"qdq_graph": g.compile([y]).picture(), "round_refused": refused}


def tour_pictures() -> dict[str, Picture]:
    device = dml.create_device()
    return {**tensor_pictures(), **binding_pictures(device), **graph_pictures(device)}


def main(pictures: Callable[[], dict[str, Picture]], images: Path, script: Path, description: str | None) -> int:
    """Write each picture to images/<name>.svg, or with --check list those that differ and exit 1 (shared with
    scripts/draw_operator_pictures.py; `script` is the one to run to redraw)."""
    parser = argparse.ArgumentParser(description=description.splitlines()[0] if description else None)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    stale = []
    for name, picture in pictures().items():
        path = images / f"{name}.svg"
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != picture.svg:
                stale.append(path.relative_to(ROOT))
        else:
            images.mkdir(parents=True, exist_ok=True)
            picture.save(path)
            print(f"wrote {path.relative_to(ROOT)} ({picture.width:g} x {picture.height:g})")
    if stale:
        print(f"stale: {', '.join(map(str, stale))}; run python {script.relative_to(ROOT)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(tour_pictures, IMAGES, Path(__file__).resolve(), __doc__))
