"""The reductions over Axes: DML_REDUCE_OPERATOR_DESC (FL 1_0, twelve functions), DML_ARGMIN_OPERATOR_DESC and
DML_ARGMAX_OPERATOR_DESC (FL 3_0), from Microsoft's pages (MicrosoftDocs/sdk-api ns-directml-dml_reduce_operator_desc
.md, ..._argmin_..., ..._argmax_...).

Each maps the N elements that share their coordinates outside ``Axes`` (N the product of the reduced Sizes) to one
output element: OutputTensor has InputTensor's DimensionCount and Sizes, each dimension of Axes made 1. REDUCE's
output has the input's DataType but under ARGMIN and ARGMAX, whose output is an index (an integer type of the
table's); ARGMIN's and ARGMAX's always is. REDUCE's page gives one support table per group of functions
(``SupportTable.variant``), so a descriptor is checked against its Function's (``support_table``).

Left open by the pages and decided here: AxisCount 0 (no axis to reduce) and an axis named twice are refused, as
SOFTMAX1 refuses them; to reduce the whole tensor, Axes lists every dimension (the pages' example 3). What each
function computes where the pages name it only (NaN, ties, integer overflow, accuracy) is opencl/reduce.cl's header
and docs/operators/reduction.md: NumPy's and onnx.reference's rules; integer sums and products wrap modulo 2^width.
dmlpy runs all three, one work-item per group (``lower``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from dmlpy.drawing.axes import ReducedAxes
from dmlpy.dtypes import AnyDataType
from dmlpy.enums import AxisDirection, FeatureLevel, OperatorType, ReduceFunction, TensorDataType
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, LoweredOperator, OperatorPlan
from dmlpy.kernels.reduce_split import split_reduce_plan
from dmlpy.kernels.reduction import reduce_kernel
from dmlpy.model import UInt32
from dmlpy.ops._axes import check_axes, reduced_sizes
from dmlpy.ops._base import OutputShape
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import FLOATS, INTEGERS_8_32, INTEGERS_32, INTEGERS_64
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L, F = FeatureLevel, ReduceFunction
Dims = tuple[int, int]
_FOUR, _ANY = (4, 4), (1, 8)
_EIGHT = FLOATS | INTEGERS_8_32
"""FLOAT32, FLOAT16 and the 8- to 32-bit integers."""
_INDICES = INTEGERS_32 | INTEGERS_64
"""An index output from FL 3_0: INT64, INT32, UINT64, UINT32."""
_UINT32 = frozenset({TensorDataType.UINT32})


Row = tuple[FeatureLevel, Dims, frozenset[TensorDataType], frozenset[TensorDataType] | None]
"""A row of these pages' tables: its level, the dimension counts, InputTensor's types, OutputTensor's (None: the
input's)."""


def _table(operator: OperatorType, functions: tuple[ReduceFunction, ...], *rows: Row) -> SupportTable:
    """One of the pages' tables; under REDUCE, the one of ``functions``."""
    named = " or ".join(function.name for function in functions)
    return SupportTable.per_tensor(
        operator,
        frozenset(),
        tuple(
            (level, {"InputTensor": (dims, x), "OutputTensor": (dims, x if y is None else y)})
            for level, dims, x, y in rows
        ),
        f"Function {named}" if functions else "",
    )


_ARG_ROWS: tuple[Row, ...] = (
    (L.FL_1_0, _FOUR, FLOATS, _UINT32),
    (L.FL_2_1, _FOUR, _EIGHT, _UINT32),
    (L.FL_3_0, _ANY, _EIGHT, _INDICES),
    (L.FL_4_1, _ANY, _EIGHT | INTEGERS_64, _INDICES),
)
_R = OperatorType.REDUCE
_REDUCE_TABLES: dict[ReduceFunction, SupportTable] = {}
for _functions, _table_rows in (
    ((F.ARGMIN, F.ARGMAX), _ARG_ROWS),
    ((F.AVERAGE, F.L2, F.LOG_SUM, F.LOG_SUM_EXP), ((L.FL_1_0, _FOUR, FLOATS, None), (L.FL_3_0, _ANY, FLOATS, None))),
    (
        (F.L1, F.SUM_SQUARE),
        (
            (L.FL_1_0, _FOUR, FLOATS, None),
            (L.FL_3_0, _ANY, FLOATS, None),
            (L.FL_5_0, _ANY, FLOATS | INTEGERS_32 | INTEGERS_64, None),
        ),
    ),
    (
        (F.MIN, F.MAX),
        (
            (L.FL_1_0, _FOUR, FLOATS, None),
            (L.FL_2_1, _FOUR, FLOATS | INTEGERS_32, None),
            (L.FL_3_0, _ANY, _EIGHT, None),
            (L.FL_5_0, _ANY, _EIGHT | INTEGERS_64, None),
        ),
    ),
    (
        (F.MULTIPLY, F.SUM),
        (
            (L.FL_1_0, _FOUR, FLOATS, None),
            (L.FL_2_1, _FOUR, FLOATS | INTEGERS_32, None),
            (L.FL_3_0, _ANY, FLOATS | INTEGERS_32, None),
            (L.FL_5_0, _ANY, FLOATS | INTEGERS_32 | INTEGERS_64, None),
        ),
    ),
):
    _REDUCE_TABLES.update(dict.fromkeys(_functions, _table(_R, _functions, *_table_rows)))


def _union(operator: OperatorType, tables: list[SupportTable]) -> SupportTable:
    """Every type and dimension count any of ``tables`` allows at each of their levels: what the operator list
    shows for REDUCE (a descriptor is checked against its Function's own table)."""
    levels = sorted({row.level for table in tables for row in table.rows})
    rows = []
    for level in levels:
        in_force = [table.row_for(level) for table in tables]
        types = {
            name: (
                (
                    min(r.dimension_counts_of(name)[0] for r in in_force),
                    max(r.dimension_counts_of(name)[1] for r in in_force),
                ),
                frozenset().union(*(r.data_types[name] for r in in_force)),
            )
            for name in ("InputTensor", "OutputTensor")
        }
        rows.append((level, types))
    return SupportTable.per_tensor(operator, frozenset(), tuple(rows))


_KernelArguments = tuple[
    int, bool, AnyDataType, AnyDataType, tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]
]
"""reduce_kernel's arguments but the profile: the function, whether the last index, the types, the input's Sizes,
both tensors' strides, Axes."""


class _AxesReductionDesc(StructuredDesc):
    """InputTensor reduced over Axes into OutputTensor of the same DimensionCount, each reduced dimension 1."""

    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SAME_DIMENSION_COUNT = (("input_tensor", "output_tensor"),)
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"axis_count": ("axes",)}

    if TYPE_CHECKING:
        input_tensor: TensorDesc
        output_tensor: TensorDesc
        axis_count: int
        axes: tuple[int, ...]

    @classmethod
    def index_output(cls, fields: dict[str, Any]) -> bool:
        """Whether the output holds indices (its DataType the caller's choice within the table)."""
        return True

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """InputTensor's Sizes with each dimension of Axes made 1; its DataType, or an index type's."""
        x = inputs["input_tensor"]
        assert x is not None and isinstance(x.data_type, TensorDataType)  # a DirectML operator's tensor
        axes = list(fields["axes"])
        rule = (
            f"InputTensor.Sizes {list(x.sizes)} with each dimension of Axes {axes} made 1 (the rank is kept, the "
            "reduced dimensions have size 1)"
        )
        index = cls.index_output(fields)
        if not index:
            rule += ", InputTensor's DataType"
        return (OutputShape(reduced_sizes(x.sizes, axes), None if index else x.data_type, rule),)

    def describe(self) -> str:
        return f"{self.operator_name()} ({self.input_tensor.desc.data_type.name}, Axes {list(self.axes)})"

    def drawn_shape(self) -> ReducedAxes:
        """The input's Sizes, Axes and the output's Sizes by the rule, for the picture."""
        (output,) = self.expected_outputs()
        assert output.sizes is not None  # the rule gives every Size
        fields = {name: getattr(self, name) for name in type(self).model_fields}
        function = fields.get("function", self.OPERATOR_TYPE).name  # REDUCE's Function; ARGMIN, ARGMAX themselves
        return ReducedAxes(
            self.input_tensor.desc.sizes, tuple(self.axes), output.sizes, function, self.index_output(fields)
        )

    def check_shape_rules(self, level: FeatureLevel) -> None:
        check_axes(self, self.axes, self.input_tensor.desc.dimension_count)

    def computed(self) -> tuple[ReduceFunction, bool]:
        """reduce.cl's function, and whether ARGMIN or ARGMAX give the last extreme's index."""
        raise NotImplementedError

    def _kernel_arguments(self) -> _KernelArguments:
        """reduce_kernel's arguments but the profile (the output's strides 0 along Axes, where it has one
        element)."""
        function, last_index = self.computed()
        source, target = self.input_tensor.desc, self.output_tensor.desc
        output_strides = tuple(0 if d in self.axes else s for d, s in enumerate(target.effective_strides))
        strides = (source.effective_strides, output_strides)
        return function.value, last_index, source.data_type, target.data_type, source.sizes, strides, self.axes

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """reduce.cl, one work-item per group of the kept dimensions (a graph's fused group anchors on it)."""
        return reduce_kernel(*self._kernel_arguments(), profile)

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """Few long groups: a partial launch over chunks and a combine (dmlpy/kernels/reduce_split.py); else the
        one launch of ``lower``."""
        split = split_reduce_plan(*self._kernel_arguments(), profile)
        return split if split is not None else super().plan(profile)


class ReduceOperatorDesc(_AxesReductionDesc):
    """DML_REDUCE_OPERATOR_DESC: each output element is Function (ARGMAX, ARGMIN, AVERAGE, L1, L2, LOG_SUM,
    LOG_SUM_EXP, MAX, MIN, MULTIPLY, SUM, SUM_SQUARE) of the InputTensor elements that share its coordinates outside
    Axes."""

    OPERATOR_TYPE = OperatorType.REDUCE
    BUILDER_NAME = "reduce"
    ONNX_OPS = (
        *("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2"),
        *("ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"),
    )
    TABLES: ClassVar[dict[ReduceFunction, SupportTable]] = _REDUCE_TABLES
    """The page's tables, one per group of functions (ARGMIN and ARGMAX; AVERAGE, L2, LOG_SUM, LOG_SUM_EXP; L1 and
    SUM_SQUARE; MIN and MAX; MULTIPLY and SUM), by Function."""
    SUPPORT = _union(OperatorType.REDUCE, list({id(t): t for t in _REDUCE_TABLES.values()}.values()))
    """What any Function allows, for the operator list; a descriptor is checked against its Function's table."""

    function: ReduceFunction = Field(alias="Function")
    """Function: the reduction; ARGMAX and ARGMIN give the index of the (first) extreme within the reduced
    dimensions, flattened in their order."""
    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor to reduce."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's DimensionCount and Sizes, each dimension of Axes 1; InputTensor's DataType (an
    integer index type under ARGMAX and ARGMIN)."""
    # Left out, it is derived from Axes (COUNTED_ARRAYS), so after construction it is an int.
    axis_count: UInt32 = Field(default=None, alias="AxisCount")  # type: ignore[assignment]
    """AxisCount: the entries of Axes; derived when left out."""
    axes: tuple[UInt32, ...] = Field(alias="Axes")
    """Axes: the dimensions to reduce along, each once, each in [0, InputTensor.DimensionCount - 1]."""

    @classmethod
    def index_output(cls, fields: dict[str, Any]) -> bool:
        return fields.get("function") in (F.ARGMIN, F.ARGMAX)

    def support_table(self) -> SupportTable:
        return self.TABLES[self.function]

    def computed(self) -> tuple[ReduceFunction, bool]:
        return self.function, False

    def describe(self) -> str:
        return f"{super().describe()[:-1]}, Function {self.function.name})"

    def check_shape_rules(self, level: FeatureLevel) -> None:
        super().check_shape_rules(level)
        if self.function not in (F.ARGMIN, F.ARGMAX):
            note = (
                f" (the page: the input and output data types must match except under ARGMAX and ARGMIN; Function "
                f"is {self.function.name})"
            )
            self.check_same(("data_type",), "input_tensor", ("output_tensor",), note)


class _ArgDesc(_AxesReductionDesc):
    """ARGMIN and ARGMAX: the index of the extreme within the reduced dimensions, the first or the last of equal
    ones as AxisDirection says."""

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor to reduce."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's DimensionCount and Sizes, each dimension of Axes 1; INT32, UINT32, INT64 or
    UINT64, the index within the reduced dimensions (flattened in their order: all of a 3 x 3 input's give 0 to
    8)."""
    # Left out, it is derived from Axes (COUNTED_ARRAYS), so after construction it is an int.
    axis_count: UInt32 = Field(default=None, alias="AxisCount")  # type: ignore[assignment]
    """AxisCount: the entries of Axes; derived when left out."""
    axes: tuple[UInt32, ...] = Field(alias="Axes")
    """Axes: the dimensions to reduce along, each once, each in [0, InputTensor.DimensionCount - 1]."""
    axis_direction: AxisDirection = Field(alias="AxisDirection")
    """AxisDirection: INCREASING gives the first extreme of equal ones (as REDUCE's ARGMIN and ARGMAX), DECREASING
    the last."""

    FUNCTION: ClassVar[ReduceFunction]

    def computed(self) -> tuple[ReduceFunction, bool]:
        return self.FUNCTION, self.axis_direction == AxisDirection.DECREASING


class ArgMinOperatorDesc(_ArgDesc):
    """DML_ARGMIN_OPERATOR_DESC: the index of the minimum of the InputTensor elements that share each output
    element's coordinates outside Axes."""

    OPERATOR_TYPE = OperatorType.ARGMIN
    BUILDER_NAME = "arg_min"
    ONNX_OPS = ("ArgMin",)
    FUNCTION = F.ARGMIN
    SUPPORT = _table(OPERATOR_TYPE, (), *_ARG_ROWS[2:])
    """The page's tables: REDUCE's ARGMIN and ARGMAX table from FL 3_0."""


class ArgMaxOperatorDesc(_ArgDesc):
    """DML_ARGMAX_OPERATOR_DESC: the index of the maximum of the InputTensor elements that share each output
    element's coordinates outside Axes."""

    OPERATOR_TYPE = OperatorType.ARGMAX
    BUILDER_NAME = "arg_max"
    ONNX_OPS = ("ArgMax",)
    FUNCTION = F.ARGMAX
    SUPPORT = _table(OPERATOR_TYPE, (), *_ARG_ROWS[2:])
    """As ARGMIN's."""


REDUCTION_OPERATORS = (ReduceOperatorDesc, ArgMinOperatorDesc, ArgMaxOperatorDesc)
"""The reductions over Axes, in the operator table's order."""
