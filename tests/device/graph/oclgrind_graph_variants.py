"""Run compiled graphs on the Oclgrind simulator (run by test_graph_oclgrind.py in a subprocess whose
OCL_ICD_VENDORS exposes Oclgrind's ICD; the shared parts are tests/helpers/oclgrind_driver.py).

Every loop shape of opencl/fused_elementwise.cl runs: PACKED (per-tensor parameters read once), ROWS (a
per-axis scale, padded rows) and the strided walk (a transposed output, and every shape under the "gpu"
profile), with float16 edges, two outputs and constant data, each tensor bound at an offset inside a buffer
sized exactly to it, so a read or write outside a tensor is an Oclgrind report. Values are compared with the
same graph one node at a time (``fuse=False``, the operators' own kernels); the ``OCLGRIND_SUMMARY`` line lists
the variants run and the mismatches.

    python oclgrind_graph_variants.py [--launch-profile cpu|gpu] [--negative-control]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.helpers.object_model import initialize
from tests.helpers.oclgrind_driver import VariantLog, main
from tests.helpers.oclgrind_sweep import without_zero_fill

T = dml.TensorDataType
NUMPY = {T.FLOAT32: np.float32, T.FLOAT16: np.float16, T.INT8: np.int8, T.UINT8: np.uint8, T.INT32: np.int32}
OFFSET = 32
"""Every tensor is bound at this byte offset, in a buffer that ends where the tensor does."""


UNINITIALIZED_PASS = os.environ.get("OCLGRIND_UNINITIALIZED") == "1"
"""Under the uninitialised pass buffers are made without create_buffer's zero fill and a graph runs fused only:
Oclgrind 21.10 loses kernel writes to memory clEnqueueFillBuffer filled (tests/device/convolution's
without_zero_fill), and one node at a time, a node's output in the temporary resource read by the next read as
never written even unfilled once another graph's buffers were freed (a FLOAT16 x * x then REDUCE after a FLOAT32
graph: 290 reports; fused: none). The memory pass compares fused with one by one."""

LOG = VariantLog()
begin = LOG.begin


def memory_of(desc: dml.BufferTensorDesc, logical: np.ndarray) -> np.ndarray:
    """The bytes a tensor spans, holding ``logical``'s elements where the desc's strides put them."""
    span = sum((s - 1) * d for s, d in zip(desc.sizes, desc.effective_strides, strict=True)) + 1
    memory = np.zeros(span, logical.dtype)
    view = np.lib.stride_tricks.as_strided(
        memory, desc.sizes, [d * memory.itemsize for d in desc.effective_strides], writeable=True
    )
    view[...] = logical
    return memory


def run(device: Any, desc: dml.GraphDesc, inputs: list[np.ndarray], fuse: bool) -> tuple[list[np.ndarray], int]:
    compiled = device.compile_graph(desc, fuse=fuse)
    initialize(device, compiled)
    table = device.create_binding_table(compiled)
    bindings = []
    for tensor, logical in zip(compiled.input_descs(), inputs, strict=True):
        memory = memory_of(tensor, logical)
        buffer = device.create_buffer(OFFSET + tensor.total_tensor_size_in_bytes)
        # Every byte written at once from byte 0: under the uninitialised pass, Oclgrind 21.10 read a tensor written
        # at byte OFFSET of its buffer as never written (a lone REDUCE SUM: 193 reports; 0 written from 0).
        image = np.zeros(OFFSET + tensor.total_tensor_size_in_bytes, np.uint8)
        image[OFFSET : OFFSET + memory.nbytes] = memory.view(np.uint8)
        buffer.write(image)
        bindings.append(dml.BufferBinding(buffer, OFFSET, tensor.total_tensor_size_in_bytes))
    table.bind_inputs(bindings)
    outputs = []
    for tensor in compiled.output_descs():
        buffer = device.create_buffer(OFFSET + tensor.total_tensor_size_in_bytes)
        outputs.append((tensor, buffer))
    table.bind_outputs([dml.BufferBinding(b, OFFSET, t.total_tensor_size_in_bytes) for t, b in outputs])
    size = compiled.get_binding_properties().temporary_resource_size
    if size:
        table.bind_temporary_resource(dml.BufferBinding(device.create_buffer(256 + size), 256, size))
    device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()
    results = []
    for tensor, buffer in outputs:
        dtype = np.dtype(NUMPY[tensor.data_type])
        span = (tensor.total_tensor_size_in_bytes) // dtype.itemsize
        raw = buffer.read(dtype, span, OFFSET)
        strides = [d * dtype.itemsize for d in tensor.effective_strides]
        results.append(np.lib.stride_tricks.as_strided(raw, tensor.sizes, strides).copy())
    return results, compiled.kernel_count


def check(device: Any, name: str, desc: dml.GraphDesc, inputs: list[np.ndarray], kernels: int = 1) -> None:
    """``desc`` fused (in ``kernels`` kernels) against one node at a time, bit for bit; under the uninitialised pass
    fused only (``UNINITIALIZED_PASS``)."""
    begin(name)
    fused, launched = run(device, desc, inputs, fuse=True)
    separate = fused if UNINITIALIZED_PASS else run(device, desc, inputs, fuse=False)[0]
    if launched != kernels:
        LOG.mismatch(f"{name} ran {launched} kernels, not {kernels}")
    for k, (got, want) in enumerate(zip(fused, separate, strict=True)):
        if got.tobytes() != want.tobytes():
            wrong = np.flatnonzero(got.reshape(-1).view(np.uint8) != want.reshape(-1).view(np.uint8))
            LOG.mismatch(f"{name} output {k} at bytes {wrong[:8]}")


def float_values(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    x = (rng.uniform(-40, 40, int(np.prod(shape))) * 4).round() / 8
    x[:4] = [np.nan, np.inf, -np.inf, -0.0][: min(4, x.size)]
    return x.astype(dtype).reshape(shape)


def qdq(sizes: tuple[int, ...], axis: int | None, real: T, output: dml.BufferTensorDesc | None = None) -> dml.GraphDesc:
    """int8 -> DequantizeLinear -> Round(TOWARD_INFINITY) -> QuantizeLinear -> int8 (``output``'s layout)."""
    strides = tuple(1 if d == axis else 0 for d in range(len(sizes)))
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    x = g.input(dml.BufferTensorDesc(data_type=T.INT8, sizes=sizes))
    s = g.input(dml.BufferTensorDesc(data_type=real, sizes=sizes, strides=strides))
    z = g.input(dml.BufferTensorDesc(data_type=T.INT8, sizes=sizes, strides=strides))
    rounded = dml.graph.round(dml.graph.dequantize_linear(x, s, z), "TOWARD_INFINITY")
    q = dml.graph.quantize_linear(rounded, s, z)
    if output is None:
        return g.desc_for([q])
    # The same graph with the last node's output in ``output``'s layout.
    desc = g.desc_for([q])
    last = desc.nodes[-1].desc.op
    relaid = last.model_copy(update={"output_tensor": dml.TensorDesc(desc=output)})
    nodes = [*desc.nodes[:-1], dml.GraphNodeDesc(desc=dml.OperatorGraphNodeDesc(operator=relaid))]
    return desc.model_copy(update={"nodes": tuple(nodes)})


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    for real, tag in ((T.FLOAT32, "f32"), (T.FLOAT16, "f16")):
        real_type = NUMPY[real]
        for name, sizes, axis in (
            (f"qdq_{tag}_packed_per_tensor_37", (37,), None),
            (f"qdq_{tag}_rows_per_axis1_2x3x5", (2, 3, 5), 1),
            (f"qdq_{tag}_rows_per_axis_last_3x7", (3, 7), 1),
        ):
            count = 1 if axis is None else sizes[axis]
            x = rng.integers(-128, 128, sizes, dtype=np.int8)
            scale = (
                rng.uniform(0.05, 3, count)
                .astype(real_type)
                .reshape([-1 if d == axis else 1 for d in range(len(sizes))])
            )
            zero = rng.integers(-5, 5, count, dtype=np.int8).reshape(scale.shape)
            check(
                device, name, qdq(sizes, axis, real), [x, np.broadcast_to(scale, sizes), np.broadcast_to(zero, sizes)]
            )

    # A transposed output: the innermost strides are not 0 or 1 for every tensor, so the walk runs.
    sizes = (4, 9)
    transposed = dml.BufferTensorDesc(data_type=T.INT8, sizes=sizes, strides=(1, 4))
    x = rng.integers(-128, 128, sizes, dtype=np.int8)
    ones = np.ones(sizes, np.float32)
    check(
        device,
        "qdq_f32_walk_transposed_output_4x9",
        qdq(sizes, None, T.FLOAT32, transposed),
        [x, ones * 0.5, np.zeros(sizes, np.int8)],
    )

    # Padded rows in and out (ROWS), float16, two outputs, constant data.
    padded = dml.BufferTensorDesc(data_type=T.FLOAT16, sizes=(3, 5), strides=(8, 1))
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    xi = g.input(padded)
    first = dml.graph.round(xi, "TOWARD_ZERO")
    second = dml.graph.identity(first, (0.5, 0.25))
    fake = dml.graph.dequantize_linear(
        dml.graph.quantize_linear(second, 0.125, 7, dtype="INT8"), 0.125, 7, dtype="FLOAT16"
    )
    check(
        device,
        "tree_f16_padded_two_outputs_constants_3x5",
        g.desc_for([first, fake]),
        [float_values(rng, (3, 5), np.float16)],
    )

    # Integer Identity fused: ScaleBias (0, NaN) then (inf, 0), each stored through nan_to_zero and
    # convert_char_sat_rtz.
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    xi = g.input(dml.BufferTensorDesc(data_type=T.INT8, sizes=(37,)))
    chain = dml.graph.identity(dml.graph.identity(dml.graph.identity(xi, (0.0, np.nan)), (np.inf, 0.0)), (0.5, 1.0))
    check(device, "identity_i8_nan_inf_scale_bias_37", g.desc_for([chain]), [rng.integers(-128, 128, 37, np.int8)])

    # Names that would be code if they reached kernel source (issue 26: the first one wrote past the output and over
    # the input): every kernel must be the same as an unnamed graph's, in bounds, and exact.
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    xi = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(37,)))
    rounded = dml.graph.round(xi, "TOWARD_ZERO")
    desc = g.desc_for([dml.graph.identity(rounded)])
    names = ["x\n#define min(a, b) ((b) + 4000)\n//", "*/ \u2028\x1b[2J"]
    nodes = [
        node.model_copy(update={"desc": node.desc.model_copy(update={"name": name})})
        for node, name in zip(desc.nodes, names, strict=True)
    ]
    x = float_values(rng, (37,), np.float32)
    check(device, "round_identity_hostile_names_37", desc.model_copy(update={"nodes": tuple(nodes)}), [x])

    # Views that cost no kernel (dmlpy/graph/views.py): a window read from its first element, a window of a
    # window into a reduction, a transposed computed value through Identity: each read stays inside its buffer.
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    xi, yi = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(5, 7))), g.input((2, 3), np.float32)
    window = dml.graph.slice(xi, [1, 2], [3, 5], [2, 2]) * yi
    total = dml.graph.reduce(
        dml.graph.slice(dml.graph.slice(xi, [1, 1], [4, 6], [1, 1]), [1, 0], [3, 6], [2, 3]), "SUM", [1]
    )
    turned = dml.graph.identity(dml.graph.transpose(dml.graph.round(xi), [1, 0])) + dml.graph.round(
        dml.graph.transpose(dml.graph.identity(xi), [1, 0])
    )
    check(
        device,
        "views_window_reduce_transpose_f32",
        g.desc_for([window, total, turned]),
        [float_values(rng, (5, 7), np.float32), float_values(rng, (2, 3), np.float32)],
        kernels=4,  # the product, the reduction, the two (5, 7) nodes, the two (7, 5) ones: no copy, no window
    )

    # BATCH_NORMALIZATION fused between element-wise nodes (pointwise: its statistics read through 0 strides),
    # float16, the statistics at offsets in buffers that end where they do.
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    sizes, stats = (2, 3, 5), (1, 3, 1)
    xi, yi = (g.input(dml.BufferTensorDesc(data_type=T.FLOAT16, sizes=sizes)) for _ in range(2))
    mean, variance, scale, bias = (g.input(dml.BufferTensorDesc(data_type=T.FLOAT16, sizes=stats)) for _ in range(4))
    normalized = dml.graph.batch_normalization(xi + yi, mean, variance, scale, bias, True, 1e-3)
    values = [float_values(rng, sizes, np.float16) for _ in range(2)]
    statistics = [rng.uniform(0.5, 2, stats).astype(np.float16) for _ in range(4)]
    check(device, "add_batch_normalization_relu_f16_2x3x5", g.desc_for([dml.graph.activation_relu(normalized)]),
          [*values, *statistics])  # fmt: skip

    run_anchored(device, rng)
    return LOG.summary()


def run_anchored(device: Any, rng: np.random.Generator) -> None:
    """Groups anchored by a reduction or a normalization (dmlpy/graph/anchored.py), one kernel each: every walk of
    reduce.cl (lanes with a tail, bands with a short band, one element at a time through a transpose's strides),
    normalize.cl's mean_variance_normalization and lp_normalization, FLOAT16 edges, integer results stored and read
    by the epilogue."""
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x, y = g.input((5, 19), np.float32), g.input((5, 19), np.float32)
    root = dml.graph.sqrt(dml.graph.reduce(x * y, "SUM", [1]) + np.float32(1))
    values = [rng.uniform(0.5, 2, (5, 19)).astype(np.float32) for _ in range(2)]
    check(device, "anchored_f32_sum_of_products_root_lanes_5x19", g.desc_for([root]), values)

    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x = g.input((19, 21), np.float16)
    mean = dml.graph.reduce(x * x, "AVERAGE", [0]) + np.float16(1)
    check(
        device,
        "anchored_f16_mean_of_squares_bands_19x21",
        g.desc_for([mean]),
        [float_values(rng, (19, 21), np.float16)],
    )

    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x, w = g.input((7, 5), np.int8), g.input((7, 5), np.int8)
    shifted = dml.graph.transpose(x + np.int8(1), [1, 0])  # stored, then read through the transpose's strides
    index = dml.graph.cast(dml.graph.reduce(shifted, "ARGMAX", [1]), "FLOAT32")
    total = dml.graph.reduce(dml.graph.cast(w, "FLOAT32"), "SUM", [0])
    check(
        device,
        "anchored_i8_argmax_transposed_and_sum_of_cast_7x5",
        g.desc_for([index, total]),
        [rng.integers(-128, 128, (7, 5), dtype=np.int8) for _ in range(2)],
        kernels=3,
    )

    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x, r = g.input((2, 3, 9), np.float32), g.input((2, 3, 9), np.float32)
    scale, bias = g.input((1, 1, 9), np.float32), g.input((1, 1, 9), np.float32)
    normed = dml.graph.mean_variance_normalization(x + r, scale, bias, [2], True, 1e-5)
    out = dml.graph.activation_relu(normed) * np.float32(2)
    values = [rng.standard_normal(shape).astype(np.float32) for shape in ((2, 3, 9), (2, 3, 9), (1, 1, 9), (1, 1, 9))]
    check(device, "anchored_f32_layer_norm_of_residual_relu_2x3x9", g.desc_for([out]), values)

    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x, y = g.input((3, 9, 4), np.float32), g.input((3, 9, 4), np.float32)
    out = dml.graph.tanh(dml.graph.lp_normalization(x - y, 1, 1e-6, 2))
    values = [rng.standard_normal((3, 9, 4)).astype(np.float32) for _ in range(2)]
    check(device, "anchored_f32_lp2_of_difference_tanh_3x9x4", g.desc_for([out]), values)

    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x, y = g.input((4, 3, 6), np.int32), g.input((4, 3, 6), np.int32)
    total = dml.graph.reduce(x + y, "SUM", [0, 2])
    values = [rng.integers(-(2**31), 2**31, (4, 3, 6), dtype=np.int64).astype(np.int32) for _ in range(2)]
    check(device, "anchored_i32_sum_stored_and_tripled_4x3x6", g.desc_for([total, total * np.int32(3)]), values)


def run_selected(device: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Every variant, or with --anchored-only the anchored groups' alone (under the uninitialised pass in buffers
    made without create_buffer's zero fill: ``UNINITIALIZED_PASS``)."""
    if UNINITIALIZED_PASS:
        without_zero_fill(device)
    if args.anchored_only:
        run_anchored(device, np.random.default_rng(0))
        return LOG.summary()
    return run_all(device, args)


ANCHORED_VARIANTS = [
    "anchored_f32_sum_of_products_root_lanes_5x19",
    "anchored_f16_mean_of_squares_bands_19x21",
    "anchored_i8_argmax_transposed_and_sum_of_cast_7x5",
    "anchored_f32_layer_norm_of_residual_relu_2x3x9",
    "anchored_f32_lp2_of_difference_tanh_3x9x4",
    "anchored_i32_sum_stored_and_tripled_4x3x6",
]


if __name__ == "__main__":
    sys.exit(
        main(run_selected, flags=[("--anchored-only", "only the groups anchored by a reduction or a normalization")])
    )
