"""DML_TILE_OPERATOR_DESC (FL 1_0), from Microsoft's page: the input repeated Repeats[i] times along each dimension,
OutputTensor.Sizes[i] = InputTensor.Sizes[i] * Repeats[i] (np.tile, ONNX's Tile). RepeatsCount is InputTensor's
DimensionCount and every repeat is at least 1. Its tables name no FLOAT64 at any level (SLICE's, JOIN's and SPLIT's
add it at FL 4_1). dmlpy runs it: opencl/movement.cl reads the input at each coordinate modulo its Sizes.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, OperatorPlan
from dmlpy.kernels.movement import Boundary, Window
from dmlpy.model import UInt32
from dmlpy.ops._base import OutputShape
from dmlpy.ops._movement import window_plan
from dmlpy.ops._reshaping import FL_2_1_TYPES, TILE_4_1_TYPES, PerDimensionDesc, table
from dmlpy.ops._types import FLOATS
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L = FeatureLevel


class TileOperatorDesc(PerDimensionDesc):
    """DML_TILE_OPERATOR_DESC: OutputTensor = InputTensor repeated Repeats[i] times along each dimension i."""

    OPERATOR_TYPE = OperatorType.TILE
    BUILDER_NAME = "tile"
    ONNX_OPS = ("Tile",)
    SUPPORT = table(
        OPERATOR_TYPE,
        ("InputTensor", "OutputTensor"),
        ((L.FL_1_0, (4, 4), FLOATS), (L.FL_2_1, (4, 4), FL_2_1_TYPES), (L.FL_3_1, (1, 8), FL_2_1_TYPES),
         (L.FL_4_1, (1, 8), TILE_4_1_TYPES)),
    )  # fmt: skip
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"repeats_count": ("repeats",)}

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor to repeat."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: Sizes[i] = InputTensor.Sizes[i] * Repeats[i]; InputTensor's DataType and DimensionCount."""
    # Left out, it is derived from Repeats (COUNTED_ARRAYS), so after construction it is an int.
    repeats_count: UInt32 = Field(default=None, alias="RepeatsCount")  # type: ignore[assignment]
    """RepeatsCount: the entries of Repeats, InputTensor's DimensionCount; derived when left out."""
    repeats: tuple[UInt32, ...] = Field(alias="Repeats")
    """Repeats: how many times the input is repeated along each dimension, at least 1."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """InputTensor.Sizes[i] * Repeats[i], with InputTensor's DataType."""
        source = inputs["input_tensor"]
        assert source is not None
        sizes = tuple(size * repeat for size, repeat in zip(source.sizes, fields["repeats"], strict=True))
        rule = "OutputTensor.Sizes[i] = InputTensor.Sizes[i] * Repeats[i]"
        return (OutputShape(sizes, source.data_type, rule),)  # type: ignore[arg-type]

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """OutputTensor[c] = InputTensor[c modulo InputTensor.Sizes]: movement.cl's WRAP."""
        sizes = self.input_tensor.desc.sizes
        window = Window(sizes, (0,) * len(sizes), (1,) * len(sizes), Boundary.WRAP)
        return window_plan(self.input_tensor, self.output_tensor, window, profile)

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """RepeatsCount is InputTensor's DimensionCount; every repeat is at least 1."""
        self.check_count_is_the_rank()
        for dim, repeat in enumerate(self.repeats):
            if repeat < 1:
                raise InvalidArgumentError(
                    f"{self.operator_name()}.Repeats[{dim}] is {repeat}; it must be at least 1: 1 keeps the "
                    "dimension as it is, n repeats it n times"
                )
