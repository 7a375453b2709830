"""The lowering of the generators (``opencl/generators.cl``): FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE,
DIAGONAL_MATRIX and DIAGONAL_MATRIX1. One work-item per run of output elements (the element-wise template's run
lengths); values arrive as the bits of the output's type, converted on the host by the operators.

A fill or a sequence depends only on an element's place in row-major order, which coalescing keeps (it merges
neighbouring dimensions, never reorders them), so their outputs coalesce, and a packed one runs a plain loop. A
diagonal needs every element's row and column: its output keeps its own dimensions."""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import IntEnum

from dmlpy.dtypes import DATA_TYPES, AnyDataType
from dmlpy.enums import TensorDataType
from dmlpy.errors import UnsupportedError
from dmlpy.kernels.coalescing import ElementwiseLayout, coalesce
from dmlpy.kernels.elementwise import ELEMENTS_PER_ITEM, TEMPLATE_OPTIONS, bits_type
from dmlpy.kernels.launch import PACKED_RUN, KernelParameter, LaunchProfile, LoweredOperator
from dmlpy.kernels.source import KernelSpec

_WORD = 2**64


class Generator(IntEnum):
    """What generators.cl computes (its GENERATOR)."""

    FILL = 0
    SEQUENCE = 1
    DIAGONAL = 2


class _Sequence(IntEnum):
    """generators.cl's SEQUENCE: the arithmetic of start + i * delta for a type."""

    INTEGER = 0
    FLOAT = 1
    HALF = 2


def fill_kernel(
    data_type: AnyDataType, sizes: Sequence[int], strides: Sequence[int], bits: int, profile: LaunchProfile
) -> LoweredOperator:
    """Every element of an output of ``sizes`` and ``strides`` set to ``bits`` (the value's encoding)."""
    return _lowered(data_type, Generator.FILL, coalesce(sizes, [strides]), (bits, 0, 0, 0), profile)


def sequence_kernel(
    data_type: AnyDataType,
    sizes: Sequence[int],
    strides: Sequence[int],
    start_bits: int,
    delta_bits: int,
    profile: LaunchProfile,
) -> LoweredOperator:
    """Element i of the output (row-major) set to start + i * delta: integers modulo 2^width, FLOAT32 and FLOAT16
    rounded once from the exact value (FLOAT16 through float: generators.cl)."""
    numpy_type = DATA_TYPES[data_type].numpy
    if data_type == TensorDataType.FLOAT16:
        arithmetic = _Sequence.HALF
    elif data_type == TensorDataType.FLOAT32:
        arithmetic = _Sequence.FLOAT
    elif numpy_type.kind in "iu" and numpy_type.itemsize in (1, 2, 4, 8):
        arithmetic = _Sequence.INTEGER
    else:
        raise UnsupportedError(
            f"FILL_VALUE_SEQUENCE of {getattr(data_type, 'name', data_type)}: dmlpy computes sequences of FLOAT32, "
            "FLOAT16 and 8- to 64-bit integers, the types of its support table (which has no FLOAT64)"
        )
    layout = coalesce(sizes, [strides])
    return _lowered(
        data_type, Generator.SEQUENCE, layout, (start_bits, delta_bits, 0, 0), profile, (("SEQUENCE", str(arithmetic)),)
    )


def diagonal_kernel(
    data_type: AnyDataType,
    sizes: Sequence[int],
    strides: Sequence[int],
    bits: int,
    band: tuple[int, int],
    profile: LaunchProfile,
    *,
    input_slot: bool = False,
    input_strides: Sequence[int] | None = None,
) -> LoweredOperator:
    """``bits`` where column - row lies in ``band`` = [begin, end) (its complement where begin > end), else the
    input's element (``input_strides``) or 0. ``input_slot``: the operator binds an optional InputTensor before the
    output (DIAGONAL_MATRIX1), given or not."""
    rank = len(sizes)
    output = tuple(strides)
    given = tuple(input_strides) if input_strides is not None else (0,) * rank
    tensors = (given, output) if input_slot else (output,)
    layout = ElementwiseLayout(math.prod(sizes), tuple(sizes), tensors)
    begin, end = band
    defines = (("HAS_INPUT", str(int(input_strides is not None))),)
    return _lowered(data_type, Generator.DIAGONAL, layout, (bits, 0, begin % _WORD, end % _WORD), profile, defines)


def _lowered(
    data_type: AnyDataType,
    generator: Generator,
    layout: ElementwiseLayout,
    arguments: tuple[int, int, int, int],
    profile: LaunchProfile,
    defines: tuple[tuple[str, str], ...] = (),
) -> LoweredOperator:
    """generators.cl over ``layout`` with its four ulong arguments: value, delta, begin, end."""
    packed = layout.packed and generator != Generator.DIAGONAL
    spec = KernelSpec(
        "generators.cl",
        "generate",
        (
            ("ELEMENT_T", bits_type(data_type).storage),
            ("GENERATOR", str(int(generator))),
            ("TENSOR_COUNT", str(len(layout.strides))),
            ("RANK", str(layout.rank)),
            ("PACKED", str(int(packed))),
            *defines,
        ),
        TEMPLATE_OPTIONS,
    )
    parameters = tuple(KernelParameter("ulong", (value,)) for value in arguments)
    return profile.lowered(spec, layout, PACKED_RUN if packed else ELEMENTS_PER_ITEM, parameters=parameters)
