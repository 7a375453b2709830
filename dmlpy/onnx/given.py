"""What a prepared ONNX model is given, checked against what it declares: a graph input's declared shape
(``declared_shape``), an initializer against the graph input of its name (``check_initializer_declaration``), and
the arrays ``run`` and ``run_node`` are given (``given_arrays``, ``host_array``): NumPy arrays of the declared type
and shape, never device memory or Python objects."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import onnx

from dmlpy.arrays.checks import is_device_array
from dmlpy.arrays.checks import type_name as python_type_name
from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError, argument_error
from dmlpy.onnx.elements import BOOL_HELD_AS, ELEMENT_TYPES, input_shape_error, onnx_name, shown_shape, type_name


def declared_shape(value: onnx.ValueInfoProto) -> list[int | str | None] | None:
    """A graph input's declared shape: a number, a symbol or None (unknown) per dimension; None without one. A
    negative number is an open dimension too, as exporters (Paddle's) write -1 for one."""
    tensor_type = value.type.tensor_type
    if not tensor_type.HasField("shape"):
        return None
    return [
        int(dim.dim_value) if dim.HasField("dim_value") and dim.dim_value >= 0 else (dim.dim_param or None)
        for dim in tensor_type.shape.dim
    ]


def given_arrays(
    inputs: Any,
    input_names: Sequence[str],
    input_types: Mapping[str, int],
    input_shapes: Mapping[str, list[int | str | None] | None],
) -> dict[str, np.ndarray[Any, Any]]:
    """The arrays ``run`` is given (a list in graph input order, or a dict by name) by graph input name, each
    checked against the input's declared type and shape (``host_array``); an ONNX bool's as UINT8, its bytes."""
    if isinstance(inputs, Mapping):
        given = dict(inputs)
    else:
        if isinstance(inputs, np.ndarray) or not isinstance(inputs, Sequence):
            inputs = [inputs]
        if len(inputs) != len(input_names):
            raise InvalidArgumentError(
                f"the model takes {len(input_names)} inputs ({', '.join(input_names)}); {len(inputs)} were given"
            )
        given = dict(zip(input_names, inputs, strict=True))
    arrays: dict[str, np.ndarray[Any, Any]] = {}
    for name in input_names:
        if name not in given:
            raise InvalidArgumentError(f"the model's input {name!r} was not given")
        value = given[name]
        # A plain array of numbers passes host_array's checks as it is: those strings are written for a refusal.
        array = (
            value
            if type(value) is np.ndarray and value.dtype.kind != "O"
            else host_array(
                "run", f"the model's input {name!r}", value, f"a NumPy array of {type_name(input_types[name])}"
            )
        )
        numpy_type = _numpy_type(input_types[name])
        if numpy_type is None or array.dtype != numpy_type:
            raise InvalidArgumentError(
                f"the model's input {name!r} is {type_name(input_types[name])}; an array of dtype "
                f"{array.dtype} was given"
            )
        _check_shape(name, array.shape, input_shapes[name])
        arrays[name] = array.view(DATA_TYPES[BOOL_HELD_AS].numpy) if array.dtype == np.bool_ else array
    return arrays


def host_array(call: str, what: str, value: Any, wanted: str) -> np.ndarray[Any, Any]:
    """``value``, given to ``call`` (run, run_node) as ``what`` (the model's input 'x'), as the NumPy array the
    run binds; InvalidArgumentError saying it must be ``wanted`` ("a NumPy array of FLOAT"). Refused before NumPy
    reads it: device memory (a pyopencl array, which NumPy would read element by element, as Python objects);
    after: what NumPy cannot read, or holds only as Python objects. A masked array stays one: the compiled graph
    masks each output element that a masked input element reaches (dmlpy/runtime/graph_calls.py)."""
    if is_device_array(value):
        raise InvalidArgumentError(
            f"{call}: {what} is a {python_type_name(value)} (device memory); dmlpy's ONNX backend takes NumPy arrays "
            f"(host memory) only: pass its .get(), a NumPy copy"
        )
    try:
        array = value if isinstance(value, np.ma.MaskedArray) else np.asarray(value)
    except (TypeError, ValueError) as error:
        raise argument_error(call, what, value, wanted) from error
    if array.dtype.kind == "O":
        held = (
            "a NumPy array of dtype object"
            if isinstance(value, np.ndarray)
            else f"a {python_type_name(value)}, which NumPy holds only as Python objects (dtype object)"
        )
        raise InvalidArgumentError(f"{call}: {what} is {held}, not an array of numbers: pass {wanted}")
    return array


@functools.cache
def _numpy_type(elem_type: int) -> np.dtype[Any] | None:
    """The NumPy dtype ``run`` takes for a graph input of ONNX ``elem_type``: NumPy's bool for a bool (its bytes
    are DirectML's UINT8 1 and 0), None for a type DirectML has no tensor data type for."""
    if elem_type == onnx.TensorProto.BOOL:
        return np.dtype(np.bool_)
    wanted = ELEMENT_TYPES.get(elem_type)
    return np.dtype(DATA_TYPES[wanted].numpy) if wanted is not None else None


def _shape_differs(shape: tuple[int, ...], declared: list[int | str | None] | None) -> str | None:
    """How ``shape`` differs from a declared one (symbols and unknown dimensions match any size); None if not."""
    if declared is None:
        return None
    if len(shape) != len(declared):
        return f"{len(shape)} dimensions, not {len(declared)}"
    wrong = [
        k for k, (size, want) in enumerate(zip(shape, declared, strict=True)) if isinstance(want, int) and size != want
    ]
    return f"dimension {wrong[0]} is {shape[wrong[0]]}, not {declared[wrong[0]]}" if wrong else None


def _check_shape(name: str, shape: tuple[int, ...], declared: list[int | str | None] | None) -> None:
    """InvalidArgumentError unless ``shape`` is one the graph input ``name`` declares (symbols match any size)."""
    why = _shape_differs(shape, declared)
    if why is not None:
        raise input_shape_error(name, shape, declared, f" ({why}): give an array of the declared shape")


def check_initializer_declaration(
    name: str,
    data_type: TensorDataType,
    declared: list[int | str | None] | None,
    initializer: tuple[tuple[int, ...], TensorDataType],
) -> None:
    """InvalidArgumentError unless the graph input ``name`` declares the type and shape of the initializer of
    its name (dmlpy binds the initializer; a declaration it contradicts is a model at odds with itself)."""
    dims, initializer_type = initializer
    why = (
        f"{onnx_name(data_type)}, not {onnx_name(initializer_type)}"
        if data_type != initializer_type
        else _shape_differs(dims, declared)
    )
    if why is not None:
        shape = "" if declared is None else f" of shape {shown_shape(declared)}"
        raise InvalidArgumentError(
            f"ONNX graph input {name!r} is declared {onnx_name(data_type)}{shape}; the initializer {name!r} is "
            f"{onnx_name(initializer_type)} of dims {list(dims)} ({why}): make the input's declaration agree with "
            "the initializer, or leave the initializer out of the graph inputs"
        )
