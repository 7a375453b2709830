"""A model's initializers: their dims and data types read from the TensorProtos, and their data uploaded to the
device one at a time (held in the model, or external data read through dmlpy.onnx.external_data), or read on the
host where a value becomes a descriptor field (Clip's bounds)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.external_data_helper import uses_external_data

from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.onnx.elements import NodeRefused, onnx_name, value_type
from dmlpy.onnx.external_data import upload_external
from dmlpy.runtime import Buffer, Device

_VALUE_FIELDS = ("raw_data", "float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")


def initializer_types(graph: onnx.GraphProto) -> dict[str, tuple[tuple[int, ...], TensorDataType]]:
    """Each initializer's dims and data type, read from the TensorProto (its data is not touched)."""
    types: dict[str, tuple[tuple[int, ...], TensorDataType]] = {}
    for tensor in graph.initializer:
        where = f"ONNX initializer {tensor.name!r}"
        if tensor.name in types:
            raise InvalidArgumentError(f"{where} is given twice; each initializer has one name")
        if any(dim < 0 for dim in tensor.dims):
            raise InvalidArgumentError(f"{where} has dims {list(tensor.dims)}; a dimension is at least 0")
        types[tensor.name] = (tuple(int(dim) for dim in tensor.dims), value_type(tensor.data_type, where))
    return types


def upload_initializers(
    device: Device,
    graph: onnx.GraphProto,
    types: Mapping[str, tuple[tuple[int, ...], TensorDataType]],
    base_dir: str | None,
) -> dict[str, Buffer]:
    """Every initializer on the device, one at a time (its host copy dropped before the next); the ones already
    uploaded are released when one cannot be."""
    uploaded: dict[str, Buffer] = {}
    try:
        for tensor in graph.initializer:
            dims, data_type = types[tensor.name]
            where = f"ONNX initializer {tensor.name!r}"
            if uses_external_data(tensor):
                uploaded[tensor.name] = upload_external(device, tensor, dims, data_type, base_dir, where)
            else:
                uploaded[tensor.name] = device.upload(_inline_array(tensor, dims, data_type, where))
    except BaseException:
        for buffer in uploaded.values():
            buffer.release()
        raise
    return uploaded


def initializer_value(
    graph: onnx.GraphProto, name: str, types: Mapping[str, tuple[tuple[int, ...], TensorDataType]], where: str
) -> np.ndarray[Any, Any]:
    """The data of the initializer ``name`` on the host, for a value that becomes a descriptor field (Clip's
    bounds): held in the model; one in external data is refused (dmlpy reads external data only to upload it)."""
    (tensor,) = [tensor for tensor in graph.initializer if tensor.name == name]
    if uses_external_data(tensor):
        raise NodeRefused(
            f"{where}: the initializer {name!r} is held in external data, which dmlpy reads only to upload it; "
            "store this small value in the model"
        )
    dims, data_type = types[name]
    return _inline_array(tensor, dims, data_type, f"ONNX initializer {name!r}")


def _inline_array(
    tensor: onnx.TensorProto, dims: tuple[int, ...], data_type: TensorDataType, where: str
) -> np.ndarray[Any, Any]:
    """An initializer's data held in the model, as an array (a view of raw_data's bytes, not a second copy)."""
    fields = [
        name for name in _VALUE_FIELDS if (tensor.HasField(name) if name == "raw_data" else getattr(tensor, name))
    ]
    numpy_type = DATA_TYPES[data_type].numpy
    assert numpy_type is not None
    if not fields and 0 in dims:
        return np.zeros(dims, numpy_type)
    if len(fields) != 1:
        raise InvalidArgumentError(
            f"{where} holds its data in {len(fields)} fields ({', '.join(fields) or 'none'}); a tensor holds it in one"
        )
    try:
        array = numpy_helper.to_array(tensor)
    except (TypeError, ValueError, KeyError) as error:
        raise InvalidArgumentError(
            f"{where}: its {fields[0]} does not hold the {int(np.prod(dims, dtype=object))} {onnx_name(data_type)} "
            f"values its dims {list(dims)} describe ({error})"
        ) from error
    return np.asarray(array, dtype=numpy_type)
