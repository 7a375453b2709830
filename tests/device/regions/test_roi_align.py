"""ROI_ALIGN and ROI_ALIGN1 run, against cases.py's reference from the ROI_ALIGN1 page's logic (sample positions in
float32 as the page orders them, interpolation and reduction in float64) within docs/operators/roi.md's bound: both
reduction functions and interpolation modes, regions reaching past the input, wholly outside it (OutOfBoundsInputValue),
inverted (mirrored) and empty ones, batch indices over two batches (UINT32, UINT64), every ROITensor layout, the pixel
offsets and AlignRegionsToCorners, fixed and adaptive sample counts, strided tensors at byte offsets, every data type
of each support table at its highest level, both launch profiles, and a graph node between element-wise nodes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.regions.cases import ALIGN_BOUND, Align, T, align_case, align_mismatch, align_reference
from tests.helpers.structured_runs import run_structured

ALIGNS = (dml.RoiAlignOperatorDesc, dml.RoiAlign1OperatorDesc)
STRIDED = {"input_tensor": 3, "roi_tensor": 2, "batch_indices_tensor": 0, "output_tensor": 1}
"""Every tensor but the indices strided: its rows padded by that many elements."""
OFFSETS = {"input_tensor": 48, "roi_tensor": 16, "batch_indices_tensor": 80, "output_tensor": 32}


def _run(device: Any, case: Any, offsets: dict[str, int] | None = None) -> Any:
    case.desc.validate_on(device.feature_level)
    got = run_structured(device, case.desc, case.inputs, offsets=offsets)["output_tensor"]
    wrong = align_mismatch(case, got, case.extra["align"].outside)
    assert wrong is None, wrong
    return got


@pytest.mark.parametrize("reduction", ["AVERAGE", "MAX"])
@pytest.mark.parametrize("interpolation", ["LINEAR", "NEAREST_NEIGHBOR"])
def test_roi_align1_reductions_and_interpolations(device: Any, reduction: str, interpolation: str) -> None:
    """Ten regions of every kind (cases.regions) over two batches, adaptive samples, OutOfBoundsInputValue 2.5 for
    the samples outside; every tensor strided at an offset, ROITensor {1, 1, NumROIs, 4}."""
    align = Align(reduction=reduction, interpolation=interpolation, outside=2.5, scale_x=0.75)
    case = align_case(
        dml.RoiAlign1OperatorDesc, T.FLOAT32, (2, 3, 7, 9), (3, 4), align, count=10, roi_sizes=(1, 1, 10, 4),
        gaps=STRIDED,
    )  # fmt: skip
    _run(device, case, OFFSETS)


@pytest.mark.parametrize(
    "align",
    [
        Align(corners=True, input_offset=0.0, output_offset=0.0, minimum=2, maximum=3, scale_y=0.5),
        Align(corners=True, input_offset=0.0, output_offset=0.0, minimum=1, maximum=1),  # TensorFlow's crop_and_resize
        Align(input_offset=0.0, output_offset=-0.5, minimum=2, maximum=2, reduction="MAX"),  # output_half_pixel
        Align(input_offset=0.25, output_offset=0.125, minimum=3, maximum=5, interpolation="NEAREST_NEIGHBOR"),
    ],
    ids=["corners, 2 to 3 samples", "corners, one sample", "output half pixel", "other offsets"],
)
def test_roi_align1_pixel_offsets_and_corners(device: Any, align: Align) -> None:
    case = align_case(dml.RoiAlign1OperatorDesc, T.FLOAT32, (1, 2, 6, 5), (4, 3), align, count=5, seed=3)
    _run(device, case)


@pytest.mark.parametrize(
    ("reduction", "index_type", "roi_sizes"),
    [("AVERAGE", T.UINT32, (6, 4)), ("MAX", T.UINT64, (1, 6, 4))],
    ids=["AVERAGE UINT32 {NumROIs, 4}", "MAX UINT64 {1, NumROIs, 4}"],
)
def test_roi_align_has_half_pixel_centres(device: Any, reduction: str, index_type: Any, roi_sizes: Any) -> None:
    """ROI_ALIGN is ROI_ALIGN1 with InputPixelOffset 0.5, OutputPixelOffset -0.5, AlignRegionsToCorners FALSE."""
    align = Align(reduction=reduction, scale_x=0.5, scale_y=2.0, minimum=1, maximum=3)
    case = align_case(
        dml.RoiAlignOperatorDesc, T.FLOAT32, (3, 2, 5, 8), (2, 3), align, count=6, seed=1, index_type=index_type,
        roi_sizes=roi_sizes, gaps=STRIDED,
    )  # fmt: skip
    _run(device, case, OFFSETS)


def _every_type() -> list[tuple[Any, Any, Any]]:
    cases = []
    for desc_class in ALIGNS:
        row = desc_class.SUPPORT.rows[-1].data_types
        for data_type in sorted(row["InputTensor"], key=int):
            cases += [(desc_class, data_type, index) for index in sorted(row["BatchIndicesTensor"], key=int)]
    return cases


@pytest.mark.one_profile
@pytest.mark.parametrize(("desc_class", "data_type", "index_type"), _every_type(), ids=lambda v: getattr(v, "name", ""))
def test_every_type_of_the_tables(device: Any, desc_class: Any, data_type: Any, index_type: Any) -> None:
    """Each input and index type of the operator's table at its highest level (FL 5_0): FLOAT16 read and written as
    bits, rounded once."""
    align = Align(reduction="MAX" if index_type == T.UINT64 else "AVERAGE")
    _run(device, align_case(desc_class, data_type, (2, 2, 5, 6), (2, 3), align, seed=4, index_type=index_type))


def test_a_batch_index_past_batch_count_reads_out_of_bounds(device: Any) -> None:
    """DirectML leaves it undefined; dmlpy reads nothing of the input (docs/operators/roi.md): every sample is
    OutOfBoundsInputValue."""
    case = align_case(dml.RoiAlign1OperatorDesc, T.FLOAT32, (2, 1, 4, 4), (2, 2), Align(outside=-7.0), count=2)
    case.inputs["batch_indices_tensor"] = np.array([5, 2**32 - 1], np.uint32)
    got = run_structured(device, case.desc, case.inputs)["output_tensor"]
    assert np.all(got == -7.0)


def test_a_graph_node_between_element_wise_nodes(device: Any) -> None:
    """x * 2 into ROI_ALIGN1, its output + 1: the node runs its own kernel between fused element-wise ones."""
    align = Align(reduction="AVERAGE", minimum=2, maximum=2)
    case = align_case(dml.RoiAlign1OperatorDesc, T.FLOAT32, (2, 3, 6, 7), (3, 2), align, count=5, seed=6)
    g = dml.Graph(device)
    x, rois, batches = (case.inputs[s] for s in ("input_tensor", "roi_tensor", "batch_indices_tensor"))
    gx, grois, gbatches = g.input(x.shape, T.FLOAT32), g.input(rois.shape, T.FLOAT32), g.input(batches.shape, T.UINT32)
    aligned = g.add_operator(case.desc, [gx * 2, grois, gbatches])
    got = np.asarray(g.compile([aligned + 1])(x, rois, batches))
    expected = align_reference(x * 2, rois, batches.tolist(), (3, 2), align) + 1
    # ALIGN_BOUND of max|2x| = 8, and the + 1's rounding of a result below 16.
    assert np.all(np.abs(got - expected) <= ALIGN_BOUND * 8 + 2.0**-20)
