"""The operator registry (one line per operator), DML_OPERATOR_DESC, and validation without a device."""

from __future__ import annotations

from typing import Any

from pydantic import Field, SerializeAsAny, model_validator

from dmlpy.enums import FeatureLevel, OperatorType
from dmlpy.errors import InvalidArgumentError
from dmlpy.model import DmlModel
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops.element_wise_quantize_linear import (
    ElementWiseDequantizeLinearOperatorDesc,
    ElementWiseQuantizeLinearOperatorDesc,
)
from dmlpy.ops.element_wise_round import ElementWiseRoundOperatorDesc

OPERATORS: dict[OperatorType, type[OperatorDescBase]] = {
    OperatorType.ELEMENT_WISE_QUANTIZE_LINEAR: ElementWiseQuantizeLinearOperatorDesc,
    OperatorType.ELEMENT_WISE_DEQUANTIZE_LINEAR: ElementWiseDequantizeLinearOperatorDesc,
    OperatorType.ELEMENT_WISE_ROUND: ElementWiseRoundOperatorDesc,
}


def _first_key(data: dict[str, Any], *keys: str) -> Any:
    return next((data[key] for key in keys if key in data), None)


class OperatorDesc(DmlModel):
    """DML_OPERATOR_DESC: the operator type and its type-specific descriptor."""

    type: OperatorType = Field(alias="Type")
    """Type (DML_OPERATOR_TYPE); decides which descriptor Desc holds."""
    desc: SerializeAsAny[OperatorDescBase] = Field(alias="Desc")
    """Desc: the DML_*_OPERATOR_DESC for Type."""

    @model_validator(mode="before")
    @classmethod
    def _parse_desc_by_type(cls, data: Any) -> Any:
        if isinstance(data, OperatorDescBase):
            return {"type": data.OPERATOR_TYPE, "desc": data}
        if not isinstance(data, dict):
            return data
        raw_type, raw_desc = _first_key(data, "type", "Type"), _first_key(data, "desc", "Desc")
        try:
            operator_type = OperatorType(raw_type)
        except ValueError:
            return data  # the field validator reports the bad Type
        desc_class = OPERATORS.get(operator_type)
        if desc_class is None:
            known = ", ".join(t.c_name for t in OPERATORS)
            raise ValueError(f"{operator_type.c_name} is not implemented by dmlpy (it implements {known})")
        if isinstance(raw_desc, OperatorDescBase) and not isinstance(raw_desc, desc_class):
            raise ValueError(
                f"Type is {operator_type.c_name} but Desc is a {type(raw_desc).__name__}; "
                f"it must be a {desc_class.__name__}"
            )
        desc = raw_desc if isinstance(raw_desc, OperatorDescBase) else desc_class.model_validate(raw_desc)
        unknown = {key: value for key, value in data.items() if key not in {"type", "Type", "desc", "Desc"}}
        return {"type": operator_type, "desc": desc, **unknown}  # unknown keys stay, so they are refused


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

    Raises UnsupportedError when the operator does not exist at that level, InvalidArgumentError for any
    other broken rule (an unknown feature level too); returns None when the descriptor is valid.
    """
    as_operator_desc_base(op_desc).validate_for(FeatureLevel.parse(feature_level))
