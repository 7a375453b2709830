"""An initializer's external data (bytes in a file beside the model), read only from inside the model's folder
and streamed to a device buffer piece by piece."""

from __future__ import annotations

import os
from pathlib import PurePosixPath

import numpy as np
import onnx
from onnx.external_data_helper import ExternalDataInfo

from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.onnx.elements import onnx_name
from dmlpy.runtime import Buffer, Device
from dmlpy.tensor import whole_dwords

_EXTERNAL_PIECE = 4 << 20
"""External data goes to the device in pieces of this many bytes, never whole on the host."""


def _external_file(tensor: onnx.TensorProto, base_dir: str | None, where: str) -> tuple[str, str, int, int | None]:
    """The file holding an initializer's external data, found inside ``base_dir`` only: its location as the model
    gives it, its resolved path, the offset and the length (None: to the end of the file)."""
    try:
        info = ExternalDataInfo(tensor)
    except ValueError as error:
        raise InvalidArgumentError(
            f"{where}: its external data's offset or length is not a byte count: {error}"
        ) from error
    location = str(info.location)
    if not location:
        raise InvalidArgumentError(f"{where} is stored externally, but its external_data names no location")
    if base_dir is None:
        raise InvalidArgumentError(
            f"{where} keeps its data in the file {location!r}, and the model came without the folder that holds it: "
            "prepare the .onnx file's path, or name the folder with prepare(model, base_dir=...). dmlpy never reads "
            "external data from the working directory"
        )
    folder = os.path.realpath(base_dir)
    if os.path.isabs(location) or ".." in PurePosixPath(location.replace("\\", "/")).parts:
        raise InvalidArgumentError(
            f"{where}: its external data file {location!r} is not a path inside the model's folder {folder}; "
            "external data is read from that folder only, never through '..' or an absolute path"
        )
    path = os.path.realpath(os.path.join(folder, location))
    if os.path.commonpath([folder, path]) != folder:
        raise InvalidArgumentError(
            f"{where}: its external data file {location!r} is a symbolic link (or goes through one) that leaves the "
            f"model's folder {folder}; external data is read from that folder only"
        )
    if not os.path.isfile(path):
        raise InvalidArgumentError(f"{where}: its external data file {location!r}: no such file in {folder}")
    return location, path, int(info.offset or 0), None if info.length is None else int(info.length)


def upload_external(
    device: Device,
    tensor: onnx.TensorProto,
    dims: tuple[int, ...],
    data_type: TensorDataType,
    base_dir: str | None,
    where: str,
) -> Buffer:
    """An initializer's external data copied to a new device buffer piece by piece."""
    location, path, offset, length = _external_file(tensor, base_dir, where)
    if tensor.HasField("raw_data"):
        raise InvalidArgumentError(f"{where} holds raw_data and names external data; a tensor holds its data in one")
    need = int(np.prod(dims, dtype=object)) * DATA_TYPES[data_type].bits // 8
    with open(path, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        if offset > size:
            raise InvalidArgumentError(f"{where}: offset {offset} is past the end of {location!r} ({size} bytes)")
        if length is not None and length != need:
            raise InvalidArgumentError(
                f"{where}: its external data has length {length}; its dims {list(dims)} of {onnx_name(data_type)} "
                f"take {need} bytes"
            )
        if size - offset < need or (length is None and size - offset != need):
            raise InvalidArgumentError(
                f"{where}: {location!r} holds {size - offset} bytes from offset {offset}; its dims {list(dims)} of "
                f"{onnx_name(data_type)} take {need}"
            )
        buffer = device.create_buffer(max(4, whole_dwords(need)))
        try:
            file.seek(offset)
            piece = np.empty(min(need, _EXTERNAL_PIECE), np.uint8)
            for start in range(0, need, _EXTERNAL_PIECE):
                part = piece[: min(_EXTERNAL_PIECE, need - start)]
                if file.readinto(part.data) != part.size:
                    raise InvalidArgumentError(f"{where}: {location!r} ended while it was read (did it change?)")
                buffer.write(part, offset=start)
        except BaseException:
            buffer.release()
            raise
    return buffer
