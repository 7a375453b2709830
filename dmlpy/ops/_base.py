"""What every operator descriptor carries: its tensors in binding order, its rules (which feature levels accept
it and what it checks across tensors) and its lowering to an OpenCL kernel, side by side in one class.

A DirectML operator declares its support table; an extension operator (not DirectML) declares its own rules.
Either way the caller asks one question, :meth:`OperatorDescBase.validate_on`, and never needs to know which.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from dmlpy.drawing import Picture, stacked
from dmlpy.drawing.shapes import DrawnShape
from dmlpy.enums import ExtOperatorType, ExtRoundingMode, FeatureLevel, OperatorType, RoundingMode, TensorDataType
from dmlpy.errors import InvalidArgumentError, UnsupportedError
from dmlpy.kernels import CPU_PROFILE, InputView, LaunchProfile, LoweredOperator, OperatorPlan
from dmlpy.model import DmlModel
from dmlpy.modes import EXTENSION_EQUIVALENT, OTHER_MODE_NAMES
from dmlpy.problems import show
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc, check_buffer_tensor


@dataclass(frozen=True)
class DeviceCapabilities:
    """What a device offers beyond its feature level, as far as validation needs to know."""

    fp64: bool = False
    """Double precision (cl_khr_fp64): only extension operators can use it."""


NO_CAPABILITIES = DeviceCapabilities()


@dataclass(frozen=True)
class OutputShape:
    """One output tensor as its operator's rule makes it from the inputs and fields: what validation requires of a
    given OutputTensor, and what the graph builder, the ONNX backend and the one-liners allocate."""

    sizes: tuple[int, ...] | None
    """None where the output's Sizes are the caller's choice and the operator's own rules check them
    (MAX_UNPOOLING's output; AVERAGE_POOLING_GRAD's, any forward input whose pooling gives InputGradientTensor)."""
    data_type: TensorDataType | None
    """None where the output's DataType is the caller's choice within the support table (CAST's target, IS_NAN's
    UINT8 or UINT32, QUANTIZE_LINEAR's without a zero point)."""
    rule: str
    """The rule in words, shown when a given output breaks it: ``InputTensor.Sizes``."""
    chosen: tuple[int, ...] = ()
    """Dimensions of ``sizes`` whose size the caller chooses, any above 0 (ONE_HOT's depth along Axis)."""

    def expected_of(self, given: tuple[int, ...]) -> tuple[int, ...] | None:
        """The Sizes a given output must have: ``sizes`` with the chosen dimensions taken from ``given``."""
        if self.sizes is None or not self.chosen or len(given) != len(self.sizes):
            return self.sizes
        return tuple(g if dim in self.chosen else w for dim, (g, w) in enumerate(zip(given, self.sizes, strict=True)))


_CEIL_NAMES = {"CEIL", "UP", "ROUND_UP"}
_FLOOR_NAMES = {"FLOOR", "DOWN", "ROUND_DOWN"}


def _parses_as(enum_class: type[RoundingMode] | type[ExtRoundingMode], value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return False
    try:
        enum_class.parse(value)
    except ValueError:
        return False
    return True


def directml_mode_hint(value: Any) -> str:
    """A note on a value DirectML's RoundingMode refused: another system's name, ceil or floor, an extension
    mode."""
    name = value.strip() if isinstance(value, str) else None
    if name is not None and name.lower() in OTHER_MODE_NAMES:
        return f"({name!r} is another system's name; DirectML calls it {OTHER_MODE_NAMES[name.lower()].name})"
    if name is not None and name.upper() in _CEIL_NAMES:
        return (
            "(DirectML has no ceil mode; TOWARD_INFINITY rounds halves away from zero, it is not ceil: DirectML's "
            "ceil is the operator ELEMENT_WISE_CEIL, dml.graph.ceil)"
        )
    if name is not None and name.upper() in _FLOOR_NAMES:
        return (
            "(DirectML has no floor mode; TOWARD_ZERO truncates, which is floor for positive values only: DirectML's "
            "floor is the operator ELEMENT_WISE_FLOOR, dml.graph.floor)"
        )
    if _parses_as(ExtRoundingMode, value):
        return (
            f"({show(ExtRoundingMode.parse(value))} is a dmlpy extension mode, not DirectML; the extension operators "
            "in dmlpy.extensions take it)"
        )
    return ""


def extension_mode_hint(value: Any) -> str:
    """A note on a value an extension's ExtRoundingMode refused: another system's name, DirectML's numbering."""
    name = value.strip() if isinstance(value, str) else None
    if name is not None and name.lower() in OTHER_MODE_NAMES:
        extension_mode = EXTENSION_EQUIVALENT[OTHER_MODE_NAMES[name.lower()]]
        return f"({name!r} is another system's name; the extension calls it {extension_mode.name})"
    if name is not None and name.upper() in {"CEIL", "FLOOR"}:
        return f"(the extension calls {name.lower()} {'UP' if name.upper() == 'CEIL' else 'DOWN'})"
    if _parses_as(RoundingMode, value):
        mode = RoundingMode.parse(value)
        return (
            f"({show(value)} is DirectML's {mode.name}; the extension's modes are numbered from 0x80000000, and "
            f"its name for this one is {EXTENSION_EQUIVALENT[mode].name})"
        )
    return ""


class OperatorDescBase(DmlModel):
    """Base of the DML_*_OPERATOR_DESC models. Subclasses declare, as class data, their operator type, tensor
    fields in binding order, whether the output may alias an input (in-place), for DirectML operators the support
    table, and where the graph builder and the ONNX backend offer it; implement ``check_operator_rules``; and give
    their ``expression`` (the element-wise template lowers it) or their own ``lower``."""

    OPERATOR_TYPE: ClassVar[OperatorType | ExtOperatorType]
    SUPPORT: ClassVar[SupportTable]
    """DirectML's tensor-support table, one row per feature level (DirectML operators only)."""
    INPUTS: ClassVar[tuple[str, ...]]
    """Input tensor fields (snake_case) in DirectML's binding order."""
    OUTPUTS: ClassVar[tuple[str, ...]]
    """Output tensor fields (snake_case) in DirectML's binding order."""
    SUPPORTS_IN_PLACE: ClassVar[bool]
    BUILDER_NAME: ClassVar[str | None] = None
    """The operator's function in the graph builder, ``dml.graph.<BUILDER_NAME>``: DirectMLX's name in snake_case
    (``round`` for ``dml::Round``); None where the builder has none (the extensions: a graph holds DirectML
    operators only)."""
    BUILDER_OUTPUT_TYPE: ClassVar[TensorDataType | None] = None
    """DirectMLX's default ``outputDataType`` for an operator whose OutputTensor's DataType is its own choice, not
    the input's (UINT8 for IS_NAN); the builder function then takes a ``dtype`` keyword. None: the input's."""
    BUILDER_DEFAULTS: ClassVar[dict[str, Any]] = {}
    """Field -> the builder's default for it where DirectMLX has one and the C struct none (LEAKY_RELU's Alpha 0.01):
    the descriptor keeps the field required, as the C struct does."""
    BUILDER_KEYWORDS: ClassVar[dict[str, str]] = {}
    """Field -> the builder's keyword for it, where the builder names a field otherwise (Round's ``mode``)."""
    BUILDER_DERIVED: ClassVar[tuple[str, ...]] = ()
    """Fields the builder takes no keyword for, as the descriptor derives them (SOFTMAX1's AxisCount, from Axes)."""
    ONNX_OPS: ClassVar[tuple[str, ...]] = ()
    """The ONNX op types the ONNX backend lowers to this operator (``Round``); empty where none."""
    FLOAT32_ULPS: ClassVar[int] = 0
    """How far a FLOAT32 result may lie from the exact one, in float32 ULPs: 0 where it is exact or correctly
    rounded (every operator but those an OpenCL built-in computes), else the OpenCL specification's bound for the
    built-in (EXP 3, ...), carried through the rest of the operator's formula where it has one (the exponential and
    softmax activations, POW: derived in their docs pages, never a measured maximum; docs and the tests'
    tolerances read it). A FLOAT16 result is then correctly rounded, or within one ULP of half precision."""
    BARE_FORM: ClassVar[bool] = True
    """Whether a bare (unwrapped, Type-less) JSON descriptor may mean this operator when its fields fit; False
    for operators whose fields repeat an older one's (CEIL and FLOOR have Identity's), which need their Type."""

    @classmethod
    def runs(cls) -> bool:
        """Whether dmlpy runs this operator (its family gives a lowering or a plan), not only validates it: GEMM
        and the other operators whose kernels come later answer False."""
        return cls.lower is not OperatorDescBase.lower or cls.plan is not OperatorDescBase.plan

    @classmethod
    def is_extension(cls) -> bool:
        """Whether this is a dmlpy extension (not DirectML), which no DirectML feature level accepts."""
        return isinstance(cls.OPERATOR_TYPE, ExtOperatorType)

    @classmethod
    def operator_name(cls) -> str:
        """How messages name the operator: DirectML's short name (ELEMENT_WISE_ROUND); an extension its full
        DMLPY_EXT_ spelling, so it is never mistaken for DirectML."""
        return cls.OPERATOR_TYPE.c_name if cls.is_extension() else cls.OPERATOR_TYPE.name

    @classmethod
    def struct_name(cls) -> str:
        """Messages name an operator descriptor by its operator: ``ELEMENT_WISE_ROUND.InputTensor.Sizes[1]``."""
        return cls.operator_name()

    @classmethod
    def value_hint(cls, name: str, value: Any) -> str:
        """What a refused RoundingMode is called here, when it is another system's name or the other enum's."""
        field = cls.model_fields.get(name)
        if field is not None and field.annotation is RoundingMode:
            return directml_mode_hint(value)
        if field is not None and field.annotation is ExtRoundingMode:
            return extension_mode_hint(value)
        return ""

    @classmethod
    def c_field(cls, field: str) -> str:
        """The C member name of a snake_case field, e.g. ``InputTensor``."""
        return cls.model_fields[field].alias or field

    def describe(self) -> str:
        """The operator by its type and what specialises it, for messages: ``ELEMENT_WISE_ROUND (FLOAT32)``."""
        first = self.input_tensors()[0]
        return f"{self.operator_name()} ({first.desc.data_type.name if first else '-'})"

    def drawn_shape(self) -> DrawnShape | None:
        """What the descriptor means, as the numbers its picture draws above the tensors (dmlpy.drawing.shapes: a
        matrix product's M, K and N, a window, reduced axes, parts along an axis); None where the tensors say it
        all, and where the descriptor is too broken to draw one."""
        return None

    def picture(self, problem: str | None = None) -> Picture:
        """What the descriptor means (``drawn_shape``), then each tensor's layout, in binding order, titled with
        its field; ``problem`` (a refusal's message) is drawn on top, and under the tensor it names."""
        shape = self.drawn_shape()
        pictures = [] if shape is None else [shape.picture()]
        for field in self.tensor_fields():
            tensor: TensorDesc | None = getattr(self, field)
            if tensor is None:
                continue
            name = self.c_field(field)
            named = problem is not None and f".{name}" in problem
            pictures.append(tensor.picture(f"{self.operator_name()}.{name}", problem if named else None))
        return stacked(f"{self.struct_name()} operator: {self.describe()}", pictures, problem=problem)

    def _repr_svg_(self) -> str:
        return self.picture().svg

    @classmethod
    def from_slots(cls, tensors: dict[str, BufferTensorDesc | None], **fields: Any) -> OperatorDescBase:
        """The descriptor with ``tensors`` by slot (INPUTS and OUTPUTS names; None leaves an optional one out) and
        its other ``fields``: how the one-liners build one from arrays."""
        return cls(**tensors, **fields)

    def input_fields(self) -> tuple[str, ...]:
        """This descriptor's input tensor fields in binding order: INPUTS, less any that only some of the
        operator's forms bind (QUANTIZE's zero point, under QuantizationType SCALE)."""
        return self.INPUTS

    def output_fields(self) -> tuple[str, ...]:
        """This descriptor's output tensor slots in binding order: OUTPUTS, or where an output is an array of
        tensors (SPLIT's OutputTensors) one slot per entry, ``output_tensors[0]``, ..."""
        return self.OUTPUTS

    def tensor_fields(self) -> tuple[str, ...]:
        """Every tensor field in binding order: the inputs, then the outputs."""
        return (*self.input_fields(), *self.output_fields())

    def input_tensors(self) -> list[TensorDesc | None]:
        return [getattr(self, name) for name in self.input_fields()]

    def output_tensors(self) -> list[TensorDesc | None]:
        return [getattr(self, name) for name in self.output_fields()]

    def validate_on(
        self,
        level: FeatureLevel,
        *,
        extensions: bool = False,
        capabilities: DeviceCapabilities = NO_CAPABILITIES,
    ) -> None:
        """Raise UnsupportedError or InvalidArgumentError for the first rule this descriptor breaks on a device
        at ``level`` (running extensions or not, with ``capabilities``); return None when
        IDMLDevice::CreateOperator would accept it."""
        if not self.is_extension():
            self.check_support(level)
            self.check_operator_rules(level)
        elif not extensions:
            raise UnsupportedError(
                f"{self.operator_name()} is a dmlpy extension, not DirectML: no DirectML feature level accepts it "
                f"({level.c_name} included). Run it on a device created with dml.create_device(..., extensions=True)"
            )
        else:
            self.check_extension_rules(capabilities)
        self.check_output_shapes()

    # ----------------------------------------------------------------------------------- the output rule
    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """Each output's Sizes and DataType (OUTPUTS order) from the ``inputs`` (by field; None for one left out)
        and the other ``fields``: the one place an operator says what it makes. By default an output has the first
        input's Sizes and DataType, or a DataType of its own choosing where the operator declares
        BUILDER_OUTPUT_TYPE; operators whose outputs differ override this."""
        first = next(name for name in cls.INPUTS if inputs.get(name) is not None)
        return cls.outputs_like(inputs, first, None if cls.BUILDER_OUTPUT_TYPE is not None else first)

    @classmethod
    def outputs_like(
        cls, inputs: dict[str, BufferTensorDesc | None], sizes_of: str, data_type_of: str | None
    ) -> tuple[OutputShape, ...]:
        """Every output with the Sizes of input ``sizes_of`` and the DataType of input ``data_type_of`` (its own
        choice where that is None or left out): the rule of every element-wise operator."""
        like, typed = inputs[sizes_of], inputs.get(data_type_of) if data_type_of else None
        assert like is not None
        rule = f"like {cls.c_field(sizes_of)}"
        if typed is not None and data_type_of is not None:
            rule += f"'s Sizes, with {cls.c_field(data_type_of)}'s DataType"
        shape = OutputShape(like.sizes, None if typed is None else typed.data_type, rule)  # type: ignore[arg-type]
        return (shape,) * len(cls.OUTPUTS)

    def expected_outputs(self) -> tuple[OutputShape, ...]:
        """:meth:`output_shapes` of this descriptor's own inputs and fields."""
        inputs = {name: None if (tensor := getattr(self, name)) is None else tensor.desc for name in self.INPUTS}
        tensors = {*self.INPUTS, *self.OUTPUTS}
        fields = {name: getattr(self, name) for name in type(self).model_fields if name not in tensors}
        return self.output_shapes(inputs, fields)

    def check_output_shapes(self) -> None:
        """Every given output against the rule: InvalidArgumentError showing the Sizes or DataType it must have,
        and why."""
        for name, shape in zip(self.output_fields(), self.expected_outputs(), strict=True):
            tensor: TensorDesc | None = getattr(self, name)
            if tensor is None:
                continue
            where = f"{self.operator_name()}.{self.c_field(name)}"
            wanted = shape.expected_of(tensor.desc.sizes)
            if wanted is not None and tensor.desc.sizes != wanted:
                raise InvalidArgumentError(
                    f"{where}.Sizes is {list(tensor.desc.sizes)}; it must be {list(wanted)}: {shape.rule}"
                )
            if shape.data_type is not None and tensor.desc.data_type != shape.data_type:
                raise InvalidArgumentError(
                    f"{where}.DataType is {show(tensor.desc.data_type)}; it must be {show(shape.data_type)}: "
                    f"{shape.rule}"
                )

    def support_table(self) -> SupportTable:
        """``SUPPORT``, or where the page has a table per value of a field (REDUCE's Function), that value's."""
        return self.SUPPORT

    def check_support(self, level: FeatureLevel) -> None:
        """Every tensor against the buffer-tensor rules and the support table's row at ``level``."""
        table = self.support_table()
        table.row_for(level)
        name = self.operator_name()
        for fields, is_output in ((self.input_fields(), False), (self.output_fields(), True)):
            for field in fields:
                tensor: TensorDesc | None = getattr(self, field)
                if tensor is None:
                    table.check_presence(level, self.c_field(field))
                    continue
                # The level's own dimension rule speaks first: "exactly 4 at 2_1" teaches more than "1 to 8".
                table.check_dimension_count(level, self.c_field(field), tensor.desc)
                check_buffer_tensor(tensor, f"{name}.{self.c_field(field)}", is_output=is_output)
                table.check_data_type(level, self.c_field(field), tensor.desc)

    def check_operator_rules(self, level: FeatureLevel) -> None:
        """The operator's own cross-tensor rules (shared sizes, types, attribute ranges)."""

    def check_extension_rules(self, capabilities: DeviceCapabilities) -> None:
        """An extension's rules on a device that runs extensions (extensions override this)."""
        raise UnsupportedError(f"{self.operator_name()} declares no extension rules")

    def check_buffer_tensors(self) -> None:
        """DirectML's buffer-tensor rules for every present tensor, without a support table (extensions)."""
        for fields, is_output in ((self.input_fields(), False), (self.output_fields(), True)):
            for field in fields:
                tensor: TensorDesc | None = getattr(self, field)
                if tensor is not None:
                    where = f"{self.operator_name()}.{self.c_field(field)}"
                    check_buffer_tensor(tensor, where, is_output=is_output)

    def check_same(self, attributes: Sequence[str], reference: str, fields: Sequence[str], note: str = "") -> None:
        """Each present tensor in ``fields`` must equal the ``reference`` tensor in every one of ``attributes``
        (BufferTensorDesc field names); InvalidArgumentError naming both otherwise."""
        wanted_desc = getattr(self, reference).desc
        for field in fields:
            tensor: TensorDesc | None = getattr(self, field)
            if tensor is None:
                continue
            for attribute in attributes:
                given, wanted = getattr(tensor.desc, attribute), getattr(wanted_desc, attribute)
                if given != wanted:
                    c_attribute = BufferTensorDesc.model_fields[attribute].alias
                    raise InvalidArgumentError(
                        f"{self.operator_name()}.{self.c_field(field)}.{c_attribute} is {given}; it must equal "
                        f"{self.c_field(reference)}.{c_attribute} ({wanted}){note}"
                    )

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """The OpenCL kernel and launch arguments that compute this operator on devices of ``profile``'s kind
        (pure; no OpenCL needed). Each family's base class gives it (the element-wise template:
        :class:`dmlpy.ops._elementwise.ElementwiseDesc`); an operator of a family with none (GEMM, CONVOLUTION)
        raises UnsupportedError: dmlpy validates it, and does not run it yet."""
        if type(self).plan is not OperatorDescBase.plan:
            raise UnsupportedError(
                f"{self.describe()} runs as a plan of launches, not one kernel: read desc.plan(profile) (what "
                "compile_operator and a graph node run)"
            )
        raise UnsupportedError(
            f"{self.describe()}: dmlpy validates {self.operator_name()} but does not run it yet (no OpenCL kernel); "
            "dml.validate and `dmlpy validate` check it, compiling it waits for its family's kernels"
        )

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """The launches that compute this operator, in order, and the temporary regions between them: by default
        its one kernel (:meth:`lower`) over its tensors in binding order. An operator that needs several passes
        overrides this; ``compile_operator`` and a graph node run whatever it gives."""
        tensors = (*self.input_tensors(), *self.output_tensors())
        present = [tensor is not None for tensor in tensors]
        return OperatorPlan.single(self.lower(profile), present, len(self.input_fields()))

    def with_tensor(self, slot: str, desc: BufferTensorDesc) -> OperatorDescBase | None:
        """This descriptor with the tensor of ``slot`` (an entry of ``tensor_fields``) described by ``desc``; None
        where the slot is not a tensor field of its own (a graph then leaves the node as it is)."""
        tensor = getattr(self, slot) if slot in type(self).model_fields else None
        if not isinstance(tensor, TensorDesc):
            return None
        return self.model_copy(update={slot: tensor.model_copy(update={"desc": desc})})

    def input_view(self) -> InputView | None:
        """Where output 0 is input 0 read through other strides (kernels.InputView), so that a graph reader can
        read the input instead and this node costs no launch; None for every operator that computes or rearranges
        beyond a strided read (the default)."""
        return None

    def explain_lines(self) -> list[str]:
        """What the lowering chose and why, one line each, for ``dmlpy explain``."""
        return []
