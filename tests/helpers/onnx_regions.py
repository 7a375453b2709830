"""ONNX's node tests of RoiAlign (dmlpy.onnx.regions; the installed onnx ships none of MaxRoiPool): the ones that run
as shipped, within the comparison their expected values allow, and the one whose expected values follow another
definition of max mode, which tests/device/regions/test_onnx_regions.py runs against DirectML's instead."""

from __future__ import annotations

REGION_RUNS = ("roialign_aligned_false", "roialign_aligned_true")
"""RoiAlign's node tests that run as shipped (avg mode, output_half_pixel and half_pixel, sampling_ratio 2)."""
REGION_TOLERANCE = {"rtol": 0.0, "atol": 1e-4}
"""Their comparison: ONNX writes their expected values to 4 decimals (onnx.reference's own results differ from them by
up to 8.4e-5); dmlpy's lie within 4e-7 of onnx.reference's."""
REGION_DIFFERS = {
    "roialign_mode_max": (
        "max mode's expected values are onnx.reference's largest weighted corner term w_i * v_i of each sample; "
        "DirectML's ROI_ALIGN1 MAX (and dmlpy) takes the largest bilinear sample"
    )
}
"""The node tests that run but whose expected values follow another definition, each with the reason."""
