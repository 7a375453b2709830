"""Errors speak with one voice: a bad value given to any descriptor, by constructor, ``model_validate``,
``model_validate_json`` or the JSON parser the CLI uses, raises ``dml.InvalidArgumentError`` (a DmlError and a
ValueError) with the same teaching line: the C field path from the struct's C name, the value, the accepted
values and the hint; pydantic's ValidationError stays reachable as ``__cause__``. DML_BUFFER_BINDING is a model
like the others. Runtime messages name operators by ``describe()``, never by a repr.

The per-field cases are generated from ``model_fields`` for every operator of ``dml.OPERATORS`` and for
DML_BUFFER_TENSOR_DESC, DML_TENSOR_DESC and DML_SCALE_BIAS, so a field added later is covered too.
"""

from __future__ import annotations

import inspect
import json
import pickle
import re
import typing
from collections.abc import Callable, Iterator
from typing import Any

import pydantic
import pytest

import dmlpy as dml
from dmlpy.binding import BufferBinding
from dmlpy.descriptors_json import DescriptorProblems, parse_descriptor
from dmlpy.enums import DmlEnum, DmlFlag, ExtRoundingMode
from dmlpy.model import DmlModel
from dmlpy.ops import ScaleBias
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.structured import valid_sample

TENSOR = {"DataType": "FLOAT32", "Sizes": [1, 2, 3, 4]}
NOISE = ("ExtTensorDataType", "int-enum[", "input_value=", "Input should", "pydantic", "OperatorDesc[", "_Unknown")
"""What no message may contain: pydantic's union branches, its wording and its internals."""


def problems_of(call: Callable[[], object]) -> list[str]:
    """The problem lines ``call`` raises, after checking the error's kind and cause."""
    with pytest.raises(dml.InvalidArgumentError) as info:
        call()
    error = info.value
    assert isinstance(error, dml.DmlError) and isinstance(error, ValueError)
    assert error.hresult == 0x80070057
    assert isinstance(error.__cause__, pydantic.ValidationError), "pydantic's error is the cause"
    assert isinstance(error, DescriptorProblems)
    message = str(error)
    for noise in NOISE:
        assert noise not in message, f"{noise!r} in {message!r}"
    assert all(line in message for line in error.problems)
    return error.problems


def one_problem(call: Callable[[], object]) -> str:
    problems = problems_of(call)
    assert len(problems) == 1, problems
    return problems[0]


# ------------------------------------------------------------------------------ every field of every struct


def _valid(cls: type[DmlModel]) -> dict[str, Any]:
    """A valid value of ``cls`` as snake_case keyword arguments."""
    if cls is dml.BufferTensorDesc:
        return {"data_type": "FLOAT32", "sizes": [1, 2, 3, 4]}
    if cls is dml.TensorDesc:
        return {"type": "BUFFER", "desc": TENSOR}
    if cls is ScaleBias:
        return {"scale": 2.0, "bias": 1.0}
    sample = valid_sample(cls) if issubclass(cls, OperatorDescBase) else None
    if sample is not None:  # an operator that is not element-wise: its tensors' shapes must agree
        fields = {info.alias or name: name for name, info in cls.model_fields.items()}
        dumped = sample.model_dump(mode="json", by_alias=True, exclude_none=True)
        return {fields[key]: value for key, value in dumped.items()}
    return {name: _valid_value(info.annotation) for name, info in cls.model_fields.items() if info.is_required()}


def _valid_value(annotation: Any) -> Any:
    """A valid value of a required operator field: a tensor, a list of one tensor (QUANTIZE's
    QuantizationTensors) or of one axis (SOFTMAX1's Axes), an enum's member (QuantizationType, MinMaxDataType), a
    FLOAT (CLIP's Min, an activation's Alpha) or a DML_SCALAR_UNION (CLIP1's Min: one Float32)."""
    members = _members(annotation)
    enums = [m for m in members if isinstance(m, type) and issubclass(m, DmlEnum)]
    if enums:
        return list(enums[0])[-1].name
    tuples = [m for m in members if typing.get_origin(m) is tuple]
    if tuples:  # QUANTIZE's QuantizationTensors, or the softmax "1" forms' Axes (the last of TENSOR's 4)
        return [3] if int in _members(typing.get_args(tuples[0])[0]) else [TENSOR]
    if float in members:
        return 1.0
    if dml.ScalarUnion in members:
        return {"Float32": 1.0}
    return TENSOR


def _members(annotation: Any) -> list[Any]:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _members(typing.get_args(annotation)[0])
    if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
        return [m for arg in typing.get_args(annotation) for m in _members(arg) if m is not type(None)]
    return [annotation]


def _signed(metadata: Any) -> bool:
    """Whether the constraints in ``metadata`` (a field's, or an Annotated type's) allow negative numbers: a C INT."""
    return any(getattr(rule, "ge", 0) < 0 for m in metadata for rule in (getattr(m, "metadata", None) or [m]))


def _wrong_values(annotation: Any, metadata: Any = ()) -> list[Any]:
    """Values of the wrong kind for a field of ``annotation`` (and its constraints): JSON-able ones, and an arbitrary
    object."""
    members = _members(annotation)
    if any(isinstance(m, type) and issubclass(m, pydantic.BaseModel) for m in members):
        return [5, "text", [1, 2], object()]
    if any(isinstance(m, type) and issubclass(m, DmlEnum | DmlFlag) for m in members):
        return ["NOT_A_VALUE", 2.5, [1], object()]
    arrays = [m for m in members if typing.get_origin(m) is tuple]
    if arrays:
        item = typing.get_args(arrays[0])[0]
        if float in _members(item):  # an array of FLOATs takes any number
            return [5, "1234", [1, "x"], object()]
        negative = -(2**40) if _signed(typing.get_args(item)[1:]) else -2
        return [5, "1234", [1, "x"], [1, negative], [1, 2.5], object()]
    if float in members:
        return ["abc", [1.0], object()]
    if bool in members:  # a C BOOL: true, false, 1 or 0
        return ["abc", "true", 2, 2.5, [1], object()]
    return ["abc", "4", True, -(2**40) if _signed(metadata) else -1, 2.5, [1], object()]


STRUCTS: list[type[DmlModel]] = [*dml.OPERATORS.values(), dml.BufferTensorDesc, dml.TensorDesc, ScaleBias]


def _field_cases() -> Iterator[Any]:
    for cls in STRUCTS:
        for name, info in cls.model_fields.items():
            for index, wrong in enumerate(_wrong_values(info.annotation, info.metadata)):
                kind = type(wrong).__name__
                yield pytest.param(cls, name, wrong, id=f"{cls.__name__}.{info.alias}-{index}-{kind}")


@pytest.mark.parametrize(("cls", "name", "wrong"), list(_field_cases()))
def test_a_wrong_value_in_any_field_is_an_invalid_argument_naming_the_c_field(
    cls: type[DmlModel], name: str, wrong: Any
) -> None:
    alias = cls.model_fields[name].alias
    assert alias, f"{cls.__name__}.{name} has no C alias"
    cls(**_valid(cls))  # the baseline is valid
    data = {**_valid(cls), name: wrong}
    problems = problems_of(lambda: cls(**data))
    where = re.compile(rf"^{re.escape(cls.struct_name())}\.{alias}[ \[:.]")
    assert any(where.match(line) for line in problems), problems
    # The same line, whatever the door: model_validate with C names, and JSON when the value is JSON.
    by_c_names = {cls.model_fields[key].alias or key: value for key, value in data.items()}
    assert problems_of(lambda: cls.model_validate(by_c_names)) == problems
    if type(wrong) is not object:
        assert problems_of(lambda: cls.model_validate_json(json.dumps(by_c_names))) == problems


def test_every_struct_is_named_by_its_c_name() -> None:
    assert dml.BufferTensorDesc.struct_name() == "DML_BUFFER_TENSOR_DESC"
    assert dml.TensorDesc.struct_name() == "DML_TENSOR_DESC"
    assert dml.OperatorDesc.struct_name() == "DML_OPERATOR_DESC"
    assert ScaleBias.struct_name() == "DML_SCALE_BIAS"
    assert BufferBinding.struct_name() == "DML_BUFFER_BINDING"
    for cls in dml.OPERATORS.values():
        assert cls.struct_name() == cls.operator_name()  # ELEMENT_WISE_ROUND, DMLPY_EXT_OPERATOR_...


# ---------------------------------------------------------------------------------------- the messages


def test_data_type_lists_directml_types_never_the_extension_union_branch() -> None:
    line = one_problem(lambda: dml.BufferTensorDesc(data_type="FLOAT", sizes=(1, 2)))
    assert line.startswith('DML_BUFFER_TENSOR_DESC.DataType is "FLOAT"; it must be one of FLOAT32 (1), FLOAT16 (2), ')
    assert "the C name (DML_TENSOR_DATA_TYPE_FLOAT32), the short name or the number" in line
    assert "UNKNOWN" not in line  # a placeholder DirectML never accepts is no choice to offer
    assert "Ext" not in line and "BFLOAT16" not in line


def test_rounding_mode_from_another_system_is_translated() -> None:
    line = one_problem(
        lambda: dml.ElementWiseRoundOperatorDesc(
            input_tensor=TENSOR, output_tensor=TENSOR, rounding_mode="half_away_from_zero"
        )
    )
    assert line.startswith('ELEMENT_WISE_ROUND.RoundingMode is "half_away_from_zero"; it must be one of ')
    assert "HALVES_TO_NEAREST_EVEN (0), TOWARD_ZERO (1), TOWARD_INFINITY (2)" in line
    assert line.endswith("('half_away_from_zero' is another system's name; DirectML calls it TOWARD_INFINITY)")


@pytest.mark.parametrize(
    ("mode", "hint"),
    [
        ("ceil", "DirectML has no ceil mode"),
        ("floor", "DirectML has no floor mode"),
        (ExtRoundingMode.UP, "DMLPY_EXT_ROUNDING_MODE_UP is a dmlpy extension mode, not DirectML"),
        ("ROUND_NEAREST_UPWARD", "DMLPY_EXT_ROUNDING_MODE_NEAREST_UPWARD is a dmlpy extension mode"),
    ],
)
def test_directml_rounding_mode_hints(mode: Any, hint: str) -> None:
    line = one_problem(
        lambda: dml.ElementWiseRoundOperatorDesc(input_tensor=TENSOR, output_tensor=TENSOR, rounding_mode=mode)
    )
    assert hint in line


def test_extension_rounding_mode_hints_speak_of_the_extension() -> None:
    ext = dml.ExtElementWiseRoundOperatorDesc
    line = one_problem(lambda: ext(input_tensor=TENSOR, output_tensor=TENSOR, rounding_mode=2))
    assert line.startswith("DMLPY_EXT_OPERATOR_ELEMENT_WISE_ROUND.RoundingMode is 2; it must be one of ")
    assert "2 is DirectML's TOWARD_INFINITY" in line and "NEAREST_TOWARD_INFINITY" in line
    line = one_problem(lambda: ext(input_tensor=TENSOR, output_tensor=TENSOR, rounding_mode="half_away_from_zero"))
    assert "the extension calls it NEAREST_TOWARD_INFINITY" in line
    assert "the extension calls ceil UP" in one_problem(
        lambda: ext(input_tensor=TENSOR, output_tensor=TENSOR, rounding_mode="ceil")
    )


def _round(input_tensor: dict[str, Any]) -> dict[str, Any]:
    return {"Type": "DML_OPERATOR_ELEMENT_WISE_ROUND", "Desc": {"InputTensor": input_tensor, "OutputTensor": TENSOR}}


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [
        ([1, 2, 3, -4], "ELEMENT_WISE_ROUND.InputTensor.Sizes[3] is -4; it must be a whole number, at least 1"),
        ([1, 2.5, 3, 4], "ELEMENT_WISE_ROUND.InputTensor.Sizes[1] is 2.5; it must be a whole number, at least 1"),
        ([1, "abc", 3, 4], 'ELEMENT_WISE_ROUND.InputTensor.Sizes[1] is "abc"; it must be a whole number, at least 1'),
        (
            [1, "4", 3, 4],
            'ELEMENT_WISE_ROUND.InputTensor.Sizes[1] is "4"; it must be a whole number, at least 1, written as a '
            "number, not as text",
        ),
        ([1, True, 3, 4], "ELEMENT_WISE_ROUND.InputTensor.Sizes[1] is true; it must be a whole number, at least 1"),
        ([1, 2**32, 3, 4], "ELEMENT_WISE_ROUND.InputTensor.Sizes[1] is 4294967296; a C UINT holds at most 4294967295"),
    ],
    ids=["negative", "fraction", "text", "number-as-text", "bool", "too-large"],
)
def test_size_messages_are_the_same_in_the_api_and_the_cli(sizes: list[Any], expected: str) -> None:
    document = _round({"DataType": "FLOAT32", "Sizes": sizes})
    with pytest.raises(DescriptorProblems) as cli:
        parse_descriptor(document)
    assert cli.value.problems == [expected]
    assert problems_of(lambda: dml.OperatorDesc.model_validate(document)) == [expected]
    assert problems_of(lambda: dml.OperatorDesc.model_validate_json(json.dumps(document))) == [expected]
    desc = document["Desc"]
    assert problems_of(lambda: dml.ElementWiseRoundOperatorDesc(**desc)) == [expected]
    assert problems_of(lambda: dml.OperatorDesc(Type=99, Desc=desc)) == [expected]


@pytest.mark.parametrize("field", ["Sizes", "Strides"])
def test_counts_written_as_text_are_refused(field: str) -> None:
    values = {"Sizes": [1, 2], "Strides": [2, 1], field: ["1", "2"]}
    line = problems_of(lambda: dml.BufferTensorDesc(DataType="FLOAT32", **values))[0]
    assert line.startswith(f'DML_BUFFER_TENSOR_DESC.{field}[0] is "1"; it must be a whole number')
    for name in ("DimensionCount", "TotalTensorSizeInBytes", "GuaranteedBaseOffsetAlignment"):
        text = one_problem(lambda name=name: dml.BufferTensorDesc(DataType="FLOAT32", Sizes=[4], **{name: "16"}))
        assert text.startswith(f'DML_BUFFER_TENSOR_DESC.{name} is "16"; it must be a whole number'), text
        assert text.endswith("written as a number, not as text")
    # A whole number written as a JSON float is a number: accepted, like DirectML's C would.
    assert dml.BufferTensorDesc(DataType="FLOAT32", Sizes=[4.0]).sizes == (4,)


def test_a_size_of_zero_is_held_by_the_struct_and_refused_by_validation_in_the_same_words() -> None:
    desc = dml.ElementWiseRoundOperatorDesc(**_round({"DataType": "FLOAT32", "Sizes": [1, 0, 3, 4]})["Desc"])
    with pytest.raises(dml.InvalidArgumentError, match=r"Sizes\[1\] is 0 .*it must be a whole number, at least 1"):
        dml.validate(desc, "3_0")


def test_an_unknown_operator_type_is_the_only_problem_reported() -> None:
    # A correctly spelled descriptor under a misspelled Type: the fields cannot be judged without the Type.
    bare_with_type = {"Type": "ELEMENT_WISE_ROUNDX", "InputTensor": TENSOR, "OutputTensor": TENSOR}
    wrapped = {"Type": "ELEMENT_WISE_ROUNDX", "Desc": {"InputTensor": TENSOR, "OutputTensor": TENSOR}}
    for document in (bare_with_type, wrapped):
        with pytest.raises(DescriptorProblems) as cli:
            parse_descriptor(document)
        (line,) = cli.value.problems
        assert line.startswith('DML_OPERATOR_DESC.Type is "ELEMENT_WISE_ROUNDX"; it must be one of ')
        assert "ELEMENT_WISE_ROUND (99)" in line and "QUANTIZE (173)" in line and "INVALID" not in line
        assert problems_of(lambda document=document: dml.OperatorDesc.model_validate(document)) == [line]
    round_desc = dml.ElementWiseRoundOperatorDesc(input_tensor=TENSOR, output_tensor=TENSOR)
    line = one_problem(lambda: dml.OperatorDesc(type="ROUNDX", desc=round_desc))
    assert line.startswith('DML_OPERATOR_DESC.Type is "ROUNDX"; it must be one of ')


def test_struct_values_are_shown_by_what_they_describe_never_by_their_repr() -> None:
    identity = dml.ElementWiseIdentityOperatorDesc(input_tensor=TENSOR, output_tensor=TENSOR)
    line = one_problem(lambda: dml.OperatorDesc(type=dml.OperatorType.ELEMENT_WISE_ROUND, desc=identity))
    assert line == (
        "DML_OPERATOR_DESC: Desc is ELEMENT_WISE_IDENTITY (FLOAT32); for Type DML_OPERATOR_ELEMENT_WISE_ROUND it "
        "must be a ElementWiseRoundOperatorDesc"
    )
    tensor = dml.BufferTensorDesc(data_type="FLOAT16", sizes=(2, 3))
    line = one_problem(lambda: dml.OperatorDesc(type=99, desc=tensor))
    assert line.startswith("DML_OPERATOR_DESC.Desc is DML_BUFFER_TENSOR_DESC (FLOAT16, Sizes [2, 3]); it must be")
    assert "data_type=" not in line and "TensorDataType." not in line


def test_paths_hold_only_what_the_user_wrote() -> None:
    # A tensor given bare (the usual form) is never shown with DML_TENSOR_DESC's Desc in its path.
    bare = {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 2.5]}, "OutputTensor": TENSOR}
    assert problems_of(lambda: dml.ElementWiseRoundOperatorDesc.model_validate(bare)) == [
        "ELEMENT_WISE_ROUND.InputTensor.Sizes[1] is 2.5; it must be a whole number, at least 1"
    ]
    assert problems_of(lambda: dml.TensorDesc.model_validate({"DataType": "FLOAT32", "Sizes": [1, 2.5]})) == [
        "DML_BUFFER_TENSOR_DESC.Sizes[1] is 2.5; it must be a whole number, at least 1"
    ]
    # A wrong value where the user wrote Desc names Desc.
    assert one_problem(lambda: dml.TensorDesc.model_validate({"Type": "BUFFER", "Desc": 3})).startswith(
        "DML_TENSOR_DESC.Desc is 3; it must be a JSON object with the DML_BUFFER_TENSOR_DESC fields"
    )


def test_unknown_and_doubled_fields() -> None:
    line = one_problem(lambda: dml.ElementWiseRoundOperatorDesc.model_validate({**_valid_round(), "RoundingMod": 1}))
    assert line == (
        "ELEMENT_WISE_ROUND.RoundingMod is not a field here (given 1) (did you mean RoundingMode?); check its "
        "spelling; the fields are InputTensor, OutputTensor, RoundingMode"
    )
    line = one_problem(lambda: dml.BufferTensorDesc(DataType="FLOAT32", Sizes=[2], sizes=[3]))
    assert line == "DML_BUFFER_TENSOR_DESC.Sizes is given twice (as its C name and in snake_case); give it once"


def _valid_round() -> dict[str, Any]:
    return {"InputTensor": TENSOR, "OutputTensor": TENSOR}


def test_several_problems_are_one_line_each_in_the_message() -> None:
    with pytest.raises(DescriptorProblems) as info:
        dml.BufferTensorDesc(data_type="FLOAT", sizes=(1, -1), flags="X")
    error = info.value
    assert [line.split(" is ")[0] for line in error.problems] == [
        "DML_BUFFER_TENSOR_DESC.DataType",
        "DML_BUFFER_TENSOR_DESC.Flags",
        "DML_BUFFER_TENSOR_DESC.Sizes[1]",
    ]
    assert str(error) == "3 problems:\n" + "\n".join(f"  {line}" for line in error.problems)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is DescriptorProblems and copy.problems == error.problems and str(copy) == str(error)


def test_invalid_json_text_is_an_invalid_argument() -> None:
    line = one_problem(lambda: dml.OperatorDesc.model_validate_json('{"Type": '))
    assert line.startswith("DML_OPERATOR_DESC: the JSON is not valid: ")


class BrokenRepr:
    def __repr__(self) -> str:
        raise ZeroDivisionError("a repr that fails")


@pytest.mark.parametrize(
    "junk",
    [float("nan"), 10**5000, {(1, 2): 3}, b"\xff", BrokenRepr()],
    ids=["nan", "huge-int", "tuple-key", "bytes", "broken-repr"],
)
def test_awkward_values_are_shown_without_failing(junk: Any) -> None:
    line = one_problem(lambda: dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1,), strides=junk))
    assert line.startswith("DML_BUFFER_TENSOR_DESC.Strides is ")
    assert len(line.split(";")[0]) < 140


# ----------------------------------------------------------------------------------------- DML_BUFFER_BINDING


class FakeBuffer:
    """What the binding rules need of a buffer; like dmlpy's Buffer, its size raises once released."""

    def __init__(self, size: int) -> None:
        self._size, self.released = size, False

    @property
    def size(self) -> int:
        if self.released:
            raise dml.InvalidArgumentError(f"this {self._size}-byte buffer was released and cannot be bound any more")
        return self._size


def test_buffer_binding_is_a_frozen_model_with_c_aliases() -> None:
    buffer = FakeBuffer(64)
    by_position = BufferBinding(buffer, 16, 32)
    for same in (
        BufferBinding(buffer=buffer, offset=16, size_in_bytes=32),
        BufferBinding(Buffer=buffer, Offset=16, SizeInBytes=32),
        BufferBinding(buffer, Offset=16, SizeInBytes=32),
        BufferBinding.model_validate({"Buffer": buffer, "Offset": 16, "SizeInBytes": 32}),
    ):
        assert same == by_position and hash(same) == hash(by_position)
    assert isinstance(by_position, pydantic.BaseModel) and BufferBinding.model_config.get("frozen")
    assert {name: info.alias for name, info in BufferBinding.model_fields.items()} == {
        "buffer": "Buffer",
        "offset": "Offset",
        "size_in_bytes": "SizeInBytes",
    }
    assert by_position.model_dump(by_alias=True) == {"Buffer": buffer, "Offset": 16, "SizeInBytes": 32}
    assert list(inspect.signature(BufferBinding).parameters) == ["buffer", "offset", "size_in_bytes"]
    assert (by_position.buffer, by_position.offset, by_position.size_in_bytes) == (buffer, 16, 32)
    assert (by_position.size, by_position.end) == (32, 48)
    assert by_position.describe() == "bytes [16, 48) of a 64-byte buffer"
    to_end = BufferBinding(buffer, 16)
    assert (to_end.size_in_bytes, to_end.size, to_end.end) == (None, 48, 64)
    assert BufferBinding(buffer) == BufferBinding(buffer, 0, None)
    assert BufferBinding(buffer, 0) != BufferBinding(FakeBuffer(64), 0)  # buffers are told apart by identity
    with pytest.raises(dml.InvalidArgumentError, match=r"DML_BUFFER_BINDING\.Offset cannot be assigned"):
        by_position.offset = 0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ((FakeBuffer(64), -16), "DML_BUFFER_BINDING.Offset is -16; it must be a whole number from 0"),
        ((FakeBuffer(64), "16"), 'DML_BUFFER_BINDING.Offset is "16"; it must be a whole number from 0'),
        ((FakeBuffer(64), 1.5), "DML_BUFFER_BINDING.Offset is 1.5; it must be a whole number from 0"),
        ((FakeBuffer(64), 0, True), "DML_BUFFER_BINDING.SizeInBytes is true; it must be a whole number from 0"),
        ((FakeBuffer(64), 0, -4), "DML_BUFFER_BINDING.SizeInBytes is -4; it must be a whole number from 0"),
        ((FakeBuffer(64), 0, 2**64), "DML_BUFFER_BINDING.SizeInBytes is 18446744073709551616; a C UINT64 holds"),
        ((None,), "DML_BUFFER_BINDING.Buffer is null; it must be a dmlpy Buffer"),
        ((b"bytes",), "DML_BUFFER_BINDING.Buffer is b'bytes'; it must be a dmlpy Buffer"),
        ((), "DML_BUFFER_BINDING.Buffer is missing"),
    ],
    ids=[
        "negative-offset",
        "text-offset",
        "float-offset",
        "bool-size",
        "negative-size",
        "huge-size",
        "none",
        "bytes",
        "none-given",
    ],
)
def test_buffer_binding_refuses_bad_values_naming_the_c_field(arguments: tuple[Any, ...], expected: str) -> None:
    line = one_problem(lambda: BufferBinding(*arguments))
    assert line.startswith(expected), line


def test_buffer_binding_refuses_a_released_buffer() -> None:
    buffer = FakeBuffer(32)
    buffer.released = True
    line = one_problem(lambda: BufferBinding(buffer))
    assert line == "DML_BUFFER_BINDING.Buffer: this 32-byte buffer was released and cannot be bound any more"


def test_buffer_binding_given_twice_is_refused() -> None:
    with pytest.raises(dml.InvalidArgumentError, match=r"^DML_BUFFER_BINDING\.Offset is given twice"):
        BufferBinding(FakeBuffer(64), 16, Offset=32)


# ----------------------------------------------------------------------------- runtime messages (a device)


def test_binding_table_messages_name_operators_and_bindings_in_words(device: Any) -> None:
    td = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 4))
    compiled = device.compile_operator(
        device.create_operator(dml.ElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td, rounding_mode=2))
    )
    other = device.compile_operator(
        device.create_operator(dml.ElementWiseIdentityOperatorDesc(input_tensor=td, output_tensor=td))
    )
    table = device.create_binding_table(compiled)
    buffer = device.create_buffer(64)
    messages: list[str] = []
    for call in (
        lambda: table.bind_inputs([]),
        lambda: table.bind_temporary_resource(dml.BufferBinding(buffer)),
        lambda: table.bind_inputs([dml.BufferBinding(FakeBuffer(64))]),
        lambda: table.check_snapshot(table.snapshot(), other),
    ):
        with pytest.raises(dml.InvalidArgumentError) as info:
            call()
        messages.append(str(info.value))
    count, resource, fake, snapshot = messages
    assert "the compiled operator ELEMENT_WISE_ROUND (FLOAT32, TOWARD_INFINITY) takes exactly 1" in count
    assert "binding is bytes [0, 64) of a 64-byte buffer, but the compiled operator ELEMENT_WISE_ROUND" in resource
    assert "is bound to a FakeBuffer, not a buffer of this device (a dmlpy Buffer" in fake
    assert "made for the compiled operator ELEMENT_WISE_ROUND (FLOAT32, TOWARD_INFINITY), not the compiled " in (
        snapshot
    )
    assert "operator ELEMENT_WISE_IDENTITY (FLOAT32)" in snapshot
    for message in messages:
        assert "<dmlpy." not in message and "BufferBinding(" not in message and "object at 0x" not in message
