"""The ONNX op types of DirectML's sign, clamp, comparison and logical operators (issue 31, groups 4 and 5), beyond
ONNX's node tests (test_onnx_backend.py): comparisons feeding the logical op types through ONNX bools (DirectML's
UINT8 1 and 0) in one fused kernel, bool graph inputs and initializers, Clip's bounds from attributes and
initializers (and refused from anywhere else), and the inputs where dmlpy answers as DirectML rather than as
onnx.reference (docs/conformance.md). Every result is compared with onnx.reference's, bit for bit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import dmlpy as dml  # noqa: E402
from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402

F, F16, B = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BOOL


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], initializers: Any = (), opset: int = 21) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _value(name: str, elem: int, shape: list[int]) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def _reference(model: Any, feeds: dict[str, Any]) -> list[Any]:
    with np.errstate(all="ignore"):
        return list(ReferenceEvaluator(model).run(None, feeds))


def _assert_same(got: Any, want: Any) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    assert got.tobytes() == want.tobytes(), (got, want)


def test_comparisons_feed_the_logical_op_types_in_one_kernel_as_onnx_reference(device: Any) -> None:
    """Greater, Less, Equal, GreaterOrEqual and LessOrEqual of float32 values with NaN, infinities and both zeros
    (IEEE 754: NaN compares false, -0 equals +0, as NumPy compares), one operand a broadcast initializer; their
    bools through Not, And, Or and Xor with a bool graph input and a bool initializer, and Equal of two bools,
    every node's output read by another: one fused kernel (within its 8 tensors), every output a NumPy bool
    array bit for bit onnx.reference's."""
    shape = [3, 8]
    special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 3e38]
    x = np.array([special, special[::-1], np.roll(special, 3)], np.float32)
    row = np.array([0.0, -0.0, np.nan, 1.0, np.inf, -1.0, 2.0, -np.inf], np.float32)
    mask = np.array([True, False, True, True, False, False, True, False])
    edges = [  # each value read soon after it is made, so that the kernel's live values stay within its 8 tensors
        ("Greater", ["x", "r"], "gt"),
        ("Not", ["gt"], "ngt"),
        ("And", ["ngt", "m"], "and"),
        ("LessOrEqual", ["x", "r"], "le"),
        ("Equal", ["and", "le"], "same"),
        ("Less", ["x", "r"], "lt"),
        ("Or", ["lt", "k"], "or"),
        ("Equal", ["x", "r"], "eq"),
        ("GreaterOrEqual", ["r", "x"], "ge"),
        ("Xor", ["eq", "ge"], "xor"),
    ]
    nodes = [helper.make_node(op, inputs, [output]) for op, inputs, output in edges]
    initializers = [numpy_helper.from_array(row, "r"), numpy_helper.from_array(~mask, "k")]
    model = _model(
        nodes,
        [_value("x", F, shape), _value("m", B, [8])],
        [_value(output, B, shape) for output in ("same", "or", "xor")],
        initializers,
    )
    rep = DmlBackend.prepare(model, dml_device=device)
    got = rep.run({"x": x, "m": mask})
    assert [graph.kernel_count for graph in rep.compiled_graphs] == [1]
    for result, want in zip(got, _reference(model, {"x": x, "m": mask}), strict=True):
        _assert_same(result, want)


def test_clip_takes_its_bounds_from_initializers_or_attributes_as_onnx_reference() -> None:
    """Clip's bounds as CLIP1's Min and Max of the input's type: both from initializers, one left out (the empty
    name: the type's lowest or highest value), min > max (every element max, as ONNX says), in float32, float16,
    INT8 and UINT64 (a bound past 2^53, exact as a UINT64); opset 6's attributes, one left to its default
    (-FLT_MAX). Bit for bit onnx.reference's, NaN apart (DirectML's CLIP1 gives Max: the next test)."""
    cases = [
        (np.float32, ["lo", "hi"], (-1.5, 2.0)),
        (np.float32, ["", "hi"], (0.0, 0.25)),
        (np.float32, ["lo", "hi"], (3.0, -3.0)),
        (np.float16, ["lo"], (-0.5, 0.0)),
        (np.int8, ["lo", "hi"], (-100, 100)),
        (np.uint64, ["", "hi"], (0, 2**60 + 1)),
    ]
    for dtype, names, (low, high) in cases:
        if np.dtype(dtype).kind == "f":
            x = np.array([-np.inf, -3e4, -2.0, -0.0, 0.0, 0.1, 1.9999, 7.0, np.inf], dtype)
        else:
            info = np.iinfo(dtype)
            x = np.array([info.min, info.min + 1, 0, 1, 99, 2**60 if info.max > 2**60 else 100, info.max], dtype)
        elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
        bounds = {"lo": np.array(low, dtype), "hi": np.array(high, dtype)}
        initializers = [numpy_helper.from_array(bounds[name], name) for name in names if name]
        node = helper.make_node("Clip", ["x", *names], ["y"])
        model = _model([node], [_value("x", elem, [len(x)])], [_value("y", elem, [len(x)])], initializers)
        (got,) = DmlBackend.prepare(model).run([x])
        (want,) = _reference(model, {"x": x})
        _assert_same(got, want)
    x = np.array([-np.inf, -5.0, 0.5, 5.0, np.inf], np.float32)
    node = helper.make_node("Clip", ["x"], ["y"], max=2.0)
    model = _model([node], [_value("x", F, [5])], [_value("y", F, [5])], opset=6)
    (got,) = DmlBackend.prepare(model).run([x])
    _assert_same(got, _reference(model, {"x": x})[0])
    assert got[0] == -np.finfo(np.float32).max
    # On FLOAT16 the default -FLT_MAX is beyond the type: it clips nothing, as -inf (FLOAT16's CLIP1 Min) does.
    half = np.array([-np.inf, -65504.0, -0.5, 1.5, 3.0, np.inf], np.float16)
    for attributes in ({"max": 2.0}, {"min": -1e5, "max": 70000.0}, {"min": 1.00001}):
        node = helper.make_node("Clip", ["x"], ["y"], **attributes)
        model = _model(
            [node], [_value("x", TensorProto.FLOAT16, [6])], [_value("y", TensorProto.FLOAT16, [6])], opset=6
        )
        (got,) = DmlBackend.prepare(model).run([half])
        _assert_same(got, _reference(model, {"x": half})[0])


def test_where_directml_and_onnx_reference_differ_signs_and_clamps_answer_as_directml() -> None:
    """docs/conformance.md's list: Sign of NaN is 0 (DirectML's SIGN: "otherwise"; np.sign gives NaN), Clip of
    NaN is its max (CLIP1's max(Min, min(x, Max)) with D3D's min and max; np.clip gives NaN), also where min >
    max; a Clip with no bound is the input itself, NaN too, as in onnx.reference. Abs and Neg of the most negative
    integer wrap, as NumPy's do; Abs of an unsigned type is the value itself (an ELEMENT_WISE_IDENTITY copy:
    DirectML's ABS takes no unsigned type)."""
    nan = np.array([np.nan, -np.nan, 2.0], np.float32)
    (sign,) = DmlBackend.run_node(helper.make_node("Sign", ["x"], ["y"]), [nan])
    assert sign.tolist() == [0.0, 0.0, 1.0]
    for low, high in ((-1.0, 4.0), (5.0, 4.0)):
        initializers = [numpy_helper.from_array(np.array(v, np.float32), n) for n, v in (("lo", low), ("hi", high))]
        node = helper.make_node("Clip", ["x", "lo", "hi"], ["y"])
        model = _model([node], [_value("x", F, [3])], [_value("y", F, [3])], initializers)
        (got,) = DmlBackend.prepare(model).run([nan])
        (want,) = _reference(model, {"x": nan})
        assert got.tolist() == [4.0, 4.0, 4.0 if low > high else 2.0]
        assert np.isnan(want[:2]).all() and want[2] == got[2]
    (unbounded,) = DmlBackend.run_node(helper.make_node("Clip", ["x"], ["y"]), [nan])  # no bound: an Identity copy
    assert unbounded.tobytes() == nan.tobytes()
    edges = np.array([-(2**31), -1, 0, 2**31 - 1], np.int32)
    for op_type in ("Abs", "Neg"):
        node = helper.make_node(op_type, ["x"], ["y"])
        (got,) = DmlBackend.run_node(node, [edges])
        model = _model([node], [_value("x", TensorProto.INT32, [4])], [_value("y", TensorProto.INT32, [4])])
        _assert_same(got, _reference(model, {"x": edges})[0])
    unsigned = np.array([0, 1, 2**63, 2**64 - 1], np.uint64)
    (got,) = DmlBackend.run_node(helper.make_node("Abs", ["x"], ["y"]), [unsigned])
    _assert_same(got, unsigned)


def test_a_clip_bound_that_is_no_initializer_or_no_scalar_of_the_type_is_refused_saying_why(tmp_path: Any) -> None:
    """A bound given as a graph input or computed by a node has no value when the graph is built, where CLIP1's
    Min and Max are fixed: refused at prepare naming the bound. A bound of another type than the input, of more
    than one value, or NaN (every element NaN in ONNX, passed over by DirectML's min and max) is refused too, and
    one held in external data (which dmlpy reads only to upload it)."""
    x = _value("x", F, [4])
    one = numpy_helper.from_array(np.array(1.0, np.float32), "one")
    clip = helper.make_node("Clip", ["x", "lo", "one"], ["y"], name="clip")
    given = _model([clip], [x, _value("lo", F, [])], [_value("y", F, [4])], [one])
    with pytest.raises(
        NodeRefused, match=r"'clip' \(Clip, opset 21\): its min 'lo' is a graph input; DirectML's CLIP1"
    ):
        DmlBackend.prepare(given)
    computed = _model([helper.make_node("Neg", ["one"], ["lo"]), clip], [x], [_value("y", F, [4])], [one])
    with pytest.raises(NodeRefused, match=r"'clip' \(Clip, opset 21\): its min 'lo' is computed by a node"):
        DmlBackend.prepare(computed)
    for bound, error, words in (
        (np.array(1, np.int32), dml.InvalidArgumentError, "its min 'lo' is INT32 and its input FLOAT"),
        (np.array([1.0, 2.0], np.float32), dml.InvalidArgumentError, r"its min 'lo' has shape \[2\]"),
        (np.array(np.nan, np.float32), NodeRefused, "its min is NaN"),
    ):
        model = _model([clip], [x], [_value("y", F, [4])], [numpy_helper.from_array(bound, "lo"), one])
        with pytest.raises(error, match=words):
            DmlBackend.prepare(model)
    (tmp_path / "lo.bin").write_bytes(np.array(-1.0, np.float32).tobytes())
    external = TensorProto(name="lo", data_type=F, data_location=TensorProto.EXTERNAL)
    external.external_data.add(key="location", value="lo.bin")
    model = _model([clip], [x], [_value("y", F, [4])], [external, one])
    with pytest.raises(NodeRefused, match="the initializer 'lo' is held in external data"):
        DmlBackend.prepare(model, base_dir=str(tmp_path))


@pytest.mark.parametrize("elem", [TensorProto.INT4, TensorProto.UINT4], ids=["INT4", "UINT4"])
@pytest.mark.parametrize("bounds", [(), ("lo",), ("", "hi"), ("lo", "hi")], ids=["none", "min", "max", "both"])
def test_a_4_bit_clip_is_refused_naming_the_node_its_input_and_the_type(elem: int, bounds: tuple[str, ...]) -> None:
    """Issue 42: a Clip of INT4 or UINT4 made prepare raise NumPy's ValueError ("Invalid integer data type 'V'").
    No feature level of DirectML's CLIP1 takes a 4-bit type (nor does ELEMENT_WISE_IDENTITY, a bound-less Clip's
    copy), and no opset of ONNX's Clip: NodeRefused (a dml.DmlError) naming the node, its input and the type,
    with or without bounds (given as initializers of the input's type, as ONNX's Clip takes them)."""
    name = TensorProto.DataType.Name(elem)
    four_bit = {dml.TensorDataType.INT4, dml.TensorDataType.UINT4}
    assert not any(four_bit & row.data_types["InputTensor"] for row in dml.ElementWiseClip1OperatorDesc.SUPPORT.rows)
    clips = [schema for schema in onnx.defs.get_all_schemas_with_history() if schema.name == "Clip"]
    assert clips and all(f"tensor({name.lower()})" not in c.type_constraints[0].allowed_type_strs for c in clips)
    initializers = [helper.make_tensor(bound, elem, [], [1 if bound == "lo" else 5]) for bound in bounds if bound]
    clip = helper.make_node("Clip", ["x", *bounds], ["y"], name="clip")
    model = _model([clip], [_value("x", elem, [4])], [_value("y", elem, [4])], initializers)
    with pytest.raises(NodeRefused) as refused:
        DmlBackend.prepare(model)
    assert str(refused.value) == (
        f"ONNX node 'clip' (Clip, opset 21): its input 'x' is {name}; DirectML's ELEMENT_WISE_CLIP1 takes no 4-bit "
        f"type at any feature level, nor does ONNX's Clip: clip the value before QuantizeLinear makes it {name}, or "
        "after DequantizeLinear"
    )


def test_bools_are_read_only_where_the_schema_takes_them() -> None:
    """A bool graph input read by Abs, which takes no bool, is refused naming it; Equal of a bool and a UINT8 (both
    UINT8 to DirectML) is a malformed model (ONNX's T is one type); a UINT8 given to Not (which takes bools) too."""
    node = helper.make_node("Abs", ["b"], ["y"], name="abs")
    model = _model([node], [_value("b", B, [2])], [_value("y", B, [2])])
    with pytest.raises(NodeRefused, match=r"'abs' \(Abs, opset 21\): its input 'b' is an ONNX bool"):
        DmlBackend.prepare(model)
    node = helper.make_node("Equal", ["b", "u"], ["y"], name="eq")
    model = _model([node], [_value("b", B, [2]), _value("u", TensorProto.UINT8, [2])], [_value("y", B, [2])])
    with pytest.raises(dml.InvalidArgumentError, match=r"'eq' \(Equal, opset 21\): its inputs are 'b' BOOL, 'u' not"):
        DmlBackend.prepare(model)
    node = helper.make_node("Not", ["u"], ["y"], name="not")
    model = _model([node], [_value("u", TensorProto.UINT8, [2])], [_value("y", B, [2])])
    with pytest.raises(dml.InvalidArgumentError, match=r"'not' \(Not, opset 21\): its input 'u' is UINT8; Not's"):
        DmlBackend.prepare(model)
