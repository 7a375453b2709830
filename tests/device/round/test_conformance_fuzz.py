"""Bad input: descriptor construction, JSON parsing and binding calls fed random junk (hypothesis). The only
exceptions that may escape are pydantic.ValidationError and dml.DmlError subclasses, nothing crashes the
process, and no byte of a bound buffer changes when a call fails."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dmlpy as dml

ALLOWED = (pydantic.ValidationError, dml.DmlError)
SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

NUMBERS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, 1, 4, 8, 9, -1, 2**32 - 1, 2**32, 2**64 - 1, 2**64, 0x2100, 0x3000]),
    st.floats(allow_nan=True, allow_infinity=True),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=12))
JUNK = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
ENUM_VALUES = st.one_of(
    st.sampled_from(
        [
            "FLOAT32",
            "DML_TENSOR_DATA_TYPE_FLOAT16",
            "FLOAT64",
            "INT8",
            "UNKNOWN",
            "float32",
            "TOWARD_ZERO",
            "DML_ROUNDING_MODE_TOWARD_INFINITY",
            "HALVES_TO_NEAREST_EVEN",
            "BUFFER",
            "INVALID",
            "NONE",
            "OWNED_BY_DML",
            "0x1",
            "1|2",
            "",
            " ",
            "\x00",
        ]
    ),
    st.integers(-3, 20),
    SCALARS,
)
SIZES = st.one_of(st.lists(st.integers(-2, 6), max_size=9), st.lists(NUMBERS, max_size=9), JUNK)


@st.composite
def tensor_dicts(draw: st.DrawFn) -> Any:
    """Near-valid DML_BUFFER_TENSOR_DESC / DML_TENSOR_DESC payloads with some fields junk or missing."""
    fields = {
        "DataType": ENUM_VALUES,
        "Sizes": SIZES,
        "Strides": st.one_of(st.none(), SIZES),
        "Flags": ENUM_VALUES,
        "DimensionCount": st.one_of(st.integers(-1, 10), SCALARS),
        "TotalTensorSizeInBytes": st.one_of(NUMBERS, SCALARS),
        "GuaranteedBaseOffsetAlignment": st.one_of(st.sampled_from([0, 1, 3, 4, 16, 2**31]), NUMBERS),
        draw(st.sampled_from(["data_type", "sizes", "junk", "Desc", "Type"])): JUNK,
    }
    chosen = draw(st.lists(st.sampled_from(sorted(fields)), unique=True, max_size=len(fields)))
    data = {name: draw(fields[name]) for name in chosen}
    if draw(st.booleans()):
        return {"Type": draw(ENUM_VALUES), "Desc": data}
    return data if draw(st.integers(0, 9)) else draw(JUNK)


@st.composite
def round_dicts(draw: st.DrawFn) -> Any:
    fields = {
        "InputTensor": tensor_dicts(),
        "OutputTensor": tensor_dicts(),
        "RoundingMode": ENUM_VALUES,
        draw(st.sampled_from(["input_tensor", "rounding_mode", "extra"])): JUNK,
    }
    chosen = draw(st.lists(st.sampled_from(sorted(fields)), unique=True, max_size=len(fields)))
    return {name: draw(fields[name]) for name in chosen}


def _exercise(desc: Any, level: dml.FeatureLevel, device: Any) -> None:
    """What a caller does with a descriptor that constructed: validate, create and compile the operator."""
    dml.validate(desc, level)
    desc.model_dump(by_alias=True)
    json.loads(desc.model_dump_json(by_alias=True))
    if isinstance(desc, dml.ElementWiseRoundOperatorDesc) and desc.input_tensor.desc.element_count <= 1 << 20:
        device.compile_operator(device.create_operator(desc))


LEVELS = st.sampled_from(list(dml.FeatureLevel))


@SETTINGS
@given(payload=round_dicts(), level=LEVELS, how=st.sampled_from(["validate", "kwargs", "operator_desc"]))
def test_fuzz_descriptor_construction(payload: Any, level: dml.FeatureLevel, how: str, device: Any, tally: Any) -> None:
    tally["fuzz examples"] += 1
    try:
        if how == "validate":
            desc = dml.ElementWiseRoundOperatorDesc.model_validate(payload)
        elif how == "kwargs":
            desc = dml.ElementWiseRoundOperatorDesc(**payload)
        else:
            desc = dml.OperatorDesc.model_validate({"Type": "ELEMENT_WISE_ROUND", "Desc": payload}).desc
        _exercise(desc, level, device)
    except ALLOWED:
        pass


@SETTINGS
@given(payload=tensor_dicts())
def test_fuzz_tensor_desc_construction(payload: Any, tally: Any) -> None:
    tally["fuzz examples"] += 1
    try:
        desc = dml.TensorDesc.model_validate(payload)
        dml.calc_buffer_tensor_size(desc.desc.data_type, desc.desc.sizes, desc.desc.strides)
    except ALLOWED:
        pass


VALID_JSON = json.dumps(
    {
        "Type": "DML_OPERATOR_ELEMENT_WISE_ROUND",
        "Desc": {
            "InputTensor": {"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {"DataType": "FLOAT32", "Sizes": [1, 2, 3, 4]}},
            "OutputTensor": {"DataType": 1, "Sizes": [1, 2, 3, 4], "Strides": [24, 12, 4, 1]},
            "RoundingMode": "DML_ROUNDING_MODE_TOWARD_ZERO",
        },
    }
)


@st.composite
def json_texts(draw: st.DrawFn) -> str | bytes:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(st.text(max_size=80))
    if kind == 1:
        return draw(st.binary(max_size=80))
    if kind == 2:
        return json.dumps({"Type": draw(ENUM_VALUES), "Desc": draw(round_dicts())}, allow_nan=True)
    text = list(VALID_JSON)  # a valid document with a few characters replaced, deleted or inserted
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text) - 1))
        action = draw(st.integers(0, 2))
        char = draw(st.characters(codec="utf-8"))
        if action == 0:
            text[at] = char
        elif action == 1:
            del text[at]
        else:
            text.insert(at, char)
    return "".join(text)


def test_valid_json_parses() -> None:
    desc = dml.OperatorDesc.model_validate_json(VALID_JSON)
    dml.validate(desc, dml.FeatureLevel.FL_2_1)


@SETTINGS
@given(text=json_texts(), level=LEVELS, target=st.sampled_from(["operator", "round", "tensor"]))
def test_fuzz_json_parsing(text: str | bytes, level: dml.FeatureLevel, target: str, device: Any, tally: Any) -> None:
    tally["fuzz examples"] += 1
    model = {"operator": dml.OperatorDesc, "round": dml.ElementWiseRoundOperatorDesc, "tensor": dml.TensorDesc}[target]
    try:
        parsed = model.model_validate_json(text)
        if target != "tensor":
            _exercise(parsed.desc if target == "operator" else parsed, level, device)
    except ALLOWED:
        pass


# --- binding calls -----------------------------------------------------------------------------------------


class Rig:
    """One compiled Round (4-D, 2x3x4x5 float32) and canary-filled buffers; ``snapshot`` reads every byte."""

    def __init__(self, device: Any) -> None:
        self.device = device
        self.td = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=(2, 3, 4, 5))
        self.size = self.td.total_tensor_size_in_bytes
        desc = dml.ElementWiseRoundOperatorDesc(input_tensor=self.td, output_tensor=self.td)
        self.compiled = device.compile_operator(device.create_operator(desc))
        self.other = device.compile_operator(device.create_operator(desc))
        recorder = device.create_command_recorder()
        initializer = device.create_operator_initializer([self.compiled])
        recorder.record_dispatch(device.queue, initializer, device.create_binding_table(initializer)).wait()
        self.recorder = recorder
        rng = np.random.default_rng(5)
        self.buffers = [
            device.upload(rng.integers(0, 256, n, dtype=np.uint8)) for n in (self.size, 64, 2 * self.size + 32)
        ]
        self.foreign = dml.create_device().create_buffer(self.size)  # a buffer of another device

    def snapshot(self) -> list[bytes]:
        return [b.read(np.uint8, b.size).tobytes() for b in self.buffers]

    def restore(self, saved: list[bytes]) -> None:
        for buffer, data in zip(self.buffers, saved, strict=True):
            buffer.write(np.frombuffer(data, np.uint8))


@pytest.fixture(scope="module")
def rig(device: Any) -> Rig:
    return Rig(device)


@st.composite
def typed_bindings(draw: st.DrawFn, rig: Rig) -> Any:
    """Lists of BufferBinding with junk (but integer) offsets and sizes, absent slots, foreign buffers."""

    def one() -> Any:
        if draw(st.integers(0, 6)) == 0:
            return None
        buffer = draw(st.sampled_from([*rig.buffers, rig.foreign]))
        offset = draw(st.one_of(st.sampled_from([0, 16, 32, 4, 8, -16, rig.size]), st.integers(-(2**65), 2**65)))
        size = draw(
            st.one_of(st.none(), st.sampled_from([rig.size, rig.size - 4, 0, 64]), st.integers(-(2**65), 2**65))
        )
        return dml.BufferBinding(buffer, offset, size)

    return [one() for _ in range(draw(st.integers(0, 3)))]


OPERATIONS = st.lists(
    st.sampled_from(["inputs", "outputs", "dispatch", "dispatch_other", "reset"]), min_size=1, max_size=6
)


@SETTINGS
@given(data=st.data(), operations=OPERATIONS)
def test_fuzz_binding_calls(rig: Rig, data: st.DataObject, operations: list[str], tally: Any) -> None:
    tally["fuzz examples"] += 1
    device = rig.device
    table = device.create_binding_table(rig.compiled)
    for operation in operations:
        before = rig.snapshot()
        try:
            if operation == "inputs":
                table.bind_inputs(data.draw(typed_bindings(rig)))
            elif operation == "outputs":
                table.bind_outputs(data.draw(typed_bindings(rig)))
            elif operation == "reset":
                table.reset(data.draw(st.sampled_from([rig.compiled, rig.other])))
            else:
                target = rig.compiled if operation == "dispatch" else rig.other
                rig.recorder.record_dispatch(device.queue, target, table).wait()
                # A dispatch that was accepted wrote only into its output; put the canary back for the next step.
                rig.restore(before)
                continue
        except ALLOWED:
            pass
        assert rig.snapshot() == before, f"{operation} failed or only bound, yet a buffer changed"


@pytest.mark.parametrize("junk", ["non_sequence", "none", "object", "text_element", "offset_str", "size_str"])
def test_binding_calls_with_ill_typed_junk_raise_dml_errors(rig: Rig, junk: str) -> None:
    buffer = rig.buffers[0]
    # Built inside pytest.raises: a BufferBinding with a text offset is refused as soon as it is made.
    make_bindings: Any = {
        "non_sequence": lambda: 5,
        "none": lambda: None,
        "object": lambda: [object()],
        "text_element": lambda: ["x"],
        "offset_str": lambda: [dml.BufferBinding(buffer, "16", rig.size)],  # type: ignore[arg-type]
        "size_str": lambda: [dml.BufferBinding(buffer, 0, "4")],  # type: ignore[arg-type]
    }[junk]
    table = rig.device.create_binding_table(rig.compiled)
    with pytest.raises(ALLOWED):
        table.bind_inputs(make_bindings())


@pytest.mark.parametrize("level", ["junk", None, 3.5, [], 0x9999])
def test_junk_feature_level_raises_dml_error(level: Any) -> None:
    td = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 1, 4))
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td)
    with pytest.raises(dml.InvalidArgumentError):
        dml.validate(desc, level)


@pytest.mark.parametrize("keyword", ["minimum_feature_level", "max_feature_level"])
@pytest.mark.parametrize("level", ["junk", 3.5, 0x9999])
def test_junk_feature_level_in_create_device_raises_dml_error(keyword: str, level: Any) -> None:
    with pytest.raises(ALLOWED):
        dml.create_device(**{keyword: level})


def test_junk_feature_level_is_at_least_a_value_error() -> None:
    td = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 1, 4))
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td)
    for level in ("junk", 0x9999):
        with pytest.raises(ValueError):
            dml.validate(desc, level)
