"""The regions-of-interest family's base (docs/operators/roi.md): ROI_POOLING, ROI_ALIGN, ROI_ALIGN1 and
ROI_ALIGN_GRAD take NumROIs regions from ROITensor (rows of 4 or 5 values after leading 1s) and, but ROI_POOLING,
one batch index per region from BatchIndicesTensor; their outputs are {NumROIs, ChannelCount, ..}. Here: the
layouts of those two tensors, the reduction and the sample-count fields, each refused naming the field and the rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from dmlpy.enums import FeatureLevel, OperatorType, ReduceFunction, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import FLOATS
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L, T = FeatureLevel, TensorDataType
FOUR, ROIS, INDICES = (4, 4), (2, 4), (1, 4)
UINT32, _UINT32_64 = frozenset({T.UINT32}), frozenset({T.UINT32, T.UINT64})
_REDUCTIONS = (ReduceFunction.AVERAGE, ReduceFunction.MAX)


def align_table(operator: OperatorType, first: FeatureLevel) -> SupportTable:
    """ROI_ALIGN's and ROI_ALIGN1's tables: BatchIndicesTensor UINT32 from ``first``, UINT64 too from FL 5_0."""
    rows = []
    for level, indices in ((first, UINT32), (L.FL_5_0, _UINT32_64)):
        tensors = {
            "InputTensor": (FOUR, FLOATS),
            "ROITensor": (ROIS, FLOATS),
            "BatchIndicesTensor": (INDICES, indices),
            "OutputTensor": (FOUR, FLOATS),
        }
        rows.append((level, tensors))
    return SupportTable.per_tensor(operator, frozenset(), tuple(rows))


def given_sizes(desc: BufferTensorDesc | None) -> tuple[int, ...]:
    assert desc is not None
    return desc.sizes


def given_type(desc: BufferTensorDesc | None) -> TensorDataType:
    assert desc is not None and isinstance(desc.data_type, TensorDataType)  # a DirectML operator's tensor
    return desc.data_type


class RegionsDesc(StructuredDesc):
    """The family's checks: ROITensor's and BatchIndicesTensor's layouts, the output's leading Sizes."""

    ROW: ClassVar[int] = 4
    """The values per region in ROITensor: [x1, y1, x2, y2] (ROI_POOLING: 5, the BatchID first)."""

    if TYPE_CHECKING:  # the ROI_ALIGNs' fields, which ``check_reduction`` and ``check_samples`` read
        reduction_function: ReduceFunction
        minimum_samples_per_output: int
        maximum_samples_per_output: int

    def sizes_of(self, field: str) -> tuple[int, ...]:
        tensor: TensorDesc | None = getattr(self, field)
        assert tensor is not None, f"{field} is required"
        return tensor.desc.sizes

    def refuse_sizes(self, field: str, rule: str) -> None:
        raise InvalidArgumentError(
            f"{self.operator_name()}.{self.c_field(field)}.Sizes is {list(self.sizes_of(field))}; {rule}"
        )

    def check_regions(self, layouts: str) -> int:
        """ROITensor: the rows of ROW values after leading 1s; NumROIs returned."""
        sizes = self.sizes_of("roi_tensor")
        if len(sizes) < 2 or sizes[-1] != self.ROW or any(size != 1 for size in sizes[:-2]):
            what = "[BatchID, x1, y1, x2, y2]" if self.ROW == 5 else "[x1, y1, x2, y2]"
            self.refuse_sizes("roi_tensor", f"it must be {layouts}: one row {what} per region, leading sizes 1")
        return sizes[-2]

    def check_batch_indices(self, count: int) -> None:
        """BatchIndicesTensor: {NumROIs} after leading 1s, one batch index per region."""
        sizes = self.sizes_of("batch_indices_tensor")
        if sizes[-1] != count or any(size != 1 for size in sizes[:-1]):
            self.refuse_sizes(
                "batch_indices_tensor",
                f"it must be {{NumROIs}}, {{1, NumROIs}}, {{1, 1, NumROIs}} or {{1, 1, 1, NumROIs}} with NumROIs "
                f"{count} (ROITensor's regions): one batch index per region, leading sizes 1",
            )

    def check_per_region(self, field: str, count: int, channels: int | None) -> None:
        """A tensor {NumROIs, ChannelCount, ..} (InputGradientTensor, whose Sizes no output rule gives): NumROIs
        ROITensor's, ChannelCount InputTensor's where it is given."""
        sizes = self.sizes_of(field)
        if sizes[0] != count:
            self.refuse_sizes(
                field,
                f"Sizes[0] must be NumROIs, {count} (ROITensor's regions): it is the forward pass's output, "
                "{NumROIs, ChannelCount, OutputHeight, OutputWidth}",
            )
        if channels is not None and sizes[1] != channels:
            self.refuse_sizes(
                field,
                f"Sizes[1] must be ChannelCount, {channels} (InputTensor.Sizes[1]): it is the forward pass's output, "
                "{NumROIs, ChannelCount, OutputHeight, OutputWidth}",
            )

    def check_reduction(self) -> None:
        function = self.reduction_function
        if function not in _REDUCTIONS:
            raise InvalidArgumentError(
                f"{self.operator_name()}.ReductionFunction is {function.c_name}; it must be "
                "DML_REDUCE_FUNCTION_AVERAGE or DML_REDUCE_FUNCTION_MAX: the page reduces each output element's "
                "samples with one of those two"
            )

    def check_samples(self) -> None:
        low, high = self.minimum_samples_per_output, self.maximum_samples_per_output
        name = self.operator_name()
        if low == 0:
            raise InvalidArgumentError(
                f"{name}.MinimumSamplesPerOutput is 0; it must be at least 1: the samples per output element are "
                "clamp(ScaledCropSize / OutputSize, MinimumSamplesPerOutput, MaximumSamplesPerOutput), and 0 samples "
                "reduce nothing (ONNX's adaptive sampling_ratio 0 is Minimum 1, Maximum 4294967295)"
            )
        if low > high:
            raise InvalidArgumentError(
                f"{name}.MinimumSamplesPerOutput is {low}; it must be at most MaximumSamplesPerOutput ({high}): the "
                "sample count is clamped to [MinimumSamplesPerOutput, MaximumSamplesPerOutput]"
            )
