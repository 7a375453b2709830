"""The lowering of the poolings (``opencl/pooling.cl``): AVERAGE, MAX and LP pooling over a window of the spatial
dimensions, one output element at a time, QUANTIZED_LINEAR_AVERAGE_POOLING's average of quantized elements, and
MAX_UNPOOLING's scatter.

Every tensor is given 5 dimensions {N, C, D, H, W} (a 4-D tensor gains D = 1, a window of 1 there), so one program
serves 4-D and 5-D operators alike. The walk (``elementwise_walk.h``) steps through the output's index space; the
input's walk strides are only N's and C's, and the kernel adds each window element's spatial offset through the
input's own strides. The window's fields reach the kernel as ``uint8`` parameters, never as source: a new window
builds no program."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from dmlpy.dtypes import DATA_TYPES, AnyDataType
from dmlpy.enums import TensorDataType
from dmlpy.kernels.coalescing import ElementwiseLayout
from dmlpy.kernels.elementwise import TEMPLATE_OPTIONS, bits_type
from dmlpy.kernels.launch import KernelParameter, LaunchProfile, LoweredOperator
from dmlpy.kernels.source import KernelSpec

T = TensorDataType


class PoolFunction(IntEnum):
    """pooling.cl's FUNCTION."""

    AVERAGE = 0
    MAX = 1
    LP = 2
    QUANTIZED_AVERAGE = 4


UNPOOL = 3
"""pooling.cl's FUNCTION for max_unpooling."""
WINDOW_READS = 4096
"""Input elements a work-item reads under the "cpu" profile: its run of outputs is 4096 / the window's elements
(a power of two, 1 to 256), so that a global window gives one output a work-item and a 2 x 2 window 256."""
_LOWEST_FLOAT = {T.FLOAT32: ("uint", "1", "0xff800000u"), T.FLOAT16: ("ushort", "2", "0xfc00u")}
"""MAX over floats: the element's bits type, FLOAT_KEY and -inf's bits (a window with no inside element)."""


@dataclass(frozen=True)
class PoolingWindow:
    """The window fields along the spatial dimensions (DimensionCount of them)."""

    window_size: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    start_padding: tuple[int, ...]


def _five(values: Sequence[int], fill: int) -> tuple[int, ...]:
    """A 4-D tensor's values with D = ``fill`` inserted after N and C (a 5-D one's unchanged)."""
    return tuple(values) if len(values) == 5 else (*values[:2], fill, *values[2:])


def _spatial(values: Sequence[int], fill: int) -> tuple[int, ...]:
    """Spatial values (2 or 3) as D, H, W."""
    return tuple(values) if len(values) == 3 else (fill, *values)


def _run_length(window: PoolingWindow) -> int:
    """Outputs a work-item takes under the "cpu" profile (``WINDOW_READS``)."""
    reads = max(1, math.prod(window.window_size))
    return 1 << max(0, min(8, (WINDOW_READS // reads).bit_length() - 1))


def _max_types(data_type: AnyDataType) -> tuple[tuple[str, str], ...]:
    """MAX's ELEMENT_T, FLOAT_KEY and LOWEST for ``data_type``."""
    if data_type in _LOWEST_FLOAT:
        element, key, lowest = _LOWEST_FLOAT[data_type]  # type: ignore[index]
        return (("ELEMENT_T", element), ("FLOAT_KEY", key), ("LOWEST", lowest))
    info = DATA_TYPES[data_type]
    # The minimum written as (minimum+1)-1, no spaces in a -D option: -2^63 is no literal of OpenCL C's (2^63
    # overflows a long).
    lowest = f"({-(2 ** (info.bits - 1)) + 1}L-1)" if info.numpy.kind == "i" else "0"
    return (("ELEMENT_T", info.opencl_storage), ("FLOAT_KEY", "0"), ("LOWEST", lowest))


def pooling_kernel(
    function: PoolFunction,
    data_type: AnyDataType,
    input_sizes: Sequence[int],
    input_strides: Sequence[int],
    output_sizes: Sequence[int],
    output_strides: Sequence[int],
    indices: tuple[AnyDataType, Sequence[int]] | None,
    window: PoolingWindow,
    options: tuple[int, int],
    profile: LaunchProfile,
    indices_slot: bool = False,
) -> LoweredOperator:
    """pooling.cl computing ``function`` over ``window`` of an input of ``input_sizes`` and ``input_strides`` into an
    output of ``output_sizes`` and ``output_strides``; ``indices`` (MAX: OutputIndicesTensor's type and strides)
    where given; ``indices_slot`` where the operator has the slot (bound, never written, when absent). ``options``:
    (IncludePadding, P)."""
    sizes = _five(output_sizes, 1)
    walk_strides = [
        (*_five(input_strides, 0)[:2], 0, 0, 0),
        _five(output_strides, 0),
    ]
    if indices_slot:
        walk_strides.append((0,) * 5 if indices is None else _five(indices[1], 0))
    layout = ElementwiseLayout(math.prod(sizes), sizes, tuple(walk_strides))
    defines: list[tuple[str, str]] = [
        ("FUNCTION", str(int(function))),
        ("INDICES_SLOT", str(int(indices_slot))),
        ("HAS_INDICES", str(int(indices is not None))),
        ("DML_FLOAT16", str(int(data_type == T.FLOAT16))),
    ]
    if indices is not None:
        defines.append(("INDEX_T", DATA_TYPES[indices[0]].opencl_storage))
    if function == PoolFunction.MAX:
        defines += _max_types(data_type)
    else:
        defines.append(("ELEMENT_T", "ushort" if data_type == T.FLOAT16 else "float"))
    spec = KernelSpec("pooling.cl", "pooling", tuple(defines), TEMPLATE_OPTIONS)
    parameters = _geometry(input_sizes, input_strides, window, options)
    return profile.lowered(spec, layout, _run_length(window), parameters=parameters)


def _geometry(
    input_sizes: Sequence[int], input_strides: Sequence[int], window: PoolingWindow, options: tuple[int, int]
) -> tuple[KernelParameter, ...]:
    """pooling.cl's geometry arguments, lanes 0 to 2 the spatial dimensions D, H, W."""
    return tuple(
        KernelParameter("uint8", values)
        for values in (
            _spatial(input_sizes[2:], 1),
            _spatial(input_strides[2:], 0),
            _spatial(window.window_size, 1),
            _spatial(window.strides, 1),
            _spatial(window.dilations, 1),
            _spatial(window.start_padding, 0),
            options,
        )
    )


def channel_strides(parameter: tuple[Sequence[int], Sequence[int]] | None) -> tuple[int, ...]:
    """A scale's or zero point's walk strides over the output's 5-D index space from its (Sizes, strides): 0 but
    along C, where a per-channel tensor steps by the stride of the one dimension that holds its values (the pages
    leave that dimension's place open); a single value, or an absent tensor, 0 everywhere."""
    if parameter is None:
        return (0,) * 5
    spread = [stride for size, stride in zip(*parameter, strict=True) if size != 1]
    return (0, spread[0] if spread else 0, 0, 0, 0)


def quantized_average_kernel(
    data_types: tuple[AnyDataType, AnyDataType],
    input_layout: tuple[Sequence[int], Sequence[int]],
    parameters: Sequence[tuple[Sequence[int], Sequence[int]] | None],
    output_layout: tuple[Sequence[int], Sequence[int]],
    window: PoolingWindow,
    include_padding: bool,
    profile: LaunchProfile,
) -> LoweredOperator:
    """pooling.cl's quantized_average_pooling: InputTensor of ``data_types[0]`` and ``input_layout`` (Sizes,
    strides) averaged over ``window`` into OutputTensor of ``data_types[1]`` and ``output_layout``; ``parameters``
    the (Sizes, strides) of InputScale, InputZeroPoint, OutputScale and OutputZeroPoint in slot order (an absent
    zero point None)."""
    input_sizes, input_strides = input_layout
    sizes = _five(output_layout[0], 1)
    walk_strides = (
        (*_five(input_strides, 0)[:2], 0, 0, 0),
        *(channel_strides(parameter) for parameter in parameters),
        _five(output_layout[1], 0),
    )
    layout = ElementwiseLayout(math.prod(sizes), sizes, walk_strides)
    defines = (
        ("FUNCTION", str(int(PoolFunction.QUANTIZED_AVERAGE))),
        ("INPUT_T", DATA_TYPES[data_types[0]].opencl_storage),
        ("OUTPUT_T", DATA_TYPES[data_types[1]].opencl_storage),
        ("HAS_INPUT_ZERO", str(int(parameters[1] is not None))),
        ("HAS_OUTPUT_ZERO", str(int(parameters[3] is not None))),
    )
    spec = KernelSpec("pooling.cl", "quantized_average_pooling", defines, TEMPLATE_OPTIONS)
    geometry = _geometry(input_sizes, input_strides, window, (int(include_padding), 1))
    return profile.lowered(spec, layout, _run_length(window), parameters=geometry)


def unpooling_kernel(
    data_type: AnyDataType,
    index_type: AnyDataType,
    input_sizes: Sequence[int],
    input_strides: Sequence[int],
    indices_strides: Sequence[int],
    output_sizes: Sequence[int],
    output_strides: Sequence[int],
    profile: LaunchProfile,
) -> LoweredOperator:
    """pooling.cl's max_unpooling: each element of an input of ``input_sizes`` written at its index in an output of
    ``output_sizes`` read as a packed row-major array (through ``output_strides``); the elements move as bits."""
    layout = ElementwiseLayout(
        math.prod(input_sizes), tuple(input_sizes), (tuple(input_strides), tuple(indices_strides), (0,) * 4)
    )
    defines = (
        ("FUNCTION", str(UNPOOL)),
        ("ELEMENT_T", bits_type(data_type).storage),
        ("INDEX_T", DATA_TYPES[index_type].opencl_storage),
    )
    spec = KernelSpec("pooling.cl", "max_unpooling", defines, TEMPLATE_OPTIONS)
    parameters = (KernelParameter("uint8", tuple(output_sizes)), KernelParameter("uint8", tuple(output_strides)))
    return profile.lowered(spec, layout, WINDOW_READS, parameters=parameters)
