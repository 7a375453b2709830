"""DML_ADAM_OPTIMIZER_OPERATOR_DESC (DML_FEATURE_LEVEL_3_0), a training operator: one step of Adam (Kingma and Ba)
from Microsoft's page (MicrosoftDocs/sdk-api ns-directml-dml_adam_optimizer_operator_desc.md;
docs/operators/adam_optimizer.md):

    M = Beta1 * M + (1 - Beta1) * Gradient
    V = Beta2 * V + (1 - Beta2) * Gradient^2
    X = X - LearningRate * sqrt(1 - Beta2^T) / (1 - Beta1^T) * M / (sqrt(V) + Epsilon)

X, M and V are InputParametersTensor, InputFirstMomentTensor and InputSecondMomentTensor, written to the three
outputs; T is TrainingStepTensor, a scalar the operator does not increment. The parameters, the moments, the
gradient and the outputs have one DataType, DimensionCount and Sizes (4 dimensions, FLOAT32 or FLOAT16);
TrainingStepTensor is {1, 1, 1, 1}. dmlpy validates it and does not run it yet.

Where the page disagrees with itself: TrainingStepTensor's text says it must be UINT32, its table row says FLOAT32
or FLOAT16; dmlpy follows the table (as support.json and check_support.py encode it).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType
from dmlpy.errors import InvalidArgumentError
from dmlpy.ops._base import OutputShape
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import FLOATS
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L = FeatureLevel
_TENSORS = (
    "InputParametersTensor",
    "InputFirstMomentTensor",
    "InputSecondMomentTensor",
    "GradientTensor",
    "TrainingStepTensor",
    "OutputParametersTensor",
    "OutputFirstMomentTensor",
    "OutputSecondMomentTensor",
)
_PAGE = (
    "GradientTensor, InputFirstMomentTensor, InputParametersTensor, InputSecondMomentTensor, OutputFirstMomentTensor, "
    "OutputParametersTensor, and OutputSecondMomentTensor must have the same DataType, DimensionCount, and Sizes"
)


class AdamOptimizerOperatorDesc(StructuredDesc):
    """DML_ADAM_OPTIMIZER_OPERATOR_DESC: one Adam step, the parameters and both moments updated from the
    gradient."""

    OPERATOR_TYPE = OperatorType.ADAM_OPTIMIZER
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE, frozenset(), ((L.FL_3_0, dict.fromkeys(_TENSORS, ((4, 4), FLOATS))),)
    )
    INPUTS = (
        "input_parameters_tensor",
        "input_first_moment_tensor",
        "input_second_moment_tensor",
        "gradient_tensor",
        "training_step_tensor",
    )
    OUTPUTS = ("output_parameters_tensor", "output_first_moment_tensor", "output_second_moment_tensor")
    SAME_DATA_TYPE = (tuple(name for name in (*INPUTS, *OUTPUTS) if name != "training_step_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    SUPPORTS_IN_PLACE = True  # the page: each output may be bound to an eligible input, TrainingStepTensor aside

    input_parameters_tensor: TensorDesc = Field(alias="InputParametersTensor")
    """InputParametersTensor: the parameters X before the step, { D0, D1, D2, D3 }."""
    input_first_moment_tensor: TensorDesc = Field(alias="InputFirstMomentTensor")
    """InputFirstMomentTensor: the first moment M (the running mean of the gradient), InputParametersTensor's
    Sizes; zeros at the first step."""
    input_second_moment_tensor: TensorDesc = Field(alias="InputSecondMomentTensor")
    """InputSecondMomentTensor: the second moment V (the running mean of the squared gradient), InputParametersTensor's
    Sizes; zeros at the first step."""
    gradient_tensor: TensorDesc = Field(alias="GradientTensor")
    """GradientTensor: the gradient of the loss with respect to the parameters, InputParametersTensor's Sizes."""
    training_step_tensor: TensorDesc = Field(alias="TrainingStepTensor")
    """TrainingStepTensor: the step T, a scalar { 1, 1, 1, 1 } (FLOAT32 or FLOAT16 in the page's table); the
    operator does not increment it."""
    output_parameters_tensor: TensorDesc = Field(alias="OutputParametersTensor")
    """OutputParametersTensor: the parameters after the step, InputParametersTensor's Sizes (it may be the input,
    in place)."""
    output_first_moment_tensor: TensorDesc = Field(alias="OutputFirstMomentTensor")
    """OutputFirstMomentTensor: the updated first moment, InputParametersTensor's Sizes."""
    output_second_moment_tensor: TensorDesc = Field(alias="OutputSecondMomentTensor")
    """OutputSecondMomentTensor: the updated second moment, InputParametersTensor's Sizes."""
    learning_rate: float = Field(alias="LearningRate")
    """LearningRate (FLOAT): the step size."""
    beta1: float = Field(alias="Beta1")
    """Beta1 (FLOAT): the first moment's decay, typically 0.9."""
    beta2: float = Field(alias="Beta2")
    """Beta2 (FLOAT): the second moment's decay, typically 0.999."""
    epsilon: float = Field(alias="Epsilon")
    """Epsilon (FLOAT): added to sqrt(V) to avoid dividing by zero, typically 1e-8 or FLT_EPSILON."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """Each output: InputParametersTensor's Sizes and DataType."""
        parameters = inputs["input_parameters_tensor"]
        assert parameters is not None
        return tuple(
            OutputShape(
                parameters.sizes,
                parameters.data_type,  # type: ignore[arg-type]
                f"{cls.c_field(output)} has InputParametersTensor's Sizes and DataType (the page: {_PAGE})",
            )
            for output in cls.OUTPUTS
        )

    def check_shape_rules(self, level: FeatureLevel) -> None:
        note = f" (the page: {_PAGE})"
        self.check_same(("sizes",), "input_parameters_tensor", self.INPUTS[1:4], note)
        sizes = self.training_step_tensor.desc.sizes
        if any(size != 1 for size in sizes):
            raise InvalidArgumentError(
                f"{self.operator_name()}.TrainingStepTensor.Sizes is {list(sizes)}; it must be {[1] * len(sizes)}: "
                "the training step is a scalar (the page: { 1, 1, 1, 1 })"
            )
