"""ELEMENT_WISE_CEIL and ELEMENT_WISE_FLOOR (DirectML's other two rounding operators), run through the
element-wise template: bit-exact against np.ceil / np.floor on every float16 pattern and a float32 sweep,
packed, strided and in place; NaN payloads kept (quieted) and signed zeros, as Round keeps them; the optional
ScaleBias applied to the input first, in float32 step by step; the support tables of Microsoft's pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.object_model import initialize, run_unary

T = dml.TensorDataType
OPERATORS: dict[str, tuple[Any, Callable[[Any], Any]]] = {
    "ceil": (dml.ElementWiseCeilOperatorDesc, np.ceil),
    "floor": (dml.ElementWiseFloorOperatorDesc, np.floor),
}
QUIET = {np.dtype(np.float16): 0x0200, np.dtype(np.float32): 0x00400000}
"""The quiet bit of each type: a NaN comes back with it set, sign and payload kept."""
UNSIGNED = {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32}


def expected_bits(x: np.ndarray, function: Callable[[Any], Any]) -> np.ndarray:
    """NumPy's result's bits, except that a NaN is the input NaN quieted (NumPy's may lose the payload)."""
    unsigned = UNSIGNED[x.dtype]
    with np.errstate(invalid="ignore"):
        want = function(x).view(unsigned).copy()
    nan = np.isnan(x)
    want[nan] = x.view(unsigned)[nan] | unsigned(QUIET[x.dtype])
    return want


def desc_for(
    name: str, data_type: T, sizes: tuple[int, ...], strides: tuple[int, ...] | None = None, **extra: Any
) -> Any:
    desc_class, _ = OPERATORS[name]
    return desc_class(
        input_tensor=dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides),
        output_tensor=dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides),
        **extra,
    )


ALL_FLOAT16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)


def float32_sweep() -> np.ndarray:
    """Every exponent with random mantissas and both signs, the halves and whole numbers around them, the
    boundaries (2^23, 2^24, the largest float), infinities, zeros, subnormals and NaNs with payloads."""
    rng = np.random.default_rng(28)
    random_bits = rng.integers(0, 1 << 32, 1 << 18, dtype=np.uint64).astype(np.uint32)
    near = np.arange(-40, 40, dtype=np.float32) * np.float32(0.25)
    edges = np.array([2.0**23, 2.0**23 + 1, 2.0**24, 2.0**23 - 0.5, 3.4028235e38, 1e-45, 1.1754944e-38], np.float32)
    specials = np.array([0x7F800000, 0xFF800000, 0x80000000, 0x7F800001, 0xFFC0BEEF, 0x7FA00000], np.uint32)
    values = [random_bits.view(np.float32), near, edges, -edges, specials.view(np.float32)]
    return np.concatenate(values)


@pytest.mark.parametrize("name", OPERATORS)
def test_every_float16_pattern_packed(device: Any, name: str) -> None:
    run = run_unary(device, desc_for(name, T.FLOAT16, (1 << 16,)), np.dtype(np.float16), lambda n: ALL_FLOAT16[:n])
    np.testing.assert_array_equal(run.got.view(np.uint16), expected_bits(run.logical_input, OPERATORS[name][1]))
    assert run.changed_outside == []


@pytest.mark.parametrize("name", OPERATORS)
def test_every_float16_pattern_transposed_in_place(device: Any, name: str) -> None:
    # Both tensors read and written through one transposed layout in one buffer: the strided walk, in place.
    desc = desc_for(name, T.FLOAT16, (256, 256), (1, 256))
    run = run_unary(device, desc, np.dtype(np.float16), lambda n: ALL_FLOAT16[:n], in_place=True)
    np.testing.assert_array_equal(run.got.view(np.uint16), expected_bits(run.logical_input, OPERATORS[name][1]))


@pytest.mark.parametrize("name", OPERATORS)
def test_float32_sweep(device: Any, name: str) -> None:
    sweep = float32_sweep()
    run = run_unary(device, desc_for(name, T.FLOAT32, (sweep.size,)), np.dtype(np.float32), lambda n: sweep[:n])
    np.testing.assert_array_equal(run.got.view(np.uint32), expected_bits(run.logical_input, OPERATORS[name][1]))


@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
@pytest.mark.parametrize("name", OPERATORS)
def test_scale_bias_is_applied_first(device: Any, name: str, data_type: T) -> None:
    # g(x) = x * 1.5 - 0.25 in float32 (the product rounded, then the sum), then the function; a FLOAT16
    # result rounded to the nearest half.
    dtype = np.dtype(np.float16 if data_type == T.FLOAT16 else np.float32)
    x = (np.random.default_rng(5).standard_normal(4096) * 20).astype(dtype)
    desc = desc_for(name, data_type, (4096,), scale_bias=dml.ScaleBias(scale=1.5, bias=-0.25))
    run = run_unary(device, desc, dtype, lambda n: x[:n])
    scaled = run.logical_input.astype(np.float32) * np.float32(1.5) + np.float32(-0.25)
    want = OPERATORS[name][1](scaled).astype(dtype)
    np.testing.assert_array_equal(run.got.view(UNSIGNED[dtype]), want.view(UNSIGNED[dtype]))


@pytest.mark.parametrize("name", OPERATORS)
def test_support_tables(name: str) -> None:
    # Microsoft's page: FLOAT32 and FLOAT16, exactly 4 dimensions from DML_FEATURE_LEVEL_1_0, 1 to 8 from 3_0.
    dml.validate(desc_for(name, T.FLOAT16, (1, 2, 3, 4)), "1_0")
    dml.validate(desc_for(name, T.FLOAT32, (5,)), "3_0")
    with pytest.raises(dml.InvalidArgumentError, match="DimensionCount"):
        dml.validate(desc_for(name, T.FLOAT32, (5,)), "2_1")
    with pytest.raises(dml.InvalidArgumentError, match="DataType"):
        dml.validate(desc_for(name, T.INT32, (5,)), "6_4")
    assert dml.OPERATORS[OPERATORS[name][0].OPERATOR_TYPE] is OPERATORS[name][0]
    assert int(OPERATORS[name][0].OPERATOR_TYPE) == {"ceil": 7, "floor": 12}[name]


def run_graph(device: Any, desc: dml.GraphDesc, x: np.ndarray, fuse: bool) -> tuple[np.ndarray, int]:
    """``desc`` (one input, one output of x's type and size) compiled with or without fusion and run once; the
    output's elements and the number of kernels."""
    compiled = device.compile_graph(desc, fuse=fuse)
    initialize(device, compiled)
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(device.upload(x))])
    output = device.create_buffer(x.nbytes)
    table.bind_outputs([dml.BufferBinding(output)])
    size = compiled.get_binding_properties().temporary_resource_size
    if size:
        table.bind_temporary_resource(dml.BufferBinding(device.create_buffer(size)))
    device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()
    return output.read(x.dtype, x.size), compiled.kernel_count


def test_ceil_then_floor_fuse_bit_identical(device: Any) -> None:
    # Input -> CEIL (ScaleBias 0.5, 0.25 first) -> FLOAT16 edge -> FLOOR -> output: fused into one kernel, the
    # same bits as the nodes one by one, and as NumPy step by step (the edge rounded to half).
    tensor = dml.BufferTensorDesc(data_type=T.FLOAT16, sizes=(1 << 16,))
    ceil = dml.ElementWiseCeilOperatorDesc(
        input_tensor=tensor, output_tensor=tensor, scale_bias=dml.ScaleBias(scale=0.5, bias=0.25)
    )
    floor = dml.ElementWiseFloorOperatorDesc(input_tensor=tensor, output_tensor=tensor)
    desc = dml.GraphDesc(
        nodes=[dml.OperatorGraphNodeDesc(operator=ceil), dml.OperatorGraphNodeDesc(operator=floor)],
        input_edges=[dml.InputGraphEdgeDesc(graph_input_index=0, to_node_index=0, to_node_input_index=0)],
        intermediate_edges=[
            dml.IntermediateGraphEdgeDesc(
                from_node_index=0, from_node_output_index=0, to_node_index=1, to_node_input_index=0
            )
        ],
        output_edges=[dml.OutputGraphEdgeDesc(from_node_index=1, from_node_output_index=0, graph_output_index=0)],
    )
    fused, kernels = run_graph(device, desc, ALL_FLOAT16, fuse=True)
    separate, separate_kernels = run_graph(device, desc, ALL_FLOAT16, fuse=False)
    assert (kernels, separate_kernels) == (1, 2)
    np.testing.assert_array_equal(fused.view(np.uint16), separate.view(np.uint16))
    with np.errstate(invalid="ignore", over="ignore"):
        edge = np.ceil(ALL_FLOAT16.astype(np.float32) * np.float32(0.5) + np.float32(0.25)).astype(np.float16)
    want = expected_bits(edge, np.floor)
    # A NaN that arithmetic returns (x * Scale + Bias) has no payload IEEE 754 fixes: x86 keeps the operand's, an
    # NVIDIA H100 returns its canonical NaN. So NaN results are compared as NaN, every other result bit for bit.
    nan = np.isnan(edge)
    np.testing.assert_array_equal(np.isnan(fused), nan)
    np.testing.assert_array_equal(fused.view(np.uint16)[~nan], want[~nan])
