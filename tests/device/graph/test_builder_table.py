"""An operator declares itself once and the graph builder and the ONNX backend read the table: a standard unary
operator's ``dml.graph.<BUILDER_NAME>`` function and its ONNX lowering appear from its declaration alone.

Two proofs: a throwaway operator class, declared here and registered nowhere, gets its builder function from
``builders``; and every operator of the table (CEIL and FLOOR too, once they are declared) is checked for its
builder function, and each ONNX op type it declares runs a one-node model through ``dmlpy.onnx`` equal to
``onnx.reference``'s result on values with a NaN, infinities and -0, bit for bit (a NaN as a NaN, a bool as a
bool), or for an operator with a ULP bound (EXP, SIN, ...) within that bound plus NumPy's own."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from pydantic import Field

import dmlpy as dml
from dmlpy.graph.operators import _WRITTEN, BUILDERS, builders, unary_builder
from dmlpy.ops import OPERATORS, ElementWiseIdentityOperatorDesc
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops._structured import StructuredDesc
from tests.helpers.ulps import NUMPY_FLOAT32_ULPS, within_ulps

SIZES = (1, 1, 3, 4)
VALUES = np.array(
    [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.2, -0.7, np.nan, np.inf, -np.inf, -0.0], dtype=np.float32
).reshape(SIZES)
ONNX_OUTPUT_TYPES = {"IsNaN": "BOOL", "IsInf": "BOOL"}
"""The op types whose output is not their input's type (FLOAT), by ONNX's schemas."""


class ThrowawayScaledDesc(ElementWiseIdentityOperatorDesc):
    """A made-up standard unary operator declared only here: Identity's fields (a graph node holds a descriptor
    of a type the table knows, and this one is of Identity's type) and one field of its own."""

    BUILDER_NAME = "throwaway_scaled"
    BUILDER_KEYWORDS = {"factor": "by"}  # noqa: RUF012  # class data, as the operators declare it
    ONNX_OPS = ("ThrowawayScaled",)

    factor: float = Field(default=2.0, alias="Factor")
    """Factor (FLOAT): what the input is scaled by."""


def _standard_unary(desc: type[OperatorDescBase]) -> bool:
    return desc.INPUTS == ("input_tensor",) and desc.OUTPUTS == ("output_tensor",)


def _input(graph: dml.Graph) -> dml.graph.Expression:
    return graph.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=SIZES))


# ------------------------------------------------------------------------------------- a throwaway operator


def test_a_declared_operator_gets_its_builder_function_from_the_declaration_alone() -> None:
    build = builders([ThrowawayScaledDesc])["throwaway_scaled"]
    parameters = inspect.signature(build).parameters
    assert list(parameters) == ["x", "scale_bias", "by"] and parameters["by"].default == 2.0
    assert build.__name__ == "throwaway_scaled"
    assert build.__doc__ is not None and "dml::ThrowawayScaled" in build.__doc__ and "``by``: Factor" in build.__doc__

    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    x = _input(g)
    calls = [
        (build(x), None, 2.0),
        (build(x, None, 3.0), None, 3.0),
        (build(x=x, by=4.0, scale_bias=(0.5, 1.0)), dml.ScaleBias(scale=0.5, bias=1.0), 4.0),  # a struct as a tuple
    ]
    for y, scale_bias, factor in calls:
        (node,) = g.desc_for([y]).nodes
        op = node.desc.op
        assert type(op) is ThrowawayScaledDesc and (op.scale_bias, op.factor) == (scale_bias, factor)
        assert op.output_tensor.desc == dml.BufferTensorDesc(data_type="FLOAT32", sizes=SIZES)  # packed, like x

    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.throwaway_scaled: x is "):
        build(np.zeros(SIZES))
    with pytest.raises(TypeError, match="factor"):
        build(x, factor=3.0)  # the builder's keyword is `by`
    assert not hasattr(dml.graph, "throwaway_scaled")  # registered nowhere: the table alone offers functions


def test_an_operator_that_is_not_standard_unary_needs_a_written_builder_function() -> None:
    class TwoInputs(ThrowawayScaledDesc):
        INPUTS = ("input_tensor", "output_tensor")

    with pytest.raises(TypeError, match="register it in _WRITTEN"):
        unary_builder(TwoInputs)


# ------------------------------------------------------------------------------------- every operator of the table


@pytest.mark.parametrize("desc", list(OPERATORS.values()), ids=lambda desc: desc.__name__)
def test_every_builder_name_of_the_table_is_a_graph_function(desc: type[OperatorDescBase]) -> None:
    if desc.BUILDER_NAME is None:
        # A graph holds DirectML operators only; those dmlpy does not run yet wait for their kernels, and an earlier
        # form DirectMLX builds through a later one (dml::Slice makes SLICE1, dml::MaxPooling MAX_POOLING2,
        # dml::Resample RESAMPLE2) has none of its own.
        family = desc.OPERATOR_TYPE.name.rstrip("0123456789")
        superseded = any(
            d.BUILDER_NAME is not None and d.OPERATOR_TYPE.name.rstrip("0123456789") == family
            for d in OPERATORS.values()
        )
        assert (desc.is_extension() or not desc.runs() or superseded) and not desc.ONNX_OPS
        return
    function = getattr(dml.graph, desc.BUILDER_NAME)
    assert function is BUILDERS[desc.BUILDER_NAME]
    assert desc.BUILDER_NAME in dml.graph.__all__ and desc.BUILDER_NAME in dir(dml.graph)
    if not _standard_unary(desc) or desc in _WRITTEN:
        return
    fields = [f for f in desc.model_fields if f not in (*desc.INPUTS, *desc.OUTPUTS, *desc.BUILDER_DERIVED)]
    # The required fields first (CLIP's Min and Max before its ScaleBias), as DirectMLX's functions order them.
    fields.sort(key=lambda field: not desc.model_fields[field].is_required())
    keywords = [desc.BUILDER_KEYWORDS.get(field, field) for field in fields]
    output_type = desc.BUILDER_OUTPUT_TYPE  # DirectMLX's outputDataType, a last keyword, where it is its own
    dtype = ["dtype"] if output_type is not None else []
    assert list(inspect.signature(function).parameters) == ["x", *keywords, *dtype]
    required = [field for field in fields if desc.model_fields[field].is_required()]
    if required:
        return  # no call without them; the operator's own tests call it
    input_types = desc.SUPPORT.rows[-1].data_types["InputTensor"]
    data_type = dml.TensorDataType.FLOAT32 if dml.TensorDataType.FLOAT32 in input_types else min(input_types)
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    (node,) = g.desc_for([function(g.input(dml.BufferTensorDesc(data_type=data_type, sizes=SIZES)))]).nodes
    op = node.desc.op
    assert type(op) is desc
    assert all(getattr(op, field) == desc.model_fields[field].default for field in fields)
    assert op.output_tensor.desc.data_type == (output_type or data_type)


def test_is_nan_and_is_infinity_take_directmlx_output_type() -> None:
    """dml::IsNaN's and dml::IsInfinity's outputDataType: UINT8 unless ``dtype`` names another, which IS_NAN
    takes (UINT32) and IS_INFINITY refuses (UINT8 only), saying so."""
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x = _input(g)
    assert dml.graph.is_nan(x, dtype="UINT32").data_type == dml.TensorDataType.UINT32
    y = dml.graph.is_infinity(x, infinity_mode="NEGATIVE")
    (node,) = g.desc_for([y]).nodes
    assert node.desc.op.infinity_mode == dml.IsInfinityMode.NEGATIVE and y.data_type == dml.TensorDataType.UINT8
    with pytest.raises(dml.InvalidArgumentError, match=r"ELEMENT_WISE_IS_INFINITY\.OutputTensor\.DataType is .*UINT32"):
        dml.graph.is_infinity(x, dtype=dml.TensorDataType.UINT32)
    # bool, float and another enum's member are no data type, though TensorDataType.parse would take them as numbers
    for wrong in (True, 3.0, dml.IsInfinityMode.POSITIVE):
        with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.is_nan: dtype is .*give a TensorDataType"):
            dml.graph.is_nan(x, dtype=wrong)
    # NumPy's bool, by name or type, is none either: DirectMLX's bool output is UINT8.
    for wrong in ("bool", np.bool_):
        with pytest.raises(
            dml.InvalidArgumentError, match=r"^dml\.graph\.is_nan: dtype is .*UINT8 holds bools as 1 and 0$"
        ):
            dml.graph.is_nan(x, dtype=wrong)


def test_every_onnx_op_type_of_the_table_is_supported_once() -> None:
    onnx_backend = pytest.importorskip("dmlpy.onnx", reason="onnx is a test dependency (pip install -e .[dev])")
    declared = [op_type for desc in OPERATORS.values() for op_type in desc.ONNX_OPS]
    assert len(declared) == len(set(declared))
    assert list(onnx_backend.SUPPORTED_OPS) == declared


ONNX_BOOL_INPUT = ("Not",)
"""The unary op types that take ONNX bools, not floats (tests/device/graph/test_onnx_signs_and_logic.py runs them)."""
ONNX_INTEGER_INPUT = ("BitwiseNot",)
"""The unary op types that take integers only, not floats (ONNX's node tests run them: test_onnx_backend.py)."""
ONNX_TYPED = ("Cast", "CastLike")
"""The unary op types told their output type (Cast's `to`, CastLike's second input; test_onnx_cast_pow.py runs them)."""
ONNX_MOVEMENT = ("Slice", "Pad", "Tile", "SpaceToDepth", "DepthToSpace")
"""The unary op types that move elements, told how by inputs or required attributes (test_onnx_movement.py runs
them)."""
ONNX_REDUCTION = ("ArgMin", "ArgMax")
"""The unary op types whose output is of another type (ONNX's INT64 indices; test_onnx_reduction.py runs them)."""
ONNX_NORMALIZATION_INDEXING = ("LRN", "LpNormalization", "CumSum")
"""The unary op types with a required attribute (LRN's size), a norm of its slice, or a field input (CumSum's axis;
test_onnx_normalization_indexing.py runs them)."""
ONNX_GENERATORS = ("EyeLike",)
ONNX_VIEWS = ("Transpose", "Expand", "Reshape", "Flatten", "Squeeze", "Unsqueeze")
"""The op types that read their input through a view, some with a shape input (test_onnx_views.py runs them)."""
"""The unary op types that read only their input's shape, of rank 2 (test_onnx_generators.py runs them)."""
ONNX_UNARY = [
    op_type
    for desc in OPERATORS.values()
    # The operators that are not element-wise (the poolings, resampling) read windows and attributes: their ONNX
    # op types run in test_onnx_pooling.py and test_onnx_resample.py.
    if _standard_unary(desc) and desc.BUILDER_NAME and not issubclass(desc, StructuredDesc)
    for op_type in desc.ONNX_OPS
    if op_type
    not in (
        *ONNX_BOOL_INPUT,
        *ONNX_INTEGER_INPUT,
        *ONNX_TYPED,
        *ONNX_MOVEMENT,
        *ONNX_REDUCTION,
        *ONNX_NORMALIZATION_INDEXING,
        *ONNX_GENERATORS,
        *ONNX_VIEWS,
    )
]
DIRECTML_NAN = {"Sign": 0.0, "Relu": 0.0, "HardSigmoid": 1.0}
"""What DirectML gives for NaN where onnx.reference gives NaN (SIGN's "otherwise", RELU's and HARD_SIGMOID's D3D
max and min: docs/conformance.md)."""
DIRECTML_AT_MINUS_INFINITY = {"Gelu": -0.0}
"""What dmlpy gives for -infinity where onnx.reference gives NaN: GELU's limit -0, where 0.5 * x * (1 + erf(x /
sqrt(2))) is -inf * 0 (docs/operators/activation_exponential.md)."""


@pytest.mark.parametrize("op_type", ONNX_UNARY)
def test_every_unary_onnx_op_type_of_the_table_runs_as_onnx_reference_computes_it(op_type: str) -> None:
    onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    from dmlpy.onnx import DmlBackend

    tensor = helper.make_tensor_value_info
    graph = helper.make_graph(
        [helper.make_node(op_type, ["x"], ["y"])],
        op_type.lower(),
        [tensor("x", TensorProto.FLOAT, list(SIZES))],
        [tensor("y", TensorProto.DataType.Value(ONNX_OUTPUT_TYPES.get(op_type, "FLOAT")), list(SIZES))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    onnx.checker.check_model(model)
    with np.errstate(all="ignore"):  # onnx.reference's NumPy on the NaN, the infinities and arccos(-2.5)
        (expected,) = ReferenceEvaluator(model).run(None, {"x": VALUES})
    (got,) = DmlBackend.prepare(model).run([VALUES])
    if op_type in DIRECTML_NAN:
        expected = np.where(np.isnan(VALUES), np.float32(DIRECTML_NAN[op_type]), expected)
    if op_type in DIRECTML_AT_MINUS_INFINITY:
        expected = np.where(np.isneginf(VALUES), np.float32(DIRECTML_AT_MINUS_INFINITY[op_type]), expected)
    assert got.dtype == expected.dtype
    (desc,) = [desc for desc in OPERATORS.values() if op_type in desc.ONNX_OPS]
    bound = desc.FLOAT32_ULPS
    if bound:  # onnx.reference computes with NumPy's float32 functions, themselves up to 4 ULPs off (SVML's bound)
        assert within_ulps(got, expected, bound + NUMPY_FLOAT32_ULPS).size == 0, (got, expected)
    elif got.dtype == np.bool_:
        np.testing.assert_array_equal(got, expected)
    else:  # exact, a NaN as any NaN (IEEE 754 fixes no payload for sqrt(-2.5))
        np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
        nan = np.isnan(expected)
        np.testing.assert_array_equal(got[~nan].view(np.uint32), expected[~nan].view(np.uint32))
