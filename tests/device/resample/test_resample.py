"""RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE3 and UPSAMPLE_2D run (opencl/resample.cl), against the NumPy reference
of cases.py written from the pages' formula (nearest exactly, linear within the bound docs/operators/resample.md
derives, measured against float64) and onnx.reference's Resize for ONNX's coordinate modes mapped as onnxruntime's
DirectML provider maps them: every data type of the tables at their highest level, up and down scales, 1-D to 4-D
(UPSAMPLE_2D 4-D and 5-D), strided tensors at offsets under both launch profiles, and a graph node."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.movement.cases import padded_strides
from tests.device.resample.cases import (
    NEAREST_MODES,
    T,
    check_linear,
    coordinates,
    onnx_mapping,
    onnx_resize,
    resample_reference,
    tensor,
    values,
)
from tests.helpers.structured_runs import run_structured

FORWARD = (
    dml.ResampleOperatorDesc,
    dml.Resample1OperatorDesc,
    dml.Resample2OperatorDesc,
    dml.Resample3OperatorDesc,
)
TYPES = sorted(dml.Resample3OperatorDesc.SUPPORT.rows[-1].data_types["InputTensor"], key=int)
MODES = ("NEAREST_NEIGHBOR", "LINEAR")


def _run(device: Any, desc: Any, x: Any) -> Any:
    desc.validate_on(device.feature_level)
    return run_structured(device, desc, {"input_tensor": x}, offsets={"input_tensor": 32, "output_tensor": 16})[
        "output_tensor"
    ]


def _desc(
    operator: Any,
    data_type: Any,
    in_sizes: tuple[int, ...],
    out_sizes: tuple[int, ...],
    mode: str,
    scales: tuple[float, ...],
    offsets: tuple[tuple[float, ...], tuple[float, ...]],
    *,
    direction: str = "DECREASING",
    antialiased: bool = False,
    strides: tuple[tuple[int, ...] | None, tuple[int, ...] | None] = (None, None),
) -> Any:
    fields: dict[str, Any] = {
        "input_tensor": tensor(data_type, in_sizes, strides[0]),
        "output_tensor": tensor(data_type, out_sizes, strides[1]),
        "interpolation_mode": mode,
        "scales": scales,
    }
    if operator is not dml.ResampleOperatorDesc:
        fields.update(input_pixel_offsets=offsets[0], output_pixel_offsets=offsets[1])
    if operator in (dml.Resample2OperatorDesc, dml.Resample3OperatorDesc):
        fields["rounding_direction"] = direction
    if operator is dml.Resample3OperatorDesc:
        fields["antialiased"] = antialiased
    return operator(**fields)


def _check(got: Any, x: Any, out_sizes: Any, scales: Any, offsets: Any, mode: str, data_type: Any, **kw: Any) -> None:
    exact, bound = resample_reference(x, out_sizes, scales, *offsets, linear=mode == "LINEAR", **kw)
    if mode == "LINEAR":
        check_linear(got, exact, bound, data_type)
    else:
        assert np.array_equal(got.view(f"u{got.itemsize}"), exact.view(f"u{exact.itemsize}"))


def test_the_tables_hold_the_same_types() -> None:
    for operator in FORWARD:
        assert sorted(operator.SUPPORT.rows[-1].data_types["InputTensor"], key=int) == TYPES
    assert sorted((T.FLOAT32, T.FLOAT16, T.INT8, T.UINT8), key=int) == TYPES


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", TYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("operator", FORWARD, ids=lambda o: o.OPERATOR_TYPE.name)
def test_every_type_up_and_down(device: Any, operator: Any, data_type: Any) -> None:
    in_sizes, out_sizes, scales = (3, 5, 4), (6, 3, 5), (2.0, 0.75, 1.25)
    offsets = ((0.5, 0.0, 0.25), (-0.5, 0.0, 0.5))
    if operator is dml.ResampleOperatorDesc:
        offsets = ((0.5,) * 3, (-0.5,) * 3)
    rounding = {dml.ResampleOperatorDesc: "half_up", dml.Resample1OperatorDesc: "half_up"}.get(operator, "down")
    x = values(data_type, in_sizes, int(data_type))
    for mode in MODES:
        desc = _desc(operator, data_type, in_sizes, out_sizes, mode, scales, offsets)
        _check(_run(device, desc, x), x, out_sizes, scales, offsets, mode, data_type, rounding=rounding)


@pytest.mark.parametrize("rank", [1, 2, 3, 4])
@pytest.mark.parametrize("mode", MODES)
def test_every_rank_strided_under_both_profiles(device: Any, rank: int, mode: str) -> None:
    in_sizes = (2, 3, 5, 4)[-rank:]
    scales = (1.5, 1.0, 0.5, 2.5)[-rank:]
    out_sizes = tuple(int(n * s) for n, s in zip(in_sizes, scales, strict=True))
    offsets = ((0.5, 0.0, 0.5, -1.0)[-rank:], (-0.5, 0.0, -0.5, 2.0)[-rank:])
    strides = (padded_strides(in_sizes, 3), padded_strides(out_sizes, 2))
    x = values(T.FLOAT32, in_sizes, rank)
    for direction, rounding in (("DECREASING", "down"), ("INCREASING", "up")):
        desc = _desc(
            dml.Resample2OperatorDesc,
            T.FLOAT32,
            in_sizes,
            out_sizes,
            mode,
            scales,
            offsets,
            direction=direction,
            strides=strides,
        )
        _check(_run(device, desc, x), x, out_sizes, scales, offsets, mode, T.FLOAT32, rounding=rounding)


ONNX_CASES = [((1, 2, 4, 6), (1.0, 1.0, 2.5, 0.5)), ((3, 1, 6), (0.5, 2.0, 1.5)), ((1, 5), (1.0, 3.0))]
"""Shapes whose scaled sizes are whole (ONNX's align_corners divides by the unrounded output length) and whose
coordinates lie off rounding ties in float32 and float64 alike."""


@pytest.mark.one_profile
@pytest.mark.parametrize("coordinate_mode", ["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"])
@pytest.mark.parametrize("case", range(len(ONNX_CASES)))
def test_onnx_coordinate_modes_as_the_provider_maps_them(device: Any, coordinate_mode: str, case: int) -> None:
    in_sizes, onnx_scales = ONNX_CASES[case]
    x = values(T.FLOAT32, in_sizes, case)
    out_sizes = tuple(int(n * s) for n, s in zip(in_sizes, onnx_scales, strict=True))
    scales, inputs, outputs = onnx_mapping(coordinate_mode, in_sizes, out_sizes, onnx_scales)
    for nearest_mode, (rounding, adjustment) in NEAREST_MODES.items():
        offsets = (tuple(v + adjustment for v in inputs), outputs)
        direction = "INCREASING" if rounding == "up" else "DECREASING"
        desc = _desc(
            dml.Resample2OperatorDesc,
            T.FLOAT32,
            in_sizes,
            out_sizes,
            "NEAREST_NEIGHBOR",
            scales,
            offsets,
            direction=direction,
        )
        expected = onnx_resize(
            x, onnx_scales, mode="nearest", coordinate_transformation_mode=coordinate_mode, nearest_mode=nearest_mode
        )
        assert np.array_equal(_run(device, desc, x), expected), nearest_mode
    desc = _desc(dml.Resample2OperatorDesc, T.FLOAT32, in_sizes, out_sizes, "LINEAR", scales, (inputs, outputs))
    expected = onnx_resize(x, onnx_scales, mode="linear", coordinate_transformation_mode=coordinate_mode)
    # A cross-check of the mapping, not the bound: ONNX computes coordinates in float64.
    np.testing.assert_allclose(_run(device, desc, x), expected, rtol=0, atol=1e-5)


def test_resample1_nearest_rounds_halves_up_and_the_floor_mapping(device: Any) -> None:
    """RESAMPLE1 has no RoundingDirection: floor(x + 0.5) (the provider's round_prefer_ceil; its floor mode adds
    0.5 to InputPixelOffsets). Downscaling by 0.5 with pixel centres puts every coordinate on a tie, 2o + 0.5."""
    x = values(T.FLOAT32, (8,), 3)
    for nearest_mode, adjustment in (("round_prefer_ceil", 0.0), ("floor", 0.5)):
        desc = _desc(
            dml.Resample1OperatorDesc, T.FLOAT32, (8,), (4,), "NEAREST_NEIGHBOR", (0.5,), ((0.5 + adjustment,), (-0.5,))
        )
        expected = onnx_resize(x, (0.5,), mode="nearest", nearest_mode=nearest_mode)
        assert np.array_equal(_run(device, desc, x), expected), nearest_mode
    assert np.array_equal(onnx_resize(x, (0.5,), mode="nearest", nearest_mode="round_prefer_ceil"), x[1::2])


def test_tf_half_pixel_for_nn(device: Any) -> None:
    """onnx.reference has no tf_half_pixel_for_nn: ONNX's formula x = (o + 0.5) / scale, then the nearest mode."""
    x = values(T.FLOAT32, (7,), 4)
    for scale in (0.5, 1.5, 3.0):
        out = int(7 * scale)
        original = (np.arange(out) + 0.5) / scale
        for nearest_mode, (rounding, adjustment) in NEAREST_MODES.items():
            index = {
                "round_prefer_floor": np.ceil(original - 0.5),
                "round_prefer_ceil": np.floor(original + 0.5),
                "floor": np.floor(original),
                "ceil": np.ceil(original),
            }[nearest_mode]
            desc = _desc(
                dml.Resample2OperatorDesc,
                T.FLOAT32,
                (7,),
                (out,),
                "NEAREST_NEIGHBOR",
                (scale,),
                ((adjustment,), (-0.5,)),
                direction="INCREASING" if rounding == "up" else "DECREASING",
            )
            assert np.array_equal(_run(device, desc, x), x[np.clip(index, 0, 6).astype(int)]), (scale, nearest_mode)


@pytest.mark.parametrize("data_type", [T.FLOAT32, T.UINT8], ids=lambda t: t.name)
def test_resample3_antialiased_as_onnx_resize_antialias(device: Any, data_type: Any) -> None:
    in_sizes, scales = (2, 8, 12), (1.0, 0.5, 0.25)
    out_sizes = (2, 4, 3)
    offsets = ((0.5,) * 3, (-0.5,) * 3)
    x = values(data_type, in_sizes, 5)
    desc = _desc(dml.Resample3OperatorDesc, data_type, in_sizes, out_sizes, "LINEAR", scales, offsets, antialiased=True)
    got = _run(device, desc, x)
    _check(got, x, out_sizes, scales, offsets, "LINEAR", data_type, antialiased=True)
    if data_type == T.FLOAT32:
        expected = onnx_resize(x, scales, mode="linear", antialias=1)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5)


def test_special_values_and_edges(device: Any) -> None:
    """A Scale of 1 with cancelling offsets copies (an integral coordinate reads one element: infinities and NaN
    stay where they are); coordinates past the edges read the edge element; NaN payloads move unchanged."""
    x = np.array([1.0, np.inf, -2.0, np.nan, 5.0], dtype=np.float32)
    for mode in MODES:
        desc = _desc(dml.Resample1OperatorDesc, T.FLOAT32, (5,), (5,), mode, (1.0,), ((0.5,), (-0.5,)))
        assert np.array_equal(_run(device, desc, x), x, equal_nan=True)
    payload = np.array([0x7FC01234, 0xFFA00001, 0x3F800000], dtype=np.uint32).view(np.float32)
    desc = _desc(dml.Resample1OperatorDesc, T.FLOAT32, (3,), (9,), "NEAREST_NEIGHBOR", (3.0,), ((0.5,), (-0.5,)))
    assert np.array_equal(_run(device, desc, payload).view(np.uint32), np.repeat(payload.view(np.uint32), 3))
    far = _desc(dml.Resample1OperatorDesc, T.FLOAT32, (3,), (4,), "LINEAR", (1.0,), ((10.0,), (0.0,)))
    assert np.array_equal(_run(device, far, np.array([1, 2, 3], dtype=np.float32)), np.ones(4, dtype=np.float32))
    assert coordinates(4, 1.0, 10.0, 0.0)[0] == -10.0


@pytest.mark.parametrize("rank", [4, 5])
@pytest.mark.parametrize("mode", MODES)
def test_upsample_2d_scales_the_last_two_dimensions(device: Any, rank: int, mode: str) -> None:
    in_sizes = (2, 3, 2, 3, 4)[-rank:]
    out_sizes = (*in_sizes[:-2], in_sizes[-2] * 2, in_sizes[-1] * 3)
    data_type = T.FLOAT16 if rank == 5 else T.FLOAT32
    x = values(data_type, in_sizes, rank)
    desc = dml.Upsample2DOperatorDesc(
        input_tensor=tensor(data_type, in_sizes, padded_strides(in_sizes, 1)),
        output_tensor=tensor(data_type, out_sizes),
        scale_size={"Width": 3, "Height": 2},
        interpolation_mode=mode,
    )
    got = _run(device, desc, x)
    scales = (1.0,) * (rank - 2) + (2.0, 3.0)
    _check(got, x, out_sizes, scales, ((0.5,) * rank, (-0.5,) * rank), mode, data_type)
    if mode == "NEAREST_NEIGHBOR":
        assert np.array_equal(got, np.repeat(np.repeat(x, 2, axis=-2), 3, axis=-1))


def test_a_graph_node_between_element_wise_nodes(device: Any) -> None:
    in_sizes, out_sizes, scales = (1, 2, 3, 4), (1, 2, 6, 6), (1.0, 1.0, 2.0, 1.5)
    x = values(T.FLOAT32, in_sizes, 9)
    g = dml.Graph(device)
    a = g.input(in_sizes, T.FLOAT32)
    resample = _desc(
        dml.Resample1OperatorDesc, T.FLOAT32, in_sizes, out_sizes, "LINEAR", scales, ((0.5,) * 4, (-0.5,) * 4)
    )
    resampled = g.add_operator(resample, [dml.graph.abs(a)])
    y = g.compile([dml.graph.negate(resampled)])(x)
    exact, bound = resample_reference(np.abs(x), out_sizes, scales, (0.5,) * 4, (-0.5,) * 4, linear=True)
    check_linear(-np.asarray(y), exact, bound, T.FLOAT32)
