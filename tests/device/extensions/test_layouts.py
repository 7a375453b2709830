"""DMLPY_EXT_ELEMENT_WISE_ROUND through DirectML's object model (create_operator, compile_operator, the
initializer, a binding table, record_dispatch) in every layout class: packed, strided, broadcast (0 strides),
permuted, binding offsets and in place. The whole output buffer is checked byte for byte: the tensor's
elements hold the oracle's results and every other byte is unchanged."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.ext_cases import round_desc, round_through_object_model
from tests.helpers.ext_oracle import describe, mismatches
from tests.helpers.layouts import column_major, pick

LAYOUTS: dict[str, dict[str, object]] = {
    **pick("packed", "packed_odd_count"),
    "packed_one_element": {"sizes": (1,)},
    **pick(
        "strided_padded_both",
        "broadcast_input_inner",
        "broadcast_input_scalar",
        "permuted_input",
        "permuted_output",
        "offsets_broadcast",
        "in_place_packed_offset",
        "in_place_strided",
    ),
    "rank_8": {"sizes": (2, 1, 2, 3, 1, 2, 2, 3), "output_strides": column_major((2, 1, 2, 3, 1, 2, 2, 3))},
}
"""The shared layout classes (helpers.layouts), a rank-1 single element and rank 8 with a column-major output."""

# (dtype, mode): every storage class of the kernel; the floats in two modes each.
KINDS = [
    (np.dtype(np.float32), "NEAREST_UPWARD"),
    (np.dtype(np.float32), "DOWN"),
    (np.dtype(np.float16), "NEAREST_DOWNWARD"),
    (np.dtype(np.float16), "TOWARD_INFINITY"),
    (np.dtype(ml_dtypes.bfloat16), "NEAREST_TOWARD_ZERO"),
    (np.dtype(ml_dtypes.bfloat16), "UP"),
    (np.dtype(np.float64), "NEAREST_TOWARD_EVEN"),
    (np.dtype(np.float64), "NEAREST_TOWARD_INFINITY"),
    (np.dtype(np.int16), "TOWARD_ZERO"),
    (np.dtype(np.uint64), "NEAREST_UPWARD"),
]
KIND_IDS = [f"{dtype.name}-{mode}" for dtype, mode in KINDS]


@pytest.mark.parametrize(("dtype", "mode"), KINDS, ids=KIND_IDS)
@pytest.mark.parametrize("layout", list(LAYOUTS), ids=list(LAYOUTS))
def test_layout(request, ext_device, layout, dtype, mode):
    if dtype == np.float64:
        request.getfixturevalue("ext_device_fp64")
    kwargs = LAYOUTS[layout]
    logical_input, expected, got, changed = round_through_object_model(
        ext_device,
        dtype,
        mode=mode,
        seed=len(layout),
        **kwargs,  # type: ignore[arg-type]
    )
    if dtype.kind in "iu":
        assert np.array_equal(got, expected), np.flatnonzero(got != expected)[:10]
    else:
        wrong = mismatches(got, expected)
        assert wrong.size == 0, describe(wrong, logical_input, got, expected)
    assert not changed, f"{len(changed)} bytes outside the output tensor changed, first at {changed[:8]}"


def test_partial_overlap_is_refused(ext_device):
    # DirectML's aliasing rule holds for the extension too: input and output may share memory only when their
    # ranges and layouts are identical.
    desc = round_desc(np.dtype(np.float32), (4, 4), "UP")
    compiled = ext_device.compile_operator(ext_device.create_operator(desc))
    initializer = ext_device.create_operator_initializer([compiled])
    ext_device.create_command_recorder().record_dispatch(
        ext_device.queue, initializer, ext_device.create_binding_table(initializer)
    ).wait()
    buffer = ext_device.create_buffer(256)
    table = ext_device.create_binding_table(compiled)
    size = desc.input_tensor.desc.total_tensor_size_in_bytes
    table.bind_inputs([dml.BufferBinding(buffer, 0, size)])
    with pytest.raises(dml.InvalidArgumentError, match="share memory"):
        table.bind_outputs([dml.BufferBinding(buffer, 16, size)])
        ext_device.create_command_recorder().record_dispatch(ext_device.queue, compiled, table)
