"""DirectML's binding and dispatch rules: each broken rule raises InvalidArgumentError naming the rule, and the
output buffer still holds its sentinel afterwards (nothing was enqueued). Also device creation, feature queries,
compiled sources and binding properties."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.kernels import kernel_source
from tests.helpers.layouts import sentinel_bytes
from tests.helpers.object_model import initialize
from tests.helpers.references import round_reference
from tests.helpers.round_checks import assert_rounds_like_reference

SIZES = (2, 3, 4, 5)
TOTAL = 480  # 120 float32 elements
BUFFER_SIZE = 2048


def round_desc(*, input_strides=None, output_strides=None, alignment=0, sizes=SIZES):
    def td(strides):
        return dml.BufferTensorDesc(
            data_type=dml.TensorDataType.FLOAT32,
            sizes=sizes,
            strides=strides,
            guaranteed_base_offset_alignment=alignment,
        )

    return dml.ElementWiseRoundOperatorDesc(input_tensor=td(input_strides), output_tensor=td(output_strides))


@dataclass
class Setup:
    device: Any
    compiled: Any
    table: Any
    source: Any
    target: Any
    recorder: Any

    def dispatch(self) -> Any:
        return self.recorder.record_dispatch(self.device.queue, self.compiled, self.table)

    def assert_untouched(self) -> None:
        self.device.queue.finish()
        assert np.array_equal(self.target.read(np.uint8, BUFFER_SIZE), sentinel_bytes(BUFFER_SIZE)), "output changed"
        assert np.array_equal(self.source.read(np.uint8, BUFFER_SIZE), source_image()), "input changed"


def source_image() -> np.ndarray:
    image = sentinel_bytes(BUFFER_SIZE)[::-1].copy()
    image[: 4 * 256] = np.linspace(-9.75, 9.75, 256, dtype=np.float32).view(np.uint8)
    return image


def make_setup(device, desc=None, *, initialized=True) -> Setup:
    compiled = device.compile_operator(device.create_operator(desc if desc is not None else round_desc()))
    if initialized:
        initialize(device, compiled)
    source = device.create_buffer(BUFFER_SIZE)
    source.write(source_image())
    target = device.create_buffer(BUFFER_SIZE)
    target.write(sentinel_bytes(BUFFER_SIZE))
    return Setup(
        device, compiled, device.create_binding_table(compiled), source, target, device.create_command_recorder()
    )


@pytest.fixture
def setup(device) -> Setup:
    return make_setup(device)


def binding(buffer, offset=0, size=TOTAL):
    return dml.BufferBinding(buffer, offset, size)


def expect_error(setup: Setup, action, *words: str) -> None:
    with pytest.raises(dml.InvalidArgumentError) as error:
        action()
        setup.dispatch().wait()  # a bind that wrongly passes must still be caught before the dispatch runs
    message = str(error.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    assert error.value.hresult == 0x80070057
    setup.assert_untouched()


def test_valid_setup_writes(setup):
    # Control for the tests below: the same setup with valid bindings does write the output.
    setup.table.bind_inputs([binding(setup.source)])
    setup.table.bind_outputs([binding(setup.target)])
    setup.dispatch().wait()
    x = np.linspace(-9.75, 9.75, 256, dtype=np.float32)[:120]
    np.testing.assert_array_equal(setup.target.read(np.float32, 120), round_reference(x, 0))


@pytest.mark.parametrize("count", [0, 2], ids=["none", "two"])
def test_wrong_input_binding_count(setup, count):
    def act():
        setup.table.bind_inputs([binding(setup.source)] * count)
        setup.table.bind_outputs([binding(setup.target)])

    expect_error(setup, act, "bind_inputs", f"got {count}", "exactly 1", "ELEMENT_WISE_ROUND.InputTensor")


@pytest.mark.parametrize("count", [0, 2], ids=["none", "two"])
def test_wrong_output_binding_count(setup, count):
    def act():
        setup.table.bind_inputs([binding(setup.source)])
        setup.table.bind_outputs([binding(setup.target, 0)] * count)

    expect_error(setup, act, "bind_outputs", f"got {count}", "exactly 1", "ELEMENT_WISE_ROUND.OutputTensor")


@pytest.mark.parametrize("offset", [4, 8, 24, 1000], ids=lambda o: f"offset{o}")
def test_output_offset_not_multiple_of_16(setup, offset):
    def act():
        setup.table.bind_inputs([binding(setup.source)])
        setup.table.bind_outputs([binding(setup.target, offset)])

    expect_error(setup, act, "OutputTensor", f"Offset is {offset}", "multiple of 16")


def test_input_offset_not_multiple_of_16(setup):
    def act():
        setup.table.bind_inputs([binding(setup.source, 8)])
        setup.table.bind_outputs([binding(setup.target)])

    expect_error(setup, act, "InputTensor", "Offset is 8", "multiple of 16")


@pytest.mark.parametrize("slot", ["input", "output"])
def test_offset_not_multiple_of_guaranteed_base_offset_alignment(device, slot):
    setup = make_setup(device, round_desc(alignment=64))

    def act():
        setup.table.bind_inputs([binding(setup.source, 32 if slot == "input" else 64)])
        setup.table.bind_outputs([binding(setup.target, 32 if slot == "output" else 128)])

    expect_error(setup, act, "Offset is 32", "multiple of 64", "GuaranteedBaseOffsetAlignment")


def test_offsets_multiple_of_guaranteed_base_offset_alignment_accepted(device):
    setup = make_setup(device, round_desc(alignment=64))
    setup.table.bind_inputs([binding(setup.source, 64)])
    setup.table.bind_outputs([binding(setup.target, 128)])
    setup.dispatch().wait()
    assert not np.array_equal(setup.target.read(np.uint8, 128 + TOTAL)[128:], sentinel_bytes(BUFFER_SIZE)[128:608])


@pytest.mark.parametrize("slot", ["input", "output"])
def test_size_smaller_than_total_tensor_size(setup, slot):
    def act():
        setup.table.bind_inputs([binding(setup.source, size=TOTAL - 4 if slot == "input" else TOTAL)])
        setup.table.bind_outputs([binding(setup.target, size=TOTAL - 4 if slot == "output" else TOTAL)])

    expect_error(setup, act, f"SizeInBytes is {TOTAL - 4}", f"TotalTensorSizeInBytes ({TOTAL})")


@pytest.mark.parametrize(
    ("slot", "offset", "size"),
    [("input", BUFFER_SIZE - 256, TOTAL), ("output", BUFFER_SIZE - 256, TOTAL), ("output", 0, BUFFER_SIZE + 16)],
    ids=["input_tail", "output_tail", "output_too_long"],
)
def test_range_outside_buffer(setup, slot, offset, size):
    def act():
        setup.table.bind_inputs([binding(setup.source, offset, size) if slot == "input" else binding(setup.source)])
        setup.table.bind_outputs([binding(setup.target, offset, size) if slot == "output" else binding(setup.target)])

    expect_error(setup, act, f"[{offset}, {offset + size})", f"holds {BUFFER_SIZE} bytes", "inside the buffer")


def _overlap_setup(device, desc=None) -> Setup:
    setup = make_setup(device, desc)
    setup.source = setup.target  # one buffer for both; the "input" is the sentinel itself
    return setup


@pytest.mark.parametrize("output_offset", [16, 464, 0], ids=["shifted16", "last_bytes", "same_offset_shorter"])
def test_partial_overlap_refused(device, output_offset):
    setup = make_setup(device)
    buffer = setup.target

    def act():
        setup.table.bind_inputs([binding(buffer, 0, TOTAL)])
        # same_offset_shorter: same start, different binding size; everything else partially overlaps.
        setup.table.bind_outputs([binding(buffer, output_offset, TOTAL + 16 if output_offset == 0 else TOTAL)])

    with pytest.raises(dml.InvalidArgumentError) as error:
        act()
        setup.dispatch().wait()
    message = str(error.value)
    assert "share memory" in message and "identical" in message and "InputTensor" in message
    setup.device.queue.finish()
    assert np.array_equal(buffer.read(np.uint8, BUFFER_SIZE), sentinel_bytes(BUFFER_SIZE))


def test_partial_overlap_refused_when_outputs_bound_first(device):
    # bind_outputs then bind_inputs: the pair is checked again when the dispatch is recorded.
    setup = make_setup(device)
    buffer = setup.target
    with pytest.raises(dml.InvalidArgumentError, match="share memory"):
        setup.table.bind_outputs([binding(buffer, 32)])
        setup.table.bind_inputs([binding(buffer, 0)])
        setup.dispatch().wait()
    setup.device.queue.finish()
    assert np.array_equal(buffer.read(np.uint8, BUFFER_SIZE), sentinel_bytes(BUFFER_SIZE))


def test_overlap_with_different_strides_at_same_offset_refused(device):
    transposed = (1, 2, 6, 24)  # same Sizes, same span, other element order
    setup = make_setup(device, round_desc(input_strides=None, output_strides=transposed))
    buffer = setup.target
    with pytest.raises(dml.InvalidArgumentError) as error:
        setup.table.bind_inputs([binding(buffer, 0)])
        setup.table.bind_outputs([binding(buffer, 0)])
        setup.dispatch().wait()
    assert "share memory" in str(error.value) and "Strides" in str(error.value)
    setup.device.queue.finish()
    assert np.array_equal(buffer.read(np.uint8, BUFFER_SIZE), sentinel_bytes(BUFFER_SIZE))


def test_disjoint_ranges_of_one_buffer_accepted(device):
    setup = make_setup(device)
    buffer = setup.target
    setup.table.bind_inputs([binding(buffer, 0)])
    setup.table.bind_outputs([binding(buffer, TOTAL)])  # 480 is a multiple of 16
    setup.dispatch().wait()
    got = buffer.read(np.uint8, BUFFER_SIZE)
    sentinel = sentinel_bytes(BUFFER_SIZE)
    np.testing.assert_array_equal(got[:TOTAL], sentinel[:TOTAL])
    np.testing.assert_array_equal(got[2 * TOTAL :], sentinel[2 * TOTAL :])
    assert_rounds_like_reference(got[TOTAL : 2 * TOTAL].view(np.float32), sentinel[:TOTAL].view(np.float32), 0)


def test_binding_size_none_means_to_the_end_of_the_buffer(setup):
    setup.table.bind_inputs([dml.BufferBinding(setup.source, BUFFER_SIZE - TOTAL - 32)])
    setup.table.bind_outputs([dml.BufferBinding(setup.target, 64)])
    setup.dispatch().wait()
    got = setup.target.read(np.uint8, BUFFER_SIZE)
    x = source_image()[BUFFER_SIZE - TOTAL - 32 : BUFFER_SIZE - 32].view(np.float32)
    assert_rounds_like_reference(got[64 : 64 + TOTAL].view(np.float32), x, 0)
    untouched = np.r_[0:64, 64 + TOTAL : BUFFER_SIZE]
    np.testing.assert_array_equal(got[untouched], sentinel_bytes(BUFFER_SIZE)[untouched])


def test_dispatch_before_initialization(device):
    setup = make_setup(device, initialized=False)
    setup.table.bind_inputs([binding(setup.source)])
    setup.table.bind_outputs([binding(setup.target)])
    expect_error(setup, lambda: None, "has not been initialized", "create_operator_initializer")


@pytest.mark.parametrize("bound", ["nothing", "inputs_only", "outputs_only"])
def test_dispatch_with_unbound_tensors(setup, bound):
    def act():
        if bound == "inputs_only":
            setup.table.bind_inputs([binding(setup.source)])
        if bound == "outputs_only":
            setup.table.bind_outputs([binding(setup.target)])

    expect_error(setup, act, "before all its tensors are bound", "bind_inputs", "bind_outputs")


def test_initializing_twice(device):
    setup = make_setup(device)  # already initialized once
    initializer = device.create_operator_initializer([setup.compiled])
    table = device.create_binding_table(initializer)
    with pytest.raises(dml.InvalidArgumentError, match="already initialized"):
        setup.recorder.record_dispatch(device.queue, initializer, table)
    setup.assert_untouched()


def test_initializer_with_two_operators_refuses_all_when_one_is_initialized(device):
    fresh = device.compile_operator(device.create_operator(round_desc()))
    done = device.compile_operator(device.create_operator(round_desc()))
    initialize(device, done)
    initializer = device.create_operator_initializer([fresh, done])
    with pytest.raises(dml.InvalidArgumentError, match="already initialized"):
        device.create_command_recorder().record_dispatch(
            device.queue, initializer, device.create_binding_table(initializer)
        )
    assert not fresh.initialized


def test_binding_table_of_another_dispatchable(device):
    setup = make_setup(device)
    other = device.compile_operator(device.create_operator(round_desc()))
    initialize(device, other)
    setup.table.bind_inputs([binding(setup.source)])
    setup.table.bind_outputs([binding(setup.target)])
    with pytest.raises(dml.InvalidArgumentError) as error:
        setup.recorder.record_dispatch(device.queue, other, setup.table)
    assert "binding table was made for" in str(error.value)
    setup.assert_untouched()


def test_buffer_of_another_device(device):
    other_device = dml.create_device()
    setup = make_setup(device)
    foreign = other_device.create_buffer(BUFFER_SIZE)
    expect_error(setup, lambda: setup.table.bind_inputs([binding(foreign)]), "not a buffer of this device")


# Device creation, feature queries, compiled operator introspection.


@pytest.fixture(scope="module")
def capped_devices():
    return {
        level: dml.create_device(max_feature_level=level)
        for level in (dml.FeatureLevel.FL_2_1, dml.FeatureLevel.FL_3_0, dml.FeatureLevel.FL_5_0)
    }


@pytest.mark.parametrize(
    ("cap", "asked", "answer"),
    [
        ("FL_3_0", ["FL_1_0", "FL_2_1", "FL_3_0", "FL_4_0", "FL_6_4"], "FL_3_0"),
        ("FL_3_0", ["FL_1_0", "FL_2_0"], "FL_2_0"),
        ("FL_5_0", ["FL_2_1", "FL_6_4", "FL_4_1", "FL_3_0"], "FL_4_1"),
        ("FL_2_1", ["FL_2_1"], "FL_2_1"),
        ("FL_2_1", ["DML_FEATURE_LEVEL_1_0", 0x2000, "FL_3_0"], "FL_2_0"),
    ],
    ids=["cap_in_list", "below_cap", "unordered_list", "exact", "c_names_and_numbers"],
)
def test_feature_levels_query_returns_highest_of_callers_list(capped_devices, cap, asked, answer):
    device = capped_devices[dml.FeatureLevel.parse(cap)]
    got = device.check_feature_support(dml.Feature.FEATURE_LEVELS, asked)
    assert got == dml.FeatureLevel.parse(answer)


def test_feature_levels_query_with_empty_list(device):
    with pytest.raises(dml.InvalidArgumentError, match="non-empty"):
        device.check_feature_support(dml.Feature.FEATURE_LEVELS, [])


def test_feature_levels_query_with_nothing_supported(capped_devices):
    with pytest.raises(dml.DmlError):
        capped_devices[dml.FeatureLevel.FL_2_1].check_feature_support(
            dml.Feature.FEATURE_LEVELS, [dml.FeatureLevel.FL_3_0, dml.FeatureLevel.FL_6_4]
        )


@pytest.mark.parametrize(
    ("data_type", "supported"),
    [
        (dml.TensorDataType.FLOAT32, True),
        (dml.TensorDataType.FLOAT16, True),
        (dml.TensorDataType.UNKNOWN, False),
        ("DML_TENSOR_DATA_TYPE_FLOAT16", True),
        ("UNKNOWN", False),
    ],
    ids=["FLOAT32", "FLOAT16", "UNKNOWN", "c_name_FLOAT16", "short_UNKNOWN"],
)
def test_tensor_data_type_support(device, data_type, supported):
    assert device.check_feature_support(dml.Feature.TENSOR_DATA_TYPE_SUPPORT, data_type) is supported


def test_create_device_minimum_above_cap():
    with pytest.raises(dml.UnsupportedError) as error:
        dml.create_device(minimum_feature_level=dml.FeatureLevel.FL_5_0, max_feature_level=dml.FeatureLevel.FL_3_0)
    assert "DML_FEATURE_LEVEL_5_0" in str(error.value) and "DML_FEATURE_LEVEL_3_0" in str(error.value)
    assert error.value.hresult == 0x887A0004


def test_create_device_levels():
    assert dml.create_device(minimum_feature_level="FL_2_1").feature_level >= dml.FeatureLevel.FL_2_1
    capped = dml.create_device(minimum_feature_level=0x2100, max_feature_level="DML_FEATURE_LEVEL_3_0")
    assert capped.feature_level == dml.FeatureLevel.FL_3_0


@pytest.mark.parametrize(
    ("data_type", "mode", "function"),
    [
        (dml.TensorDataType.FLOAT32, dml.RoundingMode.HALVES_TO_NEAREST_EVEN, "rint"),
        (dml.TensorDataType.FLOAT16, dml.RoundingMode.HALVES_TO_NEAREST_EVEN, "rint"),
        (dml.TensorDataType.FLOAT32, dml.RoundingMode.TOWARD_ZERO, "trunc"),
        (dml.TensorDataType.FLOAT32, dml.RoundingMode.TOWARD_INFINITY, "round"),
    ],
    # Packed FLOAT16 TOWARD_ZERO runs the element-wise template under the "cpu" profile (test_lowering.py).
    ids=["float32_even", "float16_even", "float32_zero", "float32_away"],
)
def test_compiled_source_and_defines(device, data_type, mode, function):
    td = dml.BufferTensorDesc(data_type=data_type, sizes=SIZES)
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td, rounding_mode=mode)
    compiled = device.compile_operator(device.create_operator(desc))
    source = compiled.source
    # The kernel file with its local headers inlined, then the -D options written out as #define lines.
    assert kernel_source("element_wise_round.cl") in source
    assert "#include" not in source
    assert "__kernel" in source
    defines = [option[2:].split("=", 1) for option in compiled.build_options if option.startswith("-D")]
    assert defines, compiled.build_options
    for name, value in defines:
        assert f"#define {name} {value}" in source
    assert dict(defines)["ROUNDING_MODE"] == str(int(mode))
    assert f"OpenCL built-in {function}()" in desc.explain_lines()[0]
    assert dict(defines)["DML_FLOAT16"] == ("1" if data_type == dml.TensorDataType.FLOAT16 else "0")
    for banned in ("-cl-fast-relaxed-math", "-cl-finite-math-only", "-cl-denorms-are-zero", "-cl-unsafe-math"):
        assert not any(option.startswith(banned) for option in compiled.build_options)


def test_binding_properties(device):
    compiled = device.compile_operator(device.create_operator(round_desc()))
    properties = compiled.get_binding_properties()
    assert properties.required_descriptor_count == 2
    assert properties.temporary_resource_size == 0
    assert properties.persistent_resource_size == 0
    initializer = device.create_operator_initializer([compiled])
    assert initializer.get_binding_properties().persistent_resource_size == 0
    assert initializer.get_binding_properties().temporary_resource_size == 0


def test_temporary_and_persistent_resources_take_none(setup):
    setup.table.bind_temporary_resource(None)
    setup.table.bind_persistent_resource(None)
    with pytest.raises(dml.InvalidArgumentError, match="bind None"):
        setup.table.bind_temporary_resource(binding(setup.target, 0, 256))
    setup.assert_untouched()
