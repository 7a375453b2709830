"""The one rule for a value that enters the graph builder: a constant's values (``g.constant``, and the numbers and
arrays the builder functions make constants of: operands, scales, zero points), a DML_SCALE_BIAS, a clip bound, an
operator's FLOAT field. The value is held by the type it enters, or refused with an InvalidArgumentError naming the
argument (and an array element's index), the value, the type and what to give instead; never converted silently:

- an integer type holds a whole number in its range (C's conversion would wrap or truncate anything else: 300 as
  INT8 is 44, 1.5 is 1, NaN is 0);
- a float type holds any number rounded to the nearest of its values, as C converts a double to a float, but not a
  finite number beyond its largest (1e6 as FLOAT16), which that rounding makes an infinity; NaN and the infinities
  are themselves;
- a number is an int or a float, a NumPy number, or an array of them (a NumPy array of integers or floats, or
  nested lists); True and False, text, None and other objects are refused, not read as 1, 0 or NaN.

Numbers are compared as given: a Python int past 2^53, or past 64 bits, is never read through a double first. The
builder's other value arguments are read here too: ``dtype`` (``data_type_argument``) and DML_SCALE_BIAS
(``scale_bias_argument``)."""

from __future__ import annotations

import enum
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy import nibbles
from dmlpy.dtypes import DATA_TYPES, AnyDataType, data_type_of, is_nibble
from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError, argument_error
from dmlpy.ml_types import integer_limits, is_ml_dtype, largest_finite
from dmlpy.ops._unary import ScaleBias
from dmlpy.ops.scalar_union import ScalarUnion
from dmlpy.problems.values import show
from dmlpy.quantization_values import integral
from dmlpy.tensor import BufferTensorDesc

NUMBERS = "a number (an int or a float; True and False are not numbers here), or for several a NumPy array of them"
"""What a value argument accepts, as messages say it."""

_WIDENED: dict[str, np.dtype[Any]] = {
    "int4": np.dtype(np.int8),
    "uint4": np.dtype(np.uint8),
    "bfloat16": np.dtype(np.float32),
}
"""ml_dtypes' arrays read as a NumPy type that holds each of their values exactly (NumPy's comparisons and floor
know no ml_dtypes type)."""


def held(values: Any, data_type: AnyDataType, where: str, name: str, holder: str) -> npt.NDArray[Any]:
    """``values`` (a number, a NumPy array, nested lists) as an array of ``data_type``'s NumPy type, of their shape,
    each element the number given (the nearest value of a float type). InvalidArgumentError otherwise, in ``where``'s
    words: ``name`` (with the element's index) is the value; ``holder`` says whose type it is ("the other operand
    is", followed by the type's name)."""
    target = np.dtype(DATA_TYPES[data_type].numpy)
    given = _numbers(values, where, name)
    integer = integral(target)
    with np.errstate(over="ignore", invalid="ignore"):  # an infinity from a finite value is refused below
        if integer:
            limits = integer_limits(target)
            refused = ~_whole_within(given, int(limits.min), int(limits.max))
        else:
            rounded = _rounded(given, target)
            refused = np.isinf(rounded) & _finite(given)
    if refused.any():
        index = tuple(int(i) for i in np.argwhere(refused)[0])
        value = given[index] if given.dtype == object else given[index].item()
        raise InvalidArgumentError(f"{where}: {_at(name, index)} is {show(value)}; {holder} {_holds(data_type)}")
    return given.astype(target) if integer else rounded


def scalar_argument(value: Any, data_type: TensorDataType, where: str, name: str, holder: str) -> ScalarUnion:
    """A DML_SCALAR_UNION field given as one number (CLIP1's bounds, PADDING1's value, the generators' values):
    ``held``'s rule for ``data_type``, in that type's member; the empty union for a 4-bit type, which has no member
    (the operator's support table refuses the type, naming it)."""
    number = held(value, data_type, where, name, holder)
    if number.ndim:
        raise argument_error(where, name, value, f"one number (a {data_type.name} value)")
    if is_nibble(data_type):
        return ScalarUnion()
    return ScalarUnion.of(number.item(), data_type)


def c_float(value: Any, where: str, name: str, field: str) -> float:
    """A C FLOAT member's value (``field``: ``DML_SCALE_BIAS.Scale``, ``ELEMENT_WISE_CLIP.Min``): one number that
    FLOAT32 holds (``held``). A float is kept as given, as the descriptor holds it (the kernel rounds it to float32);
    an int is kept as its nearest float32, which ``float()`` could reach only by rounding twice."""
    rounded = held(value, TensorDataType.FLOAT32, where, name, f"{field} is read as")
    if rounded.ndim:
        raise argument_error(where, name, value, f"one number ({field} is a C FLOAT)")
    return float(value) if isinstance(value, float | np.floating) else float(rounded)


def scale_bias_argument(value: Any, where: str, name: str) -> ScaleBias | None:
    """A builder's DML_SCALE_BIAS: a ScaleBias, a (scale, bias) pair, or None; each member a C FLOAT (``c_float``)."""
    if value is None:
        return None
    if isinstance(value, ScaleBias):
        members = [(value.scale, f"{name}.scale"), (value.bias, f"{name}.bias")]
    elif isinstance(value, tuple | list) and len(value) == 2:
        members = [(value[0], f"{name}[0]"), (value[1], f"{name}[1]")]
    else:
        raise argument_error(
            where, name, value, "a dml.ScaleBias(scale=..., bias=...), a (scale, bias) pair of numbers, or None"
        )
    (scale, scale_name), (bias, bias_name) = members
    return ScaleBias(
        scale=c_float(scale, where, scale_name, "DML_SCALE_BIAS.Scale"),
        bias=c_float(bias, where, bias_name, "DML_SCALE_BIAS.Bias"),
    )


def data_type_argument(value: Any, where: str, name: str = "dtype") -> TensorDataType:
    """A builder's data type argument: a TensorDataType, its name or its number, or a NumPy dtype, type or type name
    (ml_dtypes' int4 and uint4 too); not a bool, a float or another enum's member, which ``TensorDataType.parse``
    would take for a number, nor a type no DirectML tensor holds."""
    if isinstance(value, np.dtype | type):
        return _numpy_data_type(value, where, name)
    if isinstance(value, bool | float) or (isinstance(value, enum.Enum) and not isinstance(value, TensorDataType)):
        raise InvalidArgumentError(
            f"{where}: {name} is {value!r}; give a TensorDataType (dml.TensorDataType.UINT8), its name or its "
            "number, or a NumPy dtype (np.uint8)"
        )
    try:
        return TensorDataType.parse(value)
    except InvalidArgumentError as error:
        if isinstance(value, str) and _is_numpy_type_name(value):  # "float32" parses above; "f4" is NumPy's
            return _numpy_data_type(value, where, name)
        raise InvalidArgumentError(f"{where}: {name}: {error}") from None


def _is_numpy_type_name(text: str) -> bool:
    try:
        np.dtype(text)
    except TypeError:
        return False
    return True


def _numpy_data_type(value: Any, where: str, name: str) -> TensorDataType:
    try:
        found = data_type_of(np.dtype(value))
    except (TypeError, ValueError):
        found = None
    if not isinstance(found, TensorDataType):  # none, or dmlpy's BFLOAT16 extension, which no graph holds
        raise InvalidArgumentError(
            f"{where}: {name} is {show(value)}, which no DirectML tensor data type holds; give one that does, by "
            "name (FLOAT32, INT8, ...), NumPy dtype (np.float32) or ml_dtypes type (ml_dtypes.int4); UINT8 holds "
            "bools as 1 and 0"
        )
    return found


def constant_bytes(values: Any, desc: BufferTensorDesc, where: str) -> bytes:
    """What a constant node of ``desc`` holding ``values`` holds (``g.constant``): the values (of desc's Sizes, or a
    shape NumPy broadcasts to them) ``held`` by desc's DataType, laid out as desc reads them."""
    if desc.data_type not in DATA_TYPES:
        raise InvalidArgumentError(
            f"{where}: desc's DataType is {desc.data_type.name}, which holds no values: describe the constant with a "
            "data type (FLOAT32, INT8, ...)"
        )
    array = held(values, desc.data_type, where, "values", "desc's DataType is")
    try:
        array = np.broadcast_to(array, desc.sizes)
    except ValueError:
        raise InvalidArgumentError(
            f"{where}: values has shape {array.shape}; desc has Sizes {list(desc.sizes)}: give values of that shape, "
            "or of one NumPy broadcasts to it (1 along a dimension, or fewer leading dimensions, repeats the values)"
        ) from None
    memory, view = _laid_out(array, desc)
    _check_shared_places(array, view, desc, where)
    return _bytes(memory, desc)


def tensor_bytes(values: Any, desc: BufferTensorDesc) -> bytes:
    """``values`` (broadcast to ``desc``'s Sizes) laid out as ``desc`` reads them: its elements at their strided
    places, up to the last one; what a compiled graph's call writes for an input array of a strided desc (its
    array has the input's dtype already: the call checks it)."""
    numpy_type = DATA_TYPES[desc.data_type].numpy
    memory, _ = _laid_out(np.broadcast_to(np.asarray(values, dtype=numpy_type), desc.sizes), desc)
    return _bytes(memory, desc)


def _bytes(memory: npt.NDArray[Any], desc: BufferTensorDesc) -> bytes:
    return nibbles.pack(memory).tobytes() if is_nibble(desc.data_type) else memory.tobytes()


def _laid_out(array: Any, desc: BufferTensorDesc) -> tuple[Any, Any]:
    """The memory ``desc`` reads (its elements at their strided places, up to the last one) with ``array`` (of
    desc's Sizes and NumPy type) written into it, and the strided view of it that desc reads."""
    strides = desc.effective_strides
    span = sum((size - 1) * stride for size, stride in zip(desc.sizes, strides, strict=True)) + 1
    memory = np.zeros(span, dtype=array.dtype)
    view = np.lib.stride_tricks.as_strided(
        memory, shape=desc.sizes, strides=[s * memory.itemsize for s in strides], writeable=True
    )
    view[...] = array  # 0-strides: every element of a broadcast dimension writes the same place
    return memory, view


def _check_shared_places(array: Any, view: Any, desc: BufferTensorDesc, where: str) -> None:
    """InvalidArgumentError unless ``desc`` reads back each element of ``array`` from ``view``, bit for bit: elements
    that its Strides put in one place (0 along a dimension) must be equal, or only the last would be kept."""
    bits = np.dtype(f"u{array.dtype.itemsize}")
    differs = view.view(bits) != array.view(bits)
    if differs.any():
        index = tuple(int(i) for i in np.argwhere(differs)[0])
        raise InvalidArgumentError(
            f"{where}: {_at('values', index)} is {show(array[index].item())}, but desc's Strides "
            f"{list(desc.effective_strides)} put it in the place of another element, {show(view[index].item())}: "
            "elements that share a place must be equal. Give one value along a dimension of Stride 0 (or Strides "
            "that keep the elements apart)"
        )


def _numbers(values: Any, where: str, name: str) -> npt.NDArray[Any]:
    """``values`` as an array of numbers: a NumPy array of integers or floats (ml_dtypes' widened), or an array of
    objects, each a Python int or float (from a NumPy number), for anything else (a number, nested lists)."""
    if isinstance(values, np.ndarray) and values.dtype != object:
        if is_ml_dtype(values.dtype, *_WIDENED):
            return values.astype(_WIDENED[values.dtype.name])
        if values.dtype.kind in "iu" or (values.dtype.kind == "f" and values.dtype.itemsize <= 8):
            return values
        raise InvalidArgumentError(f"{where}: {name} is a NumPy array of {values.dtype}; it must be {NUMBERS}")
    try:
        cells = np.array(values, dtype=object)  # the nesting's shape, each number as it was given
    except (TypeError, ValueError):
        raise argument_error(where, name, values, NUMBERS) from None
    for index in np.ndindex(cells.shape):
        cell = cells[index]
        number = cell.item() if isinstance(cell, np.generic) else cell
        if isinstance(number, bool | enum.Enum) or not isinstance(number, int | float):
            raise argument_error(where, _at(name, index), cell, NUMBERS)
        cells[index] = number
    return cells


def _whole_within(given: npt.NDArray[Any], low: int, high: int) -> npt.NDArray[np.bool_]:
    """Where ``given`` is a whole number from ``low`` to ``high``, each compared exactly."""
    inside: npt.NDArray[np.bool_]
    if given.dtype.kind in "iu":
        inside = (given >= low) & (given <= high)  # NumPy compares an integer array with any Python int exactly
    elif given.dtype.kind == "f":
        # high + 1 and low are powers of two (or 0), so a double holds them and the comparisons are exact.
        wide = given.astype(np.float64)
        inside = np.isfinite(wide) & (np.floor(wide) == wide) & (wide >= low) & (wide < high + 1)
    else:
        inside = np.asarray(_WHOLE_WITHIN(given, low, high), dtype=bool)
    return inside


def _whole_within_one(number: int | float, low: int, high: int) -> bool:
    return (isinstance(number, int) or number.is_integer()) and low <= number <= high


_WHOLE_WITHIN = np.frompyfunc(_whole_within_one, 3, 1)


def _rounded(given: npt.NDArray[Any], target: np.dtype[Any]) -> npt.NDArray[Any]:
    """``given`` rounded to the nearest of ``target``'s values, once (NumPy's casts from integer and float arrays
    round once, as C's do); a finite value beyond its range an infinity."""
    if given.dtype != object:
        return given.astype(target)
    return np.asarray(_DOUBLES(given, target.itemsize < 8), dtype=np.float64).astype(target)


def _double(number: int | float, narrower: bool) -> float:
    """A Python number as the double whose rounding to the target type gives the number's nearest value: a float
    itself; an int its nearest double, or for a target narrower than a double (FLOAT32, FLOAT16) the int rounded to
    odd (the double truncating it, its last bit set when that is inexact), so that the second rounding decides as
    one rounding of the int would (a double has more than two bits beyond a float's 24). An int beyond a double's
    range an infinity."""
    if isinstance(number, float) or abs(number) <= 2**53:
        return float(number)
    try:
        if not narrower:
            return float(number)
        magnitude = abs(number)
        shift = magnitude.bit_length() - 53
        mantissa = magnitude >> shift
        mantissa |= int(mantissa << shift != magnitude)
        odd = math.ldexp(mantissa, shift)
    except OverflowError:
        odd = math.inf
    return odd if number > 0 else -odd


_DOUBLES = np.frompyfunc(_double, 2, 1)


def _finite(given: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    if given.dtype.kind in "iu":
        return np.ones(given.shape, dtype=bool)
    finite: npt.NDArray[np.bool_] = (
        np.isfinite(given) if given.dtype.kind == "f" else np.asarray(_FINITE(given), dtype=bool)
    )
    return finite


_FINITE = np.frompyfunc(lambda number: isinstance(number, int) or math.isfinite(number), 1, 1)


def _holds(data_type: AnyDataType) -> str:
    """What ``data_type`` holds, and what to give, after the value and whose type it is."""
    numpy_type = np.dtype(DATA_TYPES[data_type].numpy)
    if integral(numpy_type):
        limits = integer_limits(numpy_type)
        return f"{data_type.name}, which holds the integers {limits.min} to {limits.max}: give one of them"
    largest = largest_finite(numpy_type)
    return (
        f"{data_type.name}, whose largest finite value is {largest!r}: give a number from {-largest!r} to "
        f"{largest!r} (one beyond would round to infinity; NaN and the infinities are taken as they are)"
    )


def _at(name: str, index: tuple[int, ...]) -> str:
    return f"{name}[{', '.join(map(str, index))}]" if index else name
