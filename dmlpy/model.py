"""The one base every descriptor model shares: its pydantic configuration, and the one translation of pydantic's
validation errors into DirectML's terms that every caller gets (constructors, ``model_validate``,
``model_validate_json``, the JSON parser and so the CLI).

A bad value raises :class:`DescriptorProblems` (an ``InvalidArgumentError``, so a ``DmlError`` and a
``ValueError``) with one teaching line per problem, in C field paths that start at the struct's C name::

    ELEMENT_WISE_ROUND.InputTensor.DataType is "FLOAT"; it must be one of FLOAT32 (1), FLOAT16 (2), ...

rather than pydantic's ``input_tensor.desc.data_type.int-enum[TensorDataType]: Input should be ...``: whoever
wrote the descriptor wrote C names. pydantic's ``ValidationError`` stays reachable as ``__cause__``.

The translation is generic: paths, accepted values and rules come from the model class being validated and
its nested fields (aliases, annotations, :class:`Expect` metadata, enums). A model says the rest through a few
class-level hooks (:meth:`DmlModel.struct_name`, ``WRAPS``, ``SELECTOR``, :meth:`DmlModel.member_for_tag`,
:meth:`DmlModel.field_choices`, :meth:`DmlModel.value_hint`), so higher layers (operators, rounding-mode names)
teach through the same voice without this module importing them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Self

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from dmlpy.attribute_docs import describe_fields
from dmlpy.enums import DmlEnum, DmlFlag
from dmlpy.problems import DescriptorProblems, Expect, validation_problems


def _refuse_text_and_bools(value: Any) -> Any:
    # pydantic's lax ints read "4" as 4 and True as 1. A DirectML count is a number: JSON has numbers, and text
    # is for the names of enums only. Floats with no fraction (4.0) stay accepted, as JSON numbers.
    if isinstance(value, str | bytes | bytearray):
        raise PydanticCustomError("whole_number_text", "a number written as text")
    if isinstance(value, bool):
        raise PydanticCustomError("whole_number_bool", "true or false, not a number")
    return value


WholeNumber = BeforeValidator(_refuse_text_and_bools)
"""Refuses text and bools where a C integer is expected."""

UInt32 = Annotated[
    int, Field(ge=0, le=2**32 - 1), WholeNumber, Expect("a whole number from 0 to 4294967295 (a C UINT)")
]
"""A C ``UINT``."""
UInt64 = Annotated[
    int, Field(ge=0, le=2**64 - 1), WholeNumber, Expect("a whole number from 0 to 2^64 - 1 (a C UINT64)")
]
"""A C ``UINT64``."""


Int32 = Annotated[
    int,
    Field(ge=-(2**31), le=2**31 - 1),
    WholeNumber,
    Expect("a whole number from -2147483648 to 2147483647 (a C INT)"),
]
"""A C ``INT``."""


def _c_bool(value: Any) -> Any:
    # A C BOOL: JSON's true or false, or the C values 1 and 0; pydantic's lax bools would read "yes" and "off".
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise PydanticCustomError("expected_kind", "not a C BOOL")


Bool = Annotated[bool, BeforeValidator(_c_bool), Expect("true or false (a C BOOL: TRUE 1, FALSE 0)")]
"""A C ``BOOL``: true or false, 1 or 0 accepted."""


def _c_string(text: str) -> str:
    # DirectML's names are NUL-terminated UTF-8 (``_Field_z_ const char*``): a NUL would end the name early and a
    # lone surrogate has no UTF-8 bytes. Everything else is the user's to choose, newlines and controls included:
    # a name is shown escaped where it is printed and never becomes kernel source.
    if "\0" in text:
        raise PydanticCustomError(
            "c_string_nul",
            "holds a NUL character at index {index}; a C string ends at its first NUL: remove it",
            {"index": text.index("\0")},
        )
    surrogate = next((i for i, c in enumerate(text) if "\ud800" <= c <= "\udfff"), None)
    if surrogate is not None:
        raise PydanticCustomError(
            "c_string_surrogate",
            "holds a lone surrogate ({code}) at index {index}; a C string is UTF-8, which cannot encode it: remove it",
            {"code": f"U+{ord(text[surrogate]):04X}", "index": surrogate},
        )
    return text


CString = Annotated[str, AfterValidator(_c_string), Expect("text without NUL characters or lone surrogates")]
"""A C ``const char*`` name: any Unicode text that UTF-8 encodes, without NUL."""


def _accept_snake_case(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """The JSON Schema takes what the parser takes: each C-named property may be written in snake_case too (not
    both), so "required" asks for one spelling or the other."""
    properties = schema.get("properties", {})
    snake = {field.alias: name for name, field in model.model_fields.items() if field.alias and field.alias != name}
    pattern_properties = {f"^{snake[c]}$": value for c, value in properties.items() if c in snake}
    if pattern_properties:
        schema["patternProperties"] = pattern_properties
    required = schema.pop("required", [])
    if required:
        schema["allOf"] = [
            {"anyOf": [{"required": [c]}, {"required": [snake[c]]}]} if c in snake else {"required": [c]}
            for c in required
        ]


_STRUCT_IN_DOCSTRING = re.compile(r"\s*(DML_[A-Z0-9_]+)")


@contextmanager
def _in_c_terms(model: type[BaseModel]) -> Iterator[None]:
    """Re-raise pydantic's ValidationError from the block as DescriptorProblems in ``model``'s C field paths."""
    try:
        yield
    except ValidationError as error:
        raise DescriptorProblems(validation_problems(error, model)) from error


class DmlModel(BaseModel):
    """Frozen (hashable, usable as a cache key), unknown fields refused, snake_case names with the C member
    names as aliases; either spelling is accepted on input, ``by_alias=True`` dumps the C names.

    A bad value raises :class:`DescriptorProblems` (an ``InvalidArgumentError``) in C field paths, whether the
    model is constructed, validated from Python data or from JSON."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        defer_build=True,  # built by __pydantic_init_subclass__, once the fields have their descriptions
        use_enum_values=False,
        json_schema_extra=_accept_snake_case,
    )

    # ------------------------------------------------------------------------ how messages speak of this model
    C_STRUCT: ClassVar[str | None] = None
    """The C struct this model is (``DML_BUFFER_TENSOR_DESC``); when None, the ``DML_...`` name the class
    docstring starts with, else the class name."""
    WRAPS: ClassVar[str | None] = None
    """The field holding the struct this one wraps (DML_TENSOR_DESC's and DML_OPERATOR_DESC's ``desc``):
    messages name what is inside by the inner struct, ``ELEMENT_WISE_ROUND.InputTensor.Sizes[1]``, as DirectML
    does, never ``...InputTensor.Desc.Sizes[1]``."""
    SELECTOR: ClassVar[str | None] = None
    """The field that decides what the rest of the struct is (DML_OPERATOR_DESC's ``type``): when its value is
    wrong, only that is reported, since nothing else can be judged."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        describe_fields(cls)  # the docstrings under the fields, as use_attribute_docstrings would, at less cost
        # Built now, with the descriptions (as pydantic builds a model when it is made: the signature shows the
        # fields); a model that names one not defined yet is built at first use, as pydantic leaves it.
        cls.model_rebuild(force=True, raise_errors=False)

    @classmethod
    def struct_name(cls) -> str:
        """How messages name this struct at the root of a field path: its C name (``C_STRUCT``); operator
        descriptors name their operator instead (``ELEMENT_WISE_ROUND``)."""
        if cls.C_STRUCT:
            return cls.C_STRUCT
        match = _STRUCT_IN_DOCSTRING.match(cls.__doc__ or "")
        return match.group(1) if match else cls.__name__

    @classmethod
    def member_for_tag(cls, tag: str) -> type[DmlModel] | None:
        """The member a union model (DML_OPERATOR_DESC) validated a value as, from pydantic's tag for it."""
        return None

    @classmethod
    def field_choices(cls, name: str) -> Sequence[DmlEnum | DmlFlag] | None:
        """The values a field (snake_case name) takes, when fewer than its enum's members."""
        return None

    @classmethod
    def value_hint(cls, name: str, value: Any) -> str:
        """A note on a refused value of the field ``name`` (snake_case), such as another system's name for a
        DirectML value: ``(... DirectML calls it TOWARD_INFINITY)``; empty when there is nothing to add."""
        return ""

    def describe(self) -> str:
        """The struct in a few words, for messages (never pydantic's repr)."""
        return self.struct_name()

    # ------------------------------------------------------------------------------ immutable, and said so
    if not TYPE_CHECKING:  # as pydantic's own: type checkers keep reporting assignments to a frozen model

        def __setattr__(self, name: str, value: Any) -> None:
            with self._frozen_in_c_terms(name, "assigned"):
                super().__setattr__(name, value)

        def __delattr__(self, name: str) -> None:
            with self._frozen_in_c_terms(name, "deleted"):
                super().__delattr__(name)

    @contextmanager
    def _frozen_in_c_terms(self, name: str, done: str) -> Iterator[None]:
        """Re-raise pydantic's "Instance is frozen" from the block as DescriptorProblems naming the field (C path),
        why descriptors are immutable, and how to get a changed one."""
        try:
            yield
        except ValidationError as error:
            if error.errors()[0]["type"] != "frozen_instance":
                raise
            model = type(self)
            info = model.model_fields.get(name)
            path = f"{model.struct_name()}.{info.alias or name if info is not None else name}"
            if info is None:
                fields = ", ".join(model.model_fields)
                problem = f"{path} cannot be {done}: {model.__name__} has no such field (its fields: {fields})"
            else:
                problem = (
                    f"{path} cannot be {done}: descriptors are immutable (frozen, so that they hash and can key "
                    f"caches); build a new one, {model.__name__}(..., {name}=...), or copy this one with "
                    f"desc.model_copy(update={{'{name}': ...}}), which pydantic does not validate"
                )
            raise DescriptorProblems([problem]) from error

    # ------------------------------------------------------------------------------- validation in one voice
    def __init__(self, /, **data: Any) -> None:
        with _in_c_terms(type(self)):
            super().__init__(**data)

    # Behaves as BaseModel.__init__ does, so pydantic validates nested models directly (their problems are
    # reported once, in the outer struct's paths) instead of calling this for each.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @classmethod
    def model_validate(
        cls,
        obj: Any,
        *,
        strict: bool | None = None,
        extra: Literal["allow", "ignore", "forbid"] | None = None,
        from_attributes: bool | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        with _in_c_terms(cls):
            return super().model_validate(
                obj,
                strict=strict,
                extra=extra,
                from_attributes=from_attributes,
                context=context,
                by_alias=by_alias,
                by_name=by_name,
            )

    @classmethod
    def model_validate_json(
        cls,
        json_data: str | bytes | bytearray,
        *,
        strict: bool | None = None,
        extra: Literal["allow", "ignore", "forbid"] | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        with _in_c_terms(cls):
            return super().model_validate_json(
                json_data, strict=strict, extra=extra, context=context, by_alias=by_alias, by_name=by_name
            )

    @classmethod
    def model_validate_strings(
        cls,
        obj: Any,
        *,
        strict: bool | None = None,
        extra: Literal["allow", "ignore", "forbid"] | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        with _in_c_terms(cls):
            return super().model_validate_strings(
                obj, strict=strict, extra=extra, context=context, by_alias=by_alias, by_name=by_name
            )


# ------------------------------------------------------------------------------------------- the translation
