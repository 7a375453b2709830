"""``dml.validate``: an operator descriptor or a DML_GRAPH_DESC checked against a feature level without a device,
as IDMLDevice::CreateOperator and IDMLDevice1::CompileGraph would check them."""

from __future__ import annotations

from dmlpy.enums import FeatureLevel
from dmlpy.graph.desc import GraphDesc
from dmlpy.ops import OperatorDesc
from dmlpy.ops import validate as validate_operator
from dmlpy.ops._base import OperatorDescBase


def validate(desc: GraphDesc | OperatorDesc | OperatorDescBase, feature_level: FeatureLevel | int | str) -> None:
    """``dml.validate``: check an operator descriptor (as IDMLDevice::CreateOperator would) or a DML_GRAPH_DESC
    (as IDMLDevice1::CompileGraph would) against a feature level, without a device; None when valid."""
    if isinstance(desc, GraphDesc):
        desc.validate_on(FeatureLevel.parse(feature_level))
        return
    validate_operator(desc, feature_level)
