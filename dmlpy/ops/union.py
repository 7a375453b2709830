"""DML_OPERATOR_DESC as a discriminated union built from the operator table (``OperatorDesc``: Type and Desc, one
member per DirectML operator), and validation without a device."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, Union

from pydantic import (
    Discriminator,
    Field,
    GetCoreSchemaHandler,
    SerializeAsAny,
    Tag,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import CoreSchema

from dmlpy.enums import DmlEnum, DmlFlag, ExtOperatorType, FeatureLevel, OperatorType
from dmlpy.errors import InvalidArgumentError
from dmlpy.model import DmlModel
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops.table import DIRECTML_OPERATORS, AnyOperatorType
from dmlpy.problems import show

_UNKNOWN_TAG = "OperatorDesc[unknown]"


def _tag(operator_type: AnyOperatorType) -> str:
    # Brackets mark the tag in pydantic's error locations, so messages skip it like other union tags.
    return f"OperatorDesc[{operator_type.c_name}]"


def _parse_type(raw: Any) -> AnyOperatorType | None:
    for enum in (OperatorType, ExtOperatorType):
        try:
            return enum(raw)
        except (ValueError, TypeError):
            pass
    return None


def _operator_tag(data: Any) -> str:
    """The union member for raw data: by its Type in any spelling, or by the class of a descriptor given alone."""
    if isinstance(data, OperatorDesc):
        return _tag(data.type)
    if isinstance(data, OperatorDescBase):
        return _tag(data.OPERATOR_TYPE)
    raw = data.get("Type", data.get("type")) if isinstance(data, dict) else None
    operator_type = _parse_type(raw)
    return _tag(operator_type) if operator_type in DIRECTML_OPERATORS else _UNKNOWN_TAG


class OperatorDesc(DmlModel):
    """DML_OPERATOR_DESC: the operator type and its type-specific descriptor.

    A discriminated union on Type: ``OperatorDesc(type=..., desc=...)`` and ``OperatorDesc.model_validate(...)``
    give the member for that Type (``OperatorDesc_DML_OPERATOR_ELEMENT_WISE_ROUND``, ...), whose Desc is that
    operator's descriptor; ``OperatorDesc.model_json_schema()`` is the per-operator schema."""

    type: AnyOperatorType = Field(alias="Type")
    """Type (DML_OPERATOR_TYPE); decides which descriptor Desc holds."""
    desc: SerializeAsAny[OperatorDescBase] = Field(alias="Desc")
    """Desc: the DML_*_OPERATOR_DESC for Type."""

    _UNION: ClassVar[Any] = None
    C_STRUCT = "DML_OPERATOR_DESC"  # every member of the union too
    WRAPS = "desc"  # messages name what Desc holds by its operator: ELEMENT_WISE_ROUND.InputTensor
    SELECTOR = "type"  # a wrong Type says all: the fields of Desc cannot be judged without it

    @classmethod
    def member_for_tag(cls, tag: str) -> builtins.type[OperatorDesc] | None:  # `type` is a field here
        return _MEMBERS.get(tag)

    @classmethod
    def field_choices(cls, name: str) -> Sequence[DmlEnum | DmlFlag] | None:
        return list(DIRECTML_OPERATORS) if name == "type" else None

    def __new__(cls, *args: Any, **data: Any) -> OperatorDesc:
        # Constructing the union picks its member, as validating does.
        if cls is OperatorDesc and data:
            cls = _MEMBERS.get(_operator_tag(data), _UnknownOperatorDesc)
        return super().__new__(cls)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        union = cls.__dict__.get("_UNION")  # set on OperatorDesc itself once its members exist
        if union is not None:
            return handler.generate_schema(union)
        return handler(source)

    @model_validator(mode="before")
    @classmethod
    def _descriptor_alone(cls, data: Any) -> Any:
        if isinstance(data, OperatorDescBase):
            return {"type": data.OPERATOR_TYPE, "desc": data}
        given = data.get("desc", data.get("Desc")) if isinstance(data, dict) else None
        wanted = cls.model_fields["desc"].annotation
        wanted_class = wanted if isinstance(wanted, type) and issubclass(wanted, OperatorDescBase) else None
        if isinstance(given, OperatorDescBase) and wanted_class is not None and not isinstance(given, wanted_class):
            raise ValueError(
                f"Desc is {show(given)}; for Type {wanted_class.OPERATOR_TYPE.c_name} it must be a "
                f"{wanted_class.__name__}"
            )
        return data


class _UnknownOperatorDesc(OperatorDesc):
    """The union member for a Type that is no operator dmlpy implements: always refused, saying why."""

    desc: Any = Field(default=None, alias="Desc")

    @field_validator("type", mode="after")
    @classmethod
    def _refuse(cls, operator_type: AnyOperatorType) -> AnyOperatorType:
        if isinstance(operator_type, ExtOperatorType):
            raise ValueError(
                f"{operator_type.c_name} is a dmlpy extension, not a DML_OPERATOR_TYPE: DML_OPERATOR_DESC holds "
                "DirectML operators only; pass the extension's descriptor itself"
            )
        known = ", ".join(t.c_name for t in DIRECTML_OPERATORS)
        raise ValueError(f"{operator_type.c_name} is not implemented by dmlpy (it implements {known})")


def _member(operator_type: AnyOperatorType, desc_class: type[OperatorDescBase]) -> type[OperatorDesc]:
    spellings: list[int | str] = [operator_type.value, operator_type.c_name, operator_type.name]
    for alias, named in type(operator_type).__members__.items():  # directml.h's DML_OPERATOR_SCATTER
        if named is operator_type and alias != operator_type.name:
            spellings += [operator_type.C_PREFIX + alias, alias]
    type_field: Any = Annotated[type(operator_type), WithJsonSchema({"enum": spellings})]
    member = type(
        f"OperatorDesc_{operator_type.c_name}",
        (OperatorDesc,),
        {
            "__module__": __name__,
            "__doc__": f"DML_OPERATOR_DESC holding a {desc_class.__name__} ({operator_type.c_name}).",
            "__annotations__": {"type": type_field, "desc": desc_class},
            # A class made here has no source to read attribute docstrings from; pydantic's search for it walks
            # the import's frames through inspect and took 1.3 s of `import dmlpy` with 27 operators.
            "model_config": {**OperatorDesc.model_config, "use_attribute_docstrings": False},
            "type": Field(default=operator_type, alias="Type"),
            "desc": Field(alias="Desc"),
        },
    )
    return member


_MEMBERS: dict[str, type[OperatorDesc]] = {_tag(t): _member(t, d) for t, d in DIRECTML_OPERATORS.items()}
_MEMBERS[_UNKNOWN_TAG] = _UnknownOperatorDesc


def _union_member(tag: str, member: type[OperatorDesc]) -> Any:
    tagged = Annotated[member, Tag(tag)]  # type: ignore[valid-type]  # built at import, from the table
    if member is _UnknownOperatorDesc:
        return SkipJsonSchema[tagged]  # type: ignore[misc]  # refusals are no part of the schema
    return tagged


OperatorDesc._UNION = Annotated[
    Union[tuple(_union_member(tag, member) for tag, member in _MEMBERS.items())],  # noqa: UP007  # a tuple of types
    Discriminator(_operator_tag),
]
OperatorDesc.model_rebuild(force=True)


def as_operator_desc_base(op_desc: OperatorDesc | OperatorDescBase) -> OperatorDescBase:
    """The type-specific descriptor, whichever form was given."""
    if isinstance(op_desc, OperatorDesc):
        return op_desc.desc
    if not isinstance(op_desc, OperatorDescBase):
        raise InvalidArgumentError(
            f"expected an OperatorDesc or a DML_*_OPERATOR_DESC model, not {type(op_desc).__name__}; build one "
            "with dml.OperatorDesc.model_validate(...) from a dict or JSON"
        )
    return op_desc


def validate(op_desc: OperatorDesc | OperatorDescBase, feature_level: FeatureLevel | int | str) -> None:
    """Check a descriptor against a feature level, as IDMLDevice::CreateOperator would, without a device.

    Raises UnsupportedError when the operator does not exist at that level (a dmlpy extension exists at none),
    InvalidArgumentError for any other broken rule (an unknown feature level too); returns None when valid.
    """
    as_operator_desc_base(op_desc).validate_on(FeatureLevel.parse(feature_level))
