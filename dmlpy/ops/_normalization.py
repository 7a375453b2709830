"""The normalization family's shared rules (docs/operators/normalization.md): BATCH_NORMALIZATION and its
gradient and training forms, MEAN_VARIANCE_NORMALIZATION(1, 2), LOCAL_RESPONSE_NORMALIZATION(_GRAD) and
LP_NORMALIZATION.

Their pages relate tensors three ways, declared here and checked by ``NormalizationDesc``: groups that "must have
the same Sizes" (``SAME_SIZES``: inputs only; an output's Sizes are its output rule's, whose refusal shows the
formula), statistics and parameters whose every dimension is 1 (broadcast) or the input's (``BROADCAST``), and each
output taking one input's Sizes (``OUTPUT_SIZES_OF``) with InputTensor's DataType. The forms dmlpy runs lower
themselves (BATCH_NORMALIZATION to the element-wise template, the mean-variance and Lp normalizations to
opencl/normalize.cl, with ``activation_prelude`` for a FusedActivation); the others keep the base's UnsupportedError.
"""

from __future__ import annotations

from typing import Any, ClassVar

from dmlpy.enums import FeatureLevel
from dmlpy.errors import InvalidArgumentError
from dmlpy.ops._base import OutputShape
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import FLOATS
from dmlpy.ops.fused_activation import FusedActivation
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L = FeatureLevel
Dims = tuple[int, int]


def float_rows(
    tensors: tuple[str, ...], levels: tuple[tuple[FeatureLevel, Dims], ...]
) -> tuple[tuple[FeatureLevel, dict[str, tuple[Dims, frozenset[Any]]]], ...]:
    """The rows of a page whose tensors all take FLOAT32 and FLOAT16 and one dimension-count range per level."""
    return tuple((level, dict.fromkeys(tensors, (dims, FLOATS))) for level, dims in levels)


def listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


class NormalizationDesc(StructuredDesc):
    """A normalization operator: its page's same-Sizes groups, its broadcast statistics and parameters, and each
    output's Sizes from one input's."""

    SAME_SIZES: ClassVar[tuple[tuple[str, ...], ...]] = ()
    """The page's groups of input tensors (snake_case) that must have the same Sizes."""
    BROADCAST: ClassVar[tuple[str, ...]] = ()
    """Tensors (snake_case) each of whose dimensions is 1 (broadcast) or InputTensor's."""
    OUTPUT_SIZES_OF: ClassVar[dict[str, str]] = {}
    """Output field -> the input field whose Sizes it has; left out, InputTensor's."""
    PAGE_SIZES: ClassVar[str] = "InputTensor and OutputTensor must have the same Sizes"
    """The page's sentence that gives the outputs' Sizes, quoted in the output rule."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """Each output: the Sizes of the input ``OUTPUT_SIZES_OF`` names (InputTensor's by default) and
        InputTensor's DataType."""
        source = inputs["input_tensor"]
        assert source is not None
        shapes = []
        for output in cls.OUTPUTS:
            like = cls.OUTPUT_SIZES_OF.get(output, "input_tensor")
            tensor = inputs[like]
            assert tensor is not None
            rule = (
                f"{cls.c_field(output)} has {cls.c_field(like)}'s Sizes and InputTensor's DataType "
                f"(the page: {cls.PAGE_SIZES})"
            )
            shapes.append(OutputShape(tensor.sizes, source.data_type, rule))  # type: ignore[arg-type]
        return tuple(shapes)

    def check_shape_rules(self, level: FeatureLevel) -> None:
        name = self.operator_name()
        for group in self.SAME_SIZES:
            present = [field for field in group if getattr(self, field) is not None]
            note = f" (the page: {listed([self.c_field(field) for field in group])} must have the same Sizes)"
            self.check_same(("sizes",), present[0], present[1:], note)
        inputs: TensorDesc = self.input_tensor  # type: ignore[attr-defined]
        for field in self.BROADCAST:
            tensor: TensorDesc | None = getattr(self, field)
            if tensor is None:
                continue
            where = f"{name}.{self.c_field(field)}"
            given, wanted = tensor.desc.sizes, inputs.desc.sizes
            if len(given) != len(wanted):
                raise InvalidArgumentError(
                    f"{where}.DimensionCount is {len(given)}; it must equal InputTensor.DimensionCount "
                    f"({len(wanted)}): each of its dimensions is 1 (broadcast) or InputTensor's"
                )
            for dim, (size, input_size) in enumerate(zip(given, wanted, strict=True)):
                if size not in (1, input_size):
                    raise InvalidArgumentError(
                        f"{where}.Sizes[{dim}] is {size}; it must be 1 (broadcast along that dimension) or "
                        f"InputTensor.Sizes[{dim}] ({input_size}): {where}.Sizes is {list(given)}, InputTensor's "
                        f"{list(wanted)}"
                    )
        self.check_normalization_rules(level)

    def check_normalization_rules(self, level: FeatureLevel) -> None:
        """The operator's own rules on its fields (Axes, LocalSize, P), after the tensors' relations hold."""

    def check_scale_with_bias(self, level: FeatureLevel) -> None:
        """Below DML_FEATURE_LEVEL_5_2, ScaleTensor and BiasTensor are given together or both left null."""
        scale, bias = self.scale_tensor, self.bias_tensor  # type: ignore[attr-defined]
        if level < L.FL_5_2 and (scale is None) != (bias is None):
            given, missing = ("ScaleTensor", "BiasTensor") if bias is None else ("BiasTensor", "ScaleTensor")
            raise InvalidArgumentError(
                f"{self.operator_name()}.{missing} is null while {given} is given; below DML_FEATURE_LEVEL_5_2 "
                f"ScaleTensor and BiasTensor must both be given or both be null (the page; {level.c_name} was "
                "asked): give both, or validate at DML_FEATURE_LEVEL_5_2 or higher, where either may be null alone"
            )

    def check_axes(self, axes: tuple[int, ...]) -> None:
        """Axes: at least one, each less than InputTensor's DimensionCount, each once."""
        name = self.operator_name()
        count = self.input_tensor.desc.dimension_count  # type: ignore[attr-defined]
        if not axes:
            raise InvalidArgumentError(
                f"{name}.Axes is empty; name at least one axis to compute the mean and variance along"
            )
        for index, axis in enumerate(axes):
            if axis >= count:
                raise InvalidArgumentError(
                    f"{name}.Axes[{index}] is {axis}; each axis must be less than InputTensor.DimensionCount "
                    f"({count}): axes count the dimensions from 0, the outermost"
                )
            if axis in axes[:index]:
                raise InvalidArgumentError(
                    f"{name}.Axes[{index}] is {axis}, which Axes {list(axes)} holds already; each axis may appear once"
                )

    def check_local_size(self, local_size: int) -> None:
        """LocalSize, the window's extent along each summed dimension, is at least 1."""
        if local_size < 1:
            raise InvalidArgumentError(
                f"{self.operator_name()}.LocalSize is {local_size}; it must be at least 1 (the page: the number "
                "of elements the window spans along each summed dimension)"
            )


def activation_prelude(activation: FusedActivation | None, output: TensorDesc, where: str) -> str:
    """normalize.cl's ACTIVATION(v): the FusedActivation's own expression on v (``FusedActivation.applied``; its
    arithmetic is elementwise_ops.h's), or nothing (v itself)."""
    if activation is None:
        return ""
    return f"#define ACTIVATION(v) ({activation.applied('(v)', output, where)})\n"
