"""The regions-of-interest family as descriptors, without OpenCL: ROI_POOLING, ROI_ALIGN, ROI_ALIGN1 and
ROI_ALIGN_GRAD. Worked examples (the ROI_ALIGN_GRAD page's four crops of a 4x4 input, forward and backward) validate
from their level; each documented rule broken is refused naming the field and the rule; the output rule agrees with
ONNX's reference RoiAlign and with ROI_POOLING's bin formula written out in NumPy; JSON, the schema and the command
line take them; the forward operators lower to roi.cl, and compiling ROI_ALIGN_GRAD says dmlpy does not run it yet."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

import dmlpy as dml
from dmlpy.descriptors_json import parse_descriptor
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.cli import Run, assert_one_line_error
from tests.helpers.schema import schema_validator
from tests.helpers.structured import tensor

T, FL = dml.TensorDataType, dml.FeatureLevel
F32, F16, U32, U64 = T.FLOAT32, T.FLOAT16, T.UINT32, T.UINT64
_ALIGN = {
    "ReductionFunction": "AVERAGE",
    "InterpolationMode": "NEAREST_NEIGHBOR",
    "SpatialScaleX": 1.0,
    "SpatialScaleY": 1.0,
    "MinimumSamplesPerOutput": 1,
    "MaximumSamplesPerOutput": 1,
}
_ALIGN1 = {"InputPixelOffset": 0.5, "OutputPixelOffset": -0.5, "AlignRegionsToCorners": False}


def pooling(**fields: Any) -> Any:
    """Two regions of a {2, 3, 6, 6} input, each pooled into 2 x 3 bins."""
    base = {
        "InputTensor": tensor(F32, (2, 3, 6, 6)),
        "ROITensor": tensor(F32, (1, 1, 2, 5)),
        "OutputTensor": tensor(F32, (2, 3, 2, 3)),
        "SpatialScale": 1.0,
        "PooledSize": {"Width": 3, "Height": 2},
    }
    return dml.RoiPoolingOperatorDesc.model_validate({**base, **fields})


def align(desc_class: type[OperatorDescBase] = dml.RoiAlignOperatorDesc, **fields: Any) -> Any:
    """The ROI_ALIGN_GRAD page's forward example: four 2x2 crops of a {1, 1, 4, 4} input, each resized to 1 x 3."""
    base = {
        "InputTensor": tensor(F32, (1, 1, 4, 4)),
        "ROITensor": tensor(F32, (4, 4)),
        "BatchIndicesTensor": tensor(U32, (4,)),
        "OutputTensor": tensor(F32, (4, 1, 1, 3)),
        **_ALIGN,
        "OutOfBoundsInputValue": 0.0,
        **(_ALIGN1 if desc_class is dml.RoiAlign1OperatorDesc else {}),
    }
    return desc_class.model_validate({**base, **fields})


def grad(**fields: Any) -> Any:
    """The ROI_ALIGN_GRAD page's example: InputGradientTensor {4, 1, 1, 3} back to OutputGradientTensor {1, 1, 4, 4}."""
    base = {
        "InputGradientTensor": tensor(F32, (4, 1, 1, 3)),
        "ROITensor": tensor(F32, (4, 4)),
        "BatchIndicesTensor": tensor(U32, (4,)),
        "OutputGradientTensor": tensor(F32, (1, 1, 4, 4)),
        **_ALIGN,
        **_ALIGN1,
    }
    return dml.RoiAlignGradOperatorDesc.model_validate({**base, **fields})


EXAMPLES = {
    "ROI_POOLING": (pooling(), FL.FL_1_0),
    "ROI_POOLING FLOAT16": (
        pooling(**{k: tensor(F16, s) for k, s in (("InputTensor", (2, 3, 6, 6)), ("ROITensor", (1, 1, 2, 5)),
                                                   ("OutputTensor", (2, 3, 2, 3)))}),
        FL.FL_1_0,
    ),
    "ROI_ALIGN (the page's crops)": (align(), FL.FL_3_0),
    "ROI_ALIGN {1, 1, NumROIs, 4}, MAX, LINEAR": (
        align(ROITensor=tensor(F32, (1, 1, 4, 4)), BatchIndicesTensor=tensor(U32, (1, 1, 1, 4)),
              ReductionFunction="MAX", InterpolationMode="LINEAR", MaximumSamplesPerOutput=4),
        FL.FL_3_0,
    ),
    "ROI_ALIGN UINT64 indices": (align(BatchIndicesTensor=tensor(U64, (1, 4))), FL.FL_5_0),
    "ROI_ALIGN1 (the page's crops)": (align(dml.RoiAlign1OperatorDesc), FL.FL_4_0),
    "ROI_ALIGN1 corners": (
        align(dml.RoiAlign1OperatorDesc, InputPixelOffset=0.0, OutputPixelOffset=0.0, AlignRegionsToCorners=True,
              OutputTensor=tensor(F32, (4, 1, 7, 9))),
        FL.FL_4_0,
    ),
    "ROI_ALIGN_GRAD (the page's example)": (grad(), FL.FL_4_1),
    "ROI_ALIGN_GRAD MAX, both gradients": (
        grad(InputTensor=tensor(F32, (1, 1, 4, 4)), OutputROIGradientTensor=tensor(F32, (4, 4)),
             ReductionFunction="MAX"),
        FL.FL_4_1,
    ),
    "ROI_ALIGN_GRAD regions only": (
        grad(InputTensor=tensor(F32, (1, 1, 4, 4)), OutputGradientTensor=None,
             OutputROIGradientTensor=tensor(F32, (4, 4))),
        FL.FL_4_1,
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", EXAMPLES)
def test_worked_examples_validate_from_their_level(name: str) -> None:
    desc, level = EXAMPLES[name]
    dml.validate(desc, level)
    dml.validate(desc, FL.FL_6_4)
    below = [lower for lower in FL if lower < level]
    if below:
        with pytest.raises(dml.DmlError):
            dml.validate(desc, below[-1])


def refused(desc: OperatorDescBase, *fragments: str, level: FL = FL.FL_6_4) -> None:
    with pytest.raises(dml.InvalidArgumentError) as raised:
        dml.validate(desc, level)
    for fragment in fragments:
        assert fragment in str(raised.value), (fragment, str(raised.value))


def test_output_sizes_are_the_rule_with_its_formula() -> None:
    refused(
        pooling(OutputTensor=tensor(F32, (2, 3, 3, 2))),
        "ROI_POOLING.OutputTensor.Sizes is [2, 3, 3, 2]; it must be [2, 3, 2, 3]: {NumROIs, ChannelCount, "
        "PooledSize.Height, PooledSize.Width}: NumROIs ROITensor.Sizes[2] (2), ChannelCount InputTensor.Sizes[1] (3), "
        "PooledSize.Height 2, PooledSize.Width 3",
    )
    refused(
        align(OutputTensor=tensor(F32, (3, 1, 1, 3))),
        "ROI_ALIGN.OutputTensor.Sizes is [3, 1, 1, 3]; it must be [4, 1, 1, 3]: {NumROIs, ChannelCount, OutputHeight, "
        "OutputWidth}: NumROIs ROITensor.Sizes[-2] (4), ChannelCount InputTensor.Sizes[1] (1), OutputHeight and "
        "OutputWidth the caller's",
    )
    refused(
        grad(InputTensor=tensor(F32, (1, 1, 4, 4)), OutputGradientTensor=tensor(F32, (1, 1, 4, 5))),
        "ROI_ALIGN_GRAD.OutputGradientTensor.Sizes is [1, 1, 4, 5]; it must be [1, 1, 4, 4]: InputTensor's Sizes",
    )
    refused(
        grad(OutputGradientTensor=tensor(F32, (1, 2, 4, 4))),
        "ROI_ALIGN_GRAD.OutputGradientTensor.Sizes is [1, 2, 4, 4]; it must be [1, 1, 4, 4]: the forward pass's input",
        "ChannelCount InputGradientTensor.Sizes[1] (1), the others the caller's",
    )
    refused(
        grad(InputTensor=tensor(F32, (1, 1, 4, 4)), OutputROIGradientTensor=tensor(F32, (1, 4, 4))),
        "ROI_ALIGN_GRAD.OutputROIGradientTensor.Sizes is [1, 4, 4]; it must be [4, 4]: ROITensor's Sizes",
    )


@pytest.mark.parametrize(
    ("desc", "fragments"),
    [
        (pooling(ROITensor=tensor(F32, (1, 1, 2, 4))),
         ("ROI_POOLING.ROITensor.Sizes is [1, 1, 2, 4]; it must be {1, 1, NumROIs, 5}: one row [BatchID, x1, y1, x2, "
          "y2] per region",)),
        (pooling(ROITensor=tensor(F32, (2, 1, 1, 5))), ("ROI_POOLING.ROITensor.Sizes is [2, 1, 1, 5]",)),
        (pooling(PooledSize={"Width": 0, "Height": 2}),
         ("ROI_POOLING.PooledSize.Width is 0; it must be at least 1",)),
        (pooling(OutputTensor=tensor(F16, (2, 3, 2, 3))),
         ("ROI_POOLING.OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal InputTensor",
          "the same DataType")),
        (align(ROITensor=tensor(F32, (4, 5))),
         ("ROI_ALIGN.ROITensor.Sizes is [4, 5]; it must be {NumROIs, 4}, {1, NumROIs, 4} or {1, 1, NumROIs, 4}",)),
        (align(ROITensor=tensor(F32, (2, 4, 4))), ("ROI_ALIGN.ROITensor.Sizes is [2, 4, 4]", "leading sizes 1")),
        (align(BatchIndicesTensor=tensor(U32, (3,))),
         ("ROI_ALIGN.BatchIndicesTensor.Sizes is [3]; it must be {NumROIs}, {1, NumROIs}, {1, 1, NumROIs} or "
          "{1, 1, 1, NumROIs} with NumROIs 4",)),
        (align(BatchIndicesTensor=tensor(U32, (4, 1))), ("ROI_ALIGN.BatchIndicesTensor.Sizes is [4, 1]",)),
        (align(ReductionFunction="SUM"),
         ("ROI_ALIGN.ReductionFunction is DML_REDUCE_FUNCTION_SUM; it must be DML_REDUCE_FUNCTION_AVERAGE or "
          "DML_REDUCE_FUNCTION_MAX",)),
        (align(MinimumSamplesPerOutput=0), ("ROI_ALIGN.MinimumSamplesPerOutput is 0; it must be at least 1",)),
        (align(dml.RoiAlign1OperatorDesc, MinimumSamplesPerOutput=3, MaximumSamplesPerOutput=2),
         ("ROI_ALIGN1.MinimumSamplesPerOutput is 3; it must be at most MaximumSamplesPerOutput (2)",)),
        (align(ROITensor=tensor(F16, (4, 4))),
         ("ROI_ALIGN.ROITensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal InputTensor",)),
        (grad(OutputGradientTensor=None),
         ("ROI_ALIGN_GRAD.OutputGradientTensor and OutputROIGradientTensor are both null; at least one must be "
          "given",)),
        (grad(OutputROIGradientTensor=tensor(F32, (4, 4))),
         ("ROI_ALIGN_GRAD.InputTensor is null; it is required when OutputROIGradientTensor is given",)),
        (grad(ReductionFunction="MAX"),
         ("ROI_ALIGN_GRAD.InputTensor is null; it is required when ReductionFunction is DML_REDUCE_FUNCTION_MAX",)),
        (grad(InputGradientTensor=tensor(F32, (3, 1, 1, 3))),
         ("ROI_ALIGN_GRAD.InputGradientTensor.Sizes is [3, 1, 1, 3]; Sizes[0] must be NumROIs, 4",)),
        (grad(InputTensor=tensor(F32, (1, 2, 4, 4)), OutputGradientTensor=tensor(F32, (1, 2, 4, 4))),
         ("ROI_ALIGN_GRAD.InputGradientTensor.Sizes is [4, 1, 1, 3]; Sizes[1] must be ChannelCount, 2",)),
        (grad(OutputROIGradientTensor=tensor(F16, (4, 4)), InputTensor=tensor(F32, (1, 1, 4, 4))),
         ("ROI_ALIGN_GRAD.OutputROIGradientTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal",)),
        (grad(ReductionFunction="MIN", InputTensor=tensor(F32, (1, 1, 4, 4))),
         ("ROI_ALIGN_GRAD.ReductionFunction is DML_REDUCE_FUNCTION_MIN",)),
    ],
    ids=["pooling row", "pooling leading", "pooled size 0", "pooling type group", "align row", "align leading",
         "indices count", "indices leading", "reduction", "samples 0", "samples order", "align type group",
         "no output", "regions need input", "max needs input", "gradient regions", "gradient channels",
         "gradient type group", "gradient reduction"],
)  # fmt: skip
def test_each_rule_is_refused_naming_field_and_rule(desc: OperatorDescBase, fragments: tuple[str, ...]) -> None:
    refused(desc, *fragments)


def test_support_tables_teach_the_level() -> None:
    refused(align(BatchIndicesTensor=tensor(U64, (4,))), "BatchIndicesTensor.DataType is DML_TENSOR_DATA_TYPE_UINT64",
            "(DML_TENSOR_DATA_TYPE_UINT64 from DML_FEATURE_LEVEL_5_0)", level=FL.FL_4_1)  # fmt: skip
    refused(grad(BatchIndicesTensor=tensor(U64, (4,))), "BatchIndicesTensor.DataType is DML_TENSOR_DATA_TYPE_UINT64")
    refused(align(InputTensor=tensor(F32, (1, 1, 1, 4, 4))), "InputTensor.DimensionCount is 5")
    with pytest.raises(dml.UnsupportedError, match="ROI_ALIGN_GRAD needs DML_FEATURE_LEVEL_4_1"):
        dml.validate(grad(), FL.FL_4_0)


def test_output_types_and_chosen_sizes() -> None:
    (out,) = align().expected_outputs()
    assert out.data_type == F32 and out.chosen == (2, 3) and out.expected_of((4, 1, 7, 9)) == (4, 1, 7, 9)
    forward, regions = grad().expected_outputs()
    assert forward.chosen == (0, 2, 3) and forward.expected_of((5, 1, 2, 2)) == (5, 1, 2, 2)
    assert regions.sizes == (4, 4) and regions.data_type == forward.data_type == F32
    (pooled,) = pooling().expected_outputs()
    assert pooled.sizes == (2, 3, 2, 3) and pooled.data_type == F32 and pooled.chosen == ()


def _roi_pool_bins(x: np.ndarray, rois: np.ndarray, height: int, width: int, scale: float) -> np.ndarray:
    """ROI_POOLING's page, written out: each region's corners scaled and rounded, split into bins [Start, End) by
    integer floor and ceil division, clamped to the input, each output element its bin's maximum."""
    out = np.empty((len(rois), x.shape[1], height, width), x.dtype)
    for r, (batch, *corners) in enumerate(rois):
        x1, y1, x2, y2 = (round(c * scale) for c in corners)
        region_h, region_w = y2 - y1 + 1, x2 - x1 + 1
        for i in range(height):
            for j in range(width):
                y0 = min(max(i * region_h // height + y1, 0), x.shape[2])
                y9 = min(max(-(-(i + 1) * region_h // height) + y1, 0), x.shape[2])
                x0 = min(max(j * region_w // width + x1, 0), x.shape[3])
                x9 = min(max(-(-(j + 1) * region_w // width) + x1, 0), x.shape[3])
                out[r, :, i, j] = x[int(batch), :, y0:y9, x0:x9].max(axis=(1, 2))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_roi_pooling_output_is_the_pages_bins(seed: int) -> None:
    """Random inputs and regions: the page's bins make an array of the output rule's Sizes, and a descriptor with it
    validates."""
    rng = np.random.default_rng(seed)
    (batch, channels), (h, w) = rng.integers(1, 4, 2).tolist(), rng.integers(3, 9, 2).tolist()
    count, pooled_h, pooled_w = (int(v) for v in rng.integers(1, 4, 3))
    x = rng.standard_normal((batch, channels, h, w)).astype(np.float32)
    x1, y1 = rng.integers(0, w // 2, count), rng.integers(0, h // 2, count)
    x2, y2 = rng.integers(x1, w), rng.integers(y1, h)
    rois = np.stack([rng.integers(0, batch, count), x1, y1, x2, y2], 1)
    y = _roi_pool_bins(x, rois, pooled_h, pooled_w, 1.0)
    fields = {"SpatialScale": 1.0, "PooledSize": {"Width": pooled_w, "Height": pooled_h}}
    desc = pooling(InputTensor=tensor(F32, x.shape), ROITensor=tensor(F32, (1, 1, count, 5)),
                   OutputTensor=tensor(F32, y.shape), **fields)  # fmt: skip
    (shape,) = desc.expected_outputs()
    assert shape.sizes == y.shape
    dml.validate(desc, FL.FL_1_0)


@pytest.mark.parametrize("seed", range(4))
def test_roi_align_output_agrees_with_onnx_reference(seed: int) -> None:
    """ONNX's reference RoiAlign on random inputs, regions and output sizes: ROI_ALIGN, ROI_ALIGN1 and (backward)
    ROI_ALIGN_GRAD take its shapes, the ROI_ALIGNs' rule gives the same {NumROIs, ChannelCount} and the caller's
    OutputHeight and OutputWidth."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((int(rng.integers(1, 3)), int(rng.integers(1, 4)), 6, 7)).astype(np.float32)
    count, out_h, out_w = (int(v) for v in rng.integers(1, 5, 3))
    rois = (rng.random((count, 4)) * 5).astype(np.float32)
    indices = rng.integers(0, x.shape[0], count).astype(np.int64)
    node = helper.make_node(
        "RoiAlign", ["X", "rois", "batch_indices"], ["Y"], output_height=out_h, output_width=out_w, sampling_ratio=2
    )
    (y,) = ReferenceEvaluator(node).run(None, {"X": x, "rois": rois, "batch_indices": indices})
    assert y.shape == (count, x.shape[1], out_h, out_w)
    tensors = {"InputTensor": tensor(F32, x.shape), "ROITensor": tensor(F32, rois.shape),
               "BatchIndicesTensor": tensor(U64, indices.shape), "OutputTensor": tensor(F32, y.shape)}  # fmt: skip
    for desc_class in (dml.RoiAlignOperatorDesc, dml.RoiAlign1OperatorDesc):
        desc = align(desc_class, **tensors, MinimumSamplesPerOutput=2, MaximumSamplesPerOutput=2)
        (shape,) = desc.expected_outputs()
        assert shape.expected_of(y.shape) == y.shape
        dml.validate(desc, FL.FL_5_0)
    backward = grad(
        InputTensor=tensor(F32, x.shape), InputGradientTensor=tensor(F32, y.shape), ROITensor=tensor(F32, rois.shape),
        BatchIndicesTensor=tensor(U32, indices.shape), OutputGradientTensor=tensor(F32, x.shape),
        OutputROIGradientTensor=tensor(F32, rois.shape), ReductionFunction="MAX",
    )  # fmt: skip
    dml.validate(backward, FL.FL_4_1)


@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip_and_schema(name: str) -> None:
    desc, _ = EXAMPLES[name]
    dumped = json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json(by_alias=True))
    read = parse_descriptor(dumped)
    back = read.desc if isinstance(read, dml.OperatorDesc) else read
    assert type(back) is type(desc) and back == desc and hash(back) == hash(desc)
    schema_validator().validate(dumped)


def test_fields_take_c_spellings() -> None:
    desc = align(dml.RoiAlign1OperatorDesc, ReductionFunction="DML_REDUCE_FUNCTION_MAX", InterpolationMode=1,
                 AlignRegionsToCorners=1)  # fmt: skip
    assert desc.reduction_function == dml.ReduceFunction.MAX and desc.align_regions_to_corners is True
    assert desc.interpolation_mode.name == "LINEAR"
    assert pooling(PooledSize={"width": 3, "height": 2}).pooled_size == dml.Size2D(Width=3, Height=2)
    with pytest.raises(dml.DmlError, match="AlignRegionsToCorners"):
        align(dml.RoiAlign1OperatorDesc, AlignRegionsToCorners="yes")
    with pytest.raises(dml.DmlError, match=r"PooledSize\.Height"):
        pooling(PooledSize={"Width": 3, "Height": -1})


def test_operator_types_take_every_spelling() -> None:
    values = {t.name: t.value for t in dml.OperatorType}
    assert values["ROI_POOLING"] == 59 and values["ROI_ALIGN"] == 139
    assert values["ROI_ALIGN1"] == 149 and values["ROI_ALIGN_GRAD"] == 150
    spellings = ("DML_OPERATOR_ROI_ALIGN_GRAD", "ROI_ALIGN_GRAD", 150)
    assert {dml.OperatorType(s) for s in spellings} == {dml.OperatorType.ROI_ALIGN_GRAD}


def test_the_forward_operators_run_and_the_gradient_does_not_yet() -> None:
    """ROI_POOLING, ROI_ALIGN and ROI_ALIGN1 lower to roi.cl (one kernel each, the ROI_ALIGNs' pixel offsets as
    float bits, never source); compiling ROI_ALIGN_GRAD says dmlpy does not run it yet."""
    kernels = {"ROI_POOLING": "roi_pooling", "ROI_ALIGN": "roi_align", "ROI_ALIGN1": "roi_align"}
    for desc, _ in EXAMPLES.values():
        name = desc.operator_name()
        assert desc.runs() is (name in kernels), name
        if name in kernels:
            (step,) = desc.plan().steps
            assert step.lowered.kernel.source_name == "roi.cl" and step.lowered.kernel.kernel_name == kernels[name]
    aligned = align(dml.RoiAlign1OperatorDesc, InputPixelOffset=0.25).lower()
    assert aligned.parameters[-1].values[2] == 0x3E800000  # 0.25's FLOAT32 bits
    assert "0.25" not in " ".join(value for _, value in aligned.kernel.defines)
    with pytest.raises(dml.UnsupportedError, match="dmlpy validates ROI_ALIGN_GRAD but does not run it yet"):
        EXAMPLES["ROI_ALIGN_GRAD (the page's example)"][0].plan()


def test_dmlpy_validate_and_explain_a_roi_file(run: Run, write_json: Any) -> None:
    desc = EXAMPLES["ROI_ALIGN_GRAD (the page's example)"][0]
    path = write_json(json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json()))
    result = run("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert '"Type": "DML_OPERATOR_ROI_ALIGN_GRAD"' in result.stdout
    assert "valid from DML_FEATURE_LEVEL_4_1" in result.stdout
    wrong = pooling(OutputTensor=tensor(F32, (2, 3, 3, 3)))
    bad = write_json(json.loads(dml.OperatorDesc.model_validate(wrong).model_dump_json()), "bad.json")
    refused_run = run("validate", str(bad))
    assert refused_run.returncode == 1 and "ROI_POOLING.OutputTensor.Sizes is [2, 3, 3, 3]" in refused_run.stdout
    assert_one_line_error(run("explain", str(path)), 1, "UnsupportedError", "does not run it yet")
