"""Compiled graphs on a device: fused kernels bit-identical to the nodes one by one (``fuse=False``, each node
its own kernel, the values between them in the temporary resource) and to an independent NumPy reference, for
every rounding mode and data type, per-tensor and per-axis, on random and edge values, under both launch
profiles; the temporary resource's binding rules; how many kernels run and what the source shows."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from tests.helpers.object_model import initialize
from tests.helpers.object_model import run_graph as run
from tests.helpers.pairwise import pairwise_params
from tests.helpers.references import round_reference

T = dml.TensorDataType
MODES = list(dml.RoundingMode)
SHAPE = (2, 3, 16, 40)  # 3840 elements; axis 1 has 3 channels


def upload(device: Any, array: npt.NDArray[Any]) -> Any:
    return device.upload(np.ascontiguousarray(array))


def parameter_desc(data_type: T, per_axis: bool) -> dml.BufferTensorDesc:
    """A scale or zero point with the input's Sizes: one value, or one per index of axis 1."""
    strides = (0, 1, 0, 0) if per_axis else (0, 0, 0, 0)
    return dml.BufferTensorDesc(data_type=data_type, sizes=SHAPE, strides=strides)


def expand(values: npt.NDArray[Any], per_axis: bool) -> npt.NDArray[Any]:
    return values.reshape(1, -1, 1, 1) if per_axis else values.reshape(())


def edge_int8(rng: np.random.Generator, dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max + 1, size=SHAPE, dtype=dtype)
    x.flat[: info.max - info.min + 1] = np.arange(info.min, info.max + 1)  # every value once
    return x


# ------------------------------------------------------------------------------------ the independent reference
def dequantize_reference(x: Any, scale: Any, zero: Any, out: np.dtype[Any]) -> npt.NDArray[Any]:
    real = x.astype(np.float32) - np.float32(0) if zero is None else x.astype(np.float32) - zero.astype(np.float32)
    return (real * scale.astype(np.float32)).astype(out)


def quantize_reference(x: Any, scale: Any, zero: Any, out: np.dtype[Any]) -> npt.NDArray[Any]:
    with np.errstate(all="ignore"):
        quotient = x.astype(np.float32) / scale.astype(np.float32)
        if x.dtype == np.float16:
            quotient = quotient.astype(np.float16).astype(np.float32)  # the half quotient, correctly rounded
        value = np.rint(quotient) + (0 if zero is None else zero.astype(np.float32))
        info = np.iinfo(out)
        value = np.where(np.isnan(value), 0, np.clip(value, info.min, info.max))
    return value.astype(out)


def qdq_graph(
    level: Any, *, data: T, real: T, mode: dml.RoundingMode, per_axis: bool, zero_point: bool
) -> tuple[dml.Graph, Any]:
    """data -> DequantizeLinear (to ``real``) -> Round(mode) -> QuantizeLinear -> data."""
    g = dml.Graph(level)
    x = g.input(dml.BufferTensorDesc(data_type=data, sizes=SHAPE))
    s = g.input(parameter_desc(real, per_axis))
    z = g.input(parameter_desc(data, per_axis)) if zero_point else None
    y = dml.graph.quantize_linear(dml.graph.round(dml.graph.dequantize_linear(x, s, z), mode), s, z, dtype=data)
    return g, y


@pytest.mark.parametrize(
    ("zero_point", "per_axis", "data", "real", "mode"),
    pairwise_params(
        ([True, False], ["zero-point", "no-zero-point"]),
        ([False, True], ["per-tensor", "per-axis"]),
        ([T.INT8, T.UINT8], ["int8", "uint8"]),
        ([T.FLOAT32, T.FLOAT16], ["float32", "float16"]),
        (MODES, [m.name for m in MODES]),
    ),
)
def test_dequantize_round_quantize_fused_equals_one_by_one_and_numpy(
    device: Any, mode: dml.RoundingMode, real: T, data: T, per_axis: bool, zero_point: bool
) -> None:
    """By default the combinations of mode, real type, data type, per-axis and zero point in which every pair of
    two choices' values occurs (tests/helpers/pairwise.py: 8 of 48), under both launch profiles; the other 40
    with --run-slow."""
    rng = np.random.default_rng(int(mode) * 7 + (real == T.FLOAT16) * 3 + per_axis)
    data_type = np.dtype(np.int8 if data == T.INT8 else np.uint8)
    real_type = np.dtype(np.float32 if real == T.FLOAT32 else np.float16)
    x = edge_int8(rng, data_type)
    scale = np.array([0.37, 2.5, 1e-3][: 3 if per_axis else 1], real_type)
    zero = np.array([3, -7, 0][: 3 if per_axis else 1] if data == T.INT8 else [3, 250, 0][: 3 if per_axis else 1])
    zero = zero.astype(data_type)
    g, y = qdq_graph(device, data=data, real=real, mode=mode, per_axis=per_axis, zero_point=zero_point)
    inputs = [x, scale] + ([zero] if zero_point else [])
    (fused,), compiled = run(device, g.desc_for([y]), inputs)
    (separate,), one_by_one = run(device, g.desc_for([y]), inputs, fuse=False)
    assert compiled.kernel_count == 1 and one_by_one.kernel_count == 3
    assert fused.tobytes() == separate.tobytes()

    s, z = expand(scale, per_axis), (expand(zero, per_axis) if zero_point else None)
    real_values = dequantize_reference(x, s, z, real_type)
    rounded = round_reference(real_values, mode)
    expected = quantize_reference(rounded, s, z, data_type)
    assert fused.tobytes() == expected.tobytes()


def float_edges(dtype: np.dtype[Any], rng: np.random.Generator) -> npt.NDArray[Any]:
    """Every float16 pattern (NaN payloads, subnormals, infinities), or float32 edges and random values."""
    if dtype == np.float16:
        every = np.arange(65536, dtype=np.uint16).view(np.float16)
        return np.resize(every, int(np.prod(SHAPE))).reshape(SHAPE)
    bits = rng.integers(0, 2**32, size=SHAPE, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    edges = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 8388607.5], np.float32)
    x.flat[: edges.size] = edges
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
@pytest.mark.parametrize("out", [T.UINT8, T.INT8], ids=["uint8", "int8"])
def test_fake_quantization_fused_equals_one_by_one_and_numpy(device: Any, dtype: type, out: T) -> None:
    """QuantizeLinear -> DequantizeLinear ("fake quant"), every float16 pattern or float32 edges."""
    real = T.FLOAT32 if dtype == np.float32 else T.FLOAT16
    out_type = np.dtype(np.uint8 if out == T.UINT8 else np.int8)
    x = float_edges(np.dtype(dtype), np.random.default_rng(5))
    g = dml.Graph(device)
    xi = g.input(dml.BufferTensorDesc(data_type=real, sizes=SHAPE))
    s = g.input(parameter_desc(real, True))
    z = g.input(parameter_desc(out, True))
    y = dml.graph.dequantize_linear(dml.graph.quantize_linear(xi, s, z), s, z)
    scale = np.array([0.0625, 3.0, 7e-3], dtype)
    zero = np.array([0, 100, 7] if out == T.UINT8 else [0, -100, 7], out_type)
    (fused,), compiled = run(device, g.desc_for([y]), [x, scale, zero])
    (separate,), _ = run(device, g.desc_for([y]), [x, scale, zero], fuse=False)
    assert compiled.kernel_count == 1
    assert fused.tobytes() == separate.tobytes()
    s_, z_ = expand(scale, True), expand(zero, True)
    expected = dequantize_reference(quantize_reference(x, s_, z_, out_type), s_, z_, np.dtype(dtype))
    assert fused.tobytes() == expected.tobytes()


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
def test_a_tree_with_two_outputs_fuses_and_keeps_nan_bits(device: Any, mode: dml.RoundingMode, dtype: type) -> None:
    """x -> Round -> out0, and Round -> Identity(x * 0.5 + 0.25) -> Round -> out1: one kernel, two stores, the
    first Round's value used in registers and stored; NaN payloads as the kernels one by one keep them."""
    real = T.FLOAT32 if dtype == np.float32 else T.FLOAT16
    x = float_edges(np.dtype(dtype), np.random.default_rng(11))
    g = dml.Graph(device)
    xi = g.input(dml.BufferTensorDesc(data_type=real, sizes=SHAPE))
    first = dml.graph.round(xi, mode)
    second = dml.graph.round(dml.graph.identity(first, (0.5, 0.25)), mode)
    (got_first, got_second), compiled = run(device, g.desc_for([first, second]), [x])
    (one, two), _ = run(device, g.desc_for([first, second]), [x], fuse=False)
    assert compiled.kernel_count == 1
    assert got_first.tobytes() == one.tobytes() and got_second.tobytes() == two.tobytes()
    finite = np.isfinite(x)
    expected_first = round_reference(x, mode)
    assert np.array_equal(got_first[finite].view(np.uint8), expected_first[finite].view(np.uint8))
    with np.errstate(all="ignore"):
        scaled = (expected_first.astype(np.float32) * np.float32(0.5) + np.float32(0.25)).astype(dtype)
    expected_second = round_reference(scaled, mode)
    keep = np.isfinite(scaled)
    assert np.array_equal(got_second[keep].view(np.uint8), expected_second[keep].view(np.uint8))
    assert np.isnan(got_second[np.isnan(scaled)]).all()


def scale_bias_integer_reference(x: npt.NDArray[Any], scale: float, bias: float) -> npt.NDArray[Any]:
    """Identity's rule for integers: float32 product, then sum, NaN to 0, toward zero, the type's range."""
    info = np.iinfo(x.dtype)
    with np.errstate(all="ignore"):
        y = x.astype(np.float32) * np.float32(scale) + np.float32(bias)
        y = np.clip(np.trunc(np.where(np.isnan(y), np.float32(0), y)), info.min, info.max)
    return y.astype(x.dtype)


@pytest.mark.parametrize(("first", "second"), [((0.0, np.nan), (1.0, 3.0)), ((np.inf, 0.0), (-0.5, np.nan))])
def test_integer_scale_bias_fused_sends_nan_to_zero(
    device: Any, first: tuple[float, float], second: tuple[float, float]
) -> None:
    """int8 -> Identity -> Identity, one kernel: a NaN from ScaleBias stores 0 and infinity saturates, as the
    kernels one by one and the reference give (a NaN given to PoCL 3.0's convert_char_sat_rtz gave the minimum)."""
    x = np.resize(np.arange(-128, 128, dtype=np.int8), SHAPE)
    g = dml.Graph(device)
    y = dml.graph.identity(
        dml.graph.identity(g.input(dml.BufferTensorDesc(data_type=T.INT8, sizes=SHAPE)), first), second
    )
    (fused,), compiled = run(device, g.desc_for([y]), [x])
    (separate,), _ = run(device, g.desc_for([y]), [x], fuse=False)
    assert compiled.kernel_count == 1
    expected = scale_bias_integer_reference(scale_bias_integer_reference(x, *first), *second)
    assert fused.tobytes() == expected.tobytes() and separate.tobytes() == expected.tobytes()


def test_a_node_that_does_not_fuse_runs_alone_with_the_temporary_resource(device: Any) -> None:
    """A float16 copy does not fuse (a float register would quieten a signalling NaN the copy moves bit for
    bit): DequantizeLinear | Identity | Round, three kernels, the dequantized values in temporary memory. (The copy
    is a graph output too: read by Round alone, it would cost no kernel at all, dmlpy/graph/views.py.)"""
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type=T.UINT8, sizes=SHAPE))
    s = g.input(parameter_desc(T.FLOAT16, False))
    copy = dml.graph.identity(dml.graph.dequantize_linear(x, s))
    y = dml.graph.round(copy, "toward_zero")
    values = np.arange(int(np.prod(SHAPE)), dtype=np.int64).reshape(SHAPE).astype(np.uint8)
    (copied, got), compiled = run(device, g.desc_for([copy, y]), [values, np.array([1.7], np.float16)])
    assert compiled.kernel_count == 3
    assert compiled.get_binding_properties().temporary_resource_size >= values.size * 2
    dequantized = (values.astype(np.float32) * np.float32(np.float16(1.7))).astype(np.float16)
    assert copied.tobytes() == dequantized.tobytes()
    assert got.tobytes() == np.trunc(dequantized).tobytes()


def test_more_tensors_than_one_kernel_binds_split_into_kernels(device: Any) -> None:
    """Five Dequantize -> Round chains whose results meet in nothing: each group stays within 8 tensors."""
    g = dml.Graph(device)
    inputs, outputs, arrays = [], [], []
    rng = np.random.default_rng(3)
    for k in range(5):
        x = g.input(dml.BufferTensorDesc(data_type=T.INT8, sizes=SHAPE))
        s = g.input(parameter_desc(T.FLOAT32, False))
        inputs += [x, s]
        outputs.append(dml.graph.round(dml.graph.dequantize_linear(x, s)))
        arrays += [rng.integers(-128, 128, SHAPE, dtype=np.int8), np.array([0.3 + k], np.float32)]
    got, compiled = run(device, g.desc_for(outputs), arrays)
    assert 1 < compiled.kernel_count < 10
    for k, result in enumerate(got):
        expected = np.rint(arrays[2 * k].astype(np.float32) * arrays[2 * k + 1][0])
        assert result.tobytes() == expected.tobytes()


def test_a_padded_input_and_output_run_fused(device: Any) -> None:
    """Strided tensors (rows padded) take the fused kernel's row loop or walk; elements land where the
    descriptors say."""
    padded = dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(1, 1, 7, 5), strides=(0, 0, 8, 1))
    packed = dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(1, 1, 7, 5))
    r1 = dml.ElementWiseRoundOperatorDesc(input_tensor=padded, output_tensor=packed)
    r2 = dml.ElementWiseIdentityOperatorDesc(
        input_tensor=packed, output_tensor=padded, scale_bias=dml.ScaleBias(scale=2.0, bias=0.5)
    )
    desc = dml.GraphDesc(
        nodes=[dml.OperatorGraphNodeDesc(operator=r1), dml.OperatorGraphNodeDesc(operator=r2)],
        input_edges=[dml.InputGraphEdgeDesc(graph_input_index=0, to_node_index=0, to_node_input_index=0)],
        intermediate_edges=[
            dml.IntermediateGraphEdgeDesc(
                from_node_index=0, from_node_output_index=0, to_node_index=1, to_node_input_index=0
            )
        ],
        output_edges=[dml.OutputGraphEdgeDesc(from_node_index=1, from_node_output_index=0, graph_output_index=0)],
    )
    memory = np.linspace(-9.5, 9.5, 56, dtype=np.float32)
    compiled = device.compile_graph(desc)
    initialize(device, compiled)
    assert compiled.kernel_count == 1
    out = device.create_buffer(56 * 4)
    out.write(np.full(56, 77.0, np.float32))
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(upload(device, memory))])
    table.bind_outputs([dml.BufferBinding(out)])
    device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()
    got = out.read(np.float32, 56).reshape(7, 8)
    logical = memory.reshape(7, 8)[:, :5]
    assert got[:, :5].tobytes() == (np.rint(logical) * np.float32(2) + np.float32(0.5)).tobytes()
    assert (got[:, 5:] == 77.0).all(), "the padding between rows is never written"


def test_constant_nodes_give_what_inputs_give(device: Any) -> None:
    x = np.random.default_rng(1).integers(-128, 128, SHAPE, dtype=np.int8)
    g = dml.Graph(device)
    xi = g.input(dml.BufferTensorDesc(data_type=T.INT8, sizes=SHAPE))
    with_constants = dml.graph.quantize_linear(
        dml.graph.round(dml.graph.dequantize_linear(xi, 0.25, 3)), 0.25, 3, dtype="INT8"
    )
    (got,), compiled = run(device, g.desc_for([with_constants]), [x])
    assert compiled.kernel_count == 1
    assert sum(isinstance(n.desc, dml.ConstantDataGraphNodeDesc) for n in g.desc_for([with_constants]).nodes) == 4
    h, y = qdq_graph(
        device,
        data=T.INT8,
        real=T.FLOAT32,
        mode=dml.RoundingMode.HALVES_TO_NEAREST_EVEN,
        per_axis=False,
        zero_point=True,
    )
    (expected,), _ = run(device, h.desc_for([y]), [x, np.array([0.25], np.float32), np.array([3], np.int8)])
    assert got.tobytes() == expected.tobytes()


# ------------------------------------------------------------------------------------------ binding and sources
@pytest.fixture
def unfused(device: Any) -> tuple[Any, Any]:
    g, y = qdq_graph(
        device, data=T.INT8, real=T.FLOAT32, mode=dml.RoundingMode.TOWARD_ZERO, per_axis=False, zero_point=True
    )
    compiled = device.compile_graph(g.desc_for([y]), fuse=False)
    initialize(device, compiled)
    table = device.create_binding_table(compiled)
    table.bind_inputs(
        [
            dml.BufferBinding(device.create_buffer(int(np.prod(SHAPE)))),
            dml.BufferBinding(upload(device, np.array([0.5], np.float32))),
            dml.BufferBinding(upload(device, np.array([0], np.int8))),
        ]
    )
    table.bind_outputs([dml.BufferBinding(device.create_buffer(int(np.prod(SHAPE))))])
    return compiled, table


def test_the_temporary_resource_is_required_and_checked(device: Any, unfused: tuple[Any, Any]) -> None:
    compiled, table = unfused
    size = compiled.get_binding_properties().temporary_resource_size
    assert size >= 2 * 4 * int(np.prod(SHAPE))  # two float32 intermediates
    recorder = device.create_command_recorder()
    with pytest.raises(dml.InvalidArgumentError, match="no temporary resource is bound"):
        recorder.record_dispatch(device.queue, compiled, table)
    small = device.create_buffer(size - 4)
    with pytest.raises(
        dml.InvalidArgumentError, match=rf"SizeInBytes is {size - 4}; .* TemporaryResourceSize of {size}"
    ):
        table.bind_temporary_resource(dml.BufferBinding(small))
    big = device.create_buffer(size + 512)
    with pytest.raises(
        dml.InvalidArgumentError, match=r"Offset is 16; .* multiple of 256 \(DML_TEMPORARY_BUFFER_ALIGNMENT\)"
    ):
        table.bind_temporary_resource(dml.BufferBinding(big, 16, size))
    shared = device.create_buffer(size + 4096)
    table.bind_outputs([dml.BufferBinding(shared, 0, int(np.prod(SHAPE)))])
    with pytest.raises(dml.InvalidArgumentError, match="overlaps graph output 0"):
        table.bind_temporary_resource(dml.BufferBinding(shared, 0, size))
    table.bind_temporary_resource(dml.BufferBinding(big, 256, size))
    recorder.record_dispatch(device.queue, compiled, table).wait()


def test_a_fused_graph_needs_no_temporary_resource(device: Any) -> None:
    g, y = qdq_graph(
        device, data=T.INT8, real=T.FLOAT32, mode=dml.RoundingMode.TOWARD_ZERO, per_axis=True, zero_point=False
    )
    compiled = device.compile_graph(g.desc_for([y]))
    assert compiled.get_binding_properties() == dml.BindingProperties(
        required_descriptor_count=3, temporary_resource_size=0, persistent_resource_size=0
    )
    table = device.create_binding_table(compiled)
    with pytest.raises(dml.InvalidArgumentError, match="reports a temporary resource size of 0"):
        table.bind_temporary_resource(dml.BufferBinding(device.create_buffer(256)))
    table.bind_temporary_resource(None)


def test_a_graph_never_runs_in_place(device: Any) -> None:
    g = dml.Graph(device)
    y = dml.graph.round(g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=SHAPE)))
    compiled = device.compile_graph(g.desc_for([y]))
    initialize(device, compiled)
    buffer = device.create_buffer(4 * int(np.prod(SHAPE)))
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(buffer)])
    with pytest.raises(dml.InvalidArgumentError, match="this operator does not run in place"):
        table.bind_outputs([dml.BufferBinding(buffer)])


def test_the_source_shows_the_fused_kernel(device: Any) -> None:
    g, y = qdq_graph(
        device, data=T.UINT8, real=T.FLOAT16, mode=dml.RoundingMode.TOWARD_INFINITY, per_axis=True, zero_point=True
    )
    compiled = device.compile_graph(g.desc_for([y]))
    source = compiled.source
    assert "fused kernel 1 of 1" in source
    assert "// Fused: ELEMENT_WISE_DEQUANTIZE_LINEAR -> ELEMENT_WISE_ROUND -> ELEMENT_WISE_QUANTIZE_LINEAR" in source
    for step in ("dequantize(", "TO_HALF(", "ROUND_TOWARD_INFINITY(", "saturate_uchar(quantize("):
        assert step in source
    specialisation = source.split("// A graph's element-wise nodes in one kernel")[0]
    assert specialisation.count("LOAD(0)") == 1 and "STORE(3, v2)" in specialisation  # one read, one write
    assert repr(compiled).endswith("in 1 kernels, not initialized>")


def test_compile_graph_refuses_what_is_not_a_graph(device: Any) -> None:
    with pytest.raises(dml.InvalidArgumentError, match=r"a dml\.GraphDesc"):
        device.compile_graph(
            dml.ElementWiseRoundOperatorDesc(
                input_tensor=dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=SHAPE),
                output_tensor=dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=SHAPE),
            )
        )
    old = dml.create_device(max_feature_level=dml.FeatureLevel.FL_2_0, cl_device=device.cl_device)
    g = dml.Graph(dml.FeatureLevel.FL_2_1)
    y = dml.graph.round(g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=SHAPE)))
    with pytest.raises(dml.UnsupportedError, match="IDMLDevice1::CompileGraph, which arrived at DML_FEATURE_LEVEL_2_1"):
        old.compile_graph(g.desc_for([y]))


def test_float16_fusion_keeps_nan_payloads_without_half_bits() -> None:
    """Devices other than PoCL run the operators' own kernels with vload_half and store_half (no DML_HALF_BITS),
    the fused kernel through half bits everywhere: a value rounded to half must keep its NaN payload both ways."""
    device = dml.create_device()
    device.programs.device_options = tuple(o for o in device.programs.device_options if "HALF_BITS" not in o)
    x = float_edges(np.dtype(np.float16), np.random.default_rng(2))
    g = dml.Graph(device)
    y = dml.graph.round(dml.graph.identity(g.input(dml.BufferTensorDesc(data_type=T.FLOAT16, sizes=SHAPE)), (1.0, 0.0)))
    (fused,), compiled = run(device, g.desc_for([y]), [x])
    (separate,), _ = run(device, g.desc_for([y]), [x], fuse=False)
    assert compiled.kernel_count == 1 and "DML_HALF_BITS 1" not in compiled.source
    assert fused.tobytes() == separate.tobytes()


@pytest.mark.parametrize("outputs", [2, 5])
def test_float16_nan_stored_to_several_outputs_keeps_its_payload(device: Any, outputs: int) -> None:
    """A fused kernel storing one value to several half tensors (found by the graph fuzz on an NVIDIA H100, where
    store_half wrote such a NaN as 0x7fff and the nodes one by one kept 0x7fbf); every quiet and signalling NaN
    payload is compared with the nodes one by one and with NumPy."""
    nans = np.array([0x7FBF, 0xFFBF, 0x7C01, 0xFC01, 0x7E00, 0x7DFF, 0x7FFF, 0xFE01], np.uint16)
    x = np.resize(nans, SHAPE).view(np.float16)
    g = dml.Graph(device)
    value = g.input(dml.BufferTensorDesc(data_type=T.FLOAT16, sizes=SHAPE))
    desc = g.desc_for([dml.graph.round(value, "TOWARD_ZERO") for _ in range(outputs)])
    fused, compiled = run(device, desc, [x])
    separate, _ = run(device, desc, [x], fuse=False)
    assert compiled.kernel_count == 1
    quieted = (x.view(np.uint16) | 0x0200).view(np.float16)  # Round passes NaN through quieted, payload kept
    for got, want in zip(fused, separate, strict=True):
        assert got.tobytes() == want.tobytes() == quieted.tobytes()
