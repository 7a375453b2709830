"""An initializer's external data (bytes in a file beside the model), read only from inside the model's folder
and streamed to a device buffer piece by piece.

The file is opened one path component at a time from a descriptor of the folder, never following a symbolic
link by name (``O_NOFOLLOW``), and read through the descriptor that was checked: renaming a folder or swapping in
a link or a FIFO while ``prepare`` runs cannot make it read anything else, or hang."""

from __future__ import annotations

import os
import stat
from pathlib import PurePosixPath

import numpy as np
import onnx
from onnx.external_data_helper import ExternalDataInfo

from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.messages import file_kind
from dmlpy.onnx.elements import onnx_name
from dmlpy.runtime import Buffer, Device
from dmlpy.tensor import whole_dwords

_EXTERNAL_PIECE = 4 << 20
"""External data goes to the device in pieces of this many bytes, never whole on the host."""

_MAX_LINKS = 40
"""Symbolic links followed for one location before it is refused as a loop (Linux's own limit)."""

_NO_FOLLOW = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
"""How each component is opened: read only, never through a link, and never waiting (a FIFO opens at once and
is then refused)."""


def _external_location(tensor: onnx.TensorProto, base_dir: str | None, where: str) -> tuple[str, str, int, int | None]:
    """Where an initializer's external data lies: the model's folder (``base_dir``, refused when None), the
    location the model gives (a relative path without '..'), the offset and the length (None: to the end of the
    file)."""
    try:
        info = ExternalDataInfo(tensor)
    except ValueError as error:
        raise InvalidArgumentError(
            f"{where}: its external data's offset or length is not a byte count: {error}"
        ) from error
    location = str(info.location)
    if not location:
        raise InvalidArgumentError(f"{where} is stored externally, but its external_data names no location")
    if "\0" in location:
        raise InvalidArgumentError(
            f"{where}: its external data location {location!r} holds a NUL character, which no file name can"
        )
    if base_dir is None:
        raise InvalidArgumentError(
            f"{where} keeps its data in the file {location!r}, and the model came without the folder that holds it: "
            "prepare the .onnx file's path, or name the folder with prepare(model, base_dir=...). dmlpy never reads "
            "external data from the working directory"
        )
    if os.path.isabs(location) or ".." in PurePosixPath(location.replace("\\", "/")).parts:
        raise InvalidArgumentError(
            f"{where}: its external data file {location!r} is not a path inside the model's folder "
            f"{os.path.realpath(base_dir)}; external data is read from that folder only, never through '..' or an "
            "absolute path"
        )
    if location.replace("\\", "/").rpartition("/")[1:] in (("/", ""), ("/", ".")):
        # The walk skips '' and '.', so 'w.bin/' would open w.bin: a folder's form is refused, not read as a file.
        raise InvalidArgumentError(
            f"{where}: its external data file {location!r}: it ends in a path separator (or one and '.'), the form of "
            "a folder; external data is a regular file: name it without the trailing separator"
        )
    return base_dir, location, int(info.offset or 0), None if info.length is None else int(info.length)


def _components(path: str) -> list[str]:
    """The names ``path`` walks through, in order ('' and '.' left out)."""
    return [name for name in path.split("/") if name not in ("", ".")]


class _Walk:
    """The walk from the model's folder to one external data file: the descriptors of the folders it stands in
    (the model's folder first), so that '..' in a link's target goes back to a folder already open and never
    above the first."""

    def __init__(self, base_dir: str, location: str, where: str) -> None:
        self.folder = os.path.realpath(base_dir)
        self.prefixes = {os.path.join(self.folder, ""), os.path.join(os.path.abspath(base_dir), "")}
        """How an absolute link target names the model's folder: resolved, or as the caller named it."""
        self.location = location
        self.where = where
        self.target = ""
        """The target of the last link followed (a '..' steps out of the folder only through one)."""
        try:
            self.folders = [os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)]
        except OSError as error:
            raise self._refused(f"the model's folder {self.folder} cannot be opened: {error.strerror}") from error

    def _refused(self, why: str) -> InvalidArgumentError:
        return InvalidArgumentError(f"{self.where}: its external data file {self.location!r}: {why}")

    def _leaving(self, target: str) -> InvalidArgumentError:
        return self._refused(
            f"it goes through a symbolic link (to {target!r}) that leaves the model's folder {self.folder}; "
            "external data is read from that folder only"
        )

    def close(self) -> None:
        for descriptor in self.folders:
            os.close(descriptor)
        self.folders = []

    def open_file(self) -> int:
        """A read-only descriptor of the regular file the location names, opened as described in the module."""
        pending = _components(self.location)[::-1]
        links = 0
        while pending:
            name = pending.pop()
            if name == "..":  # only from a link's target: the location itself holds none
                if len(self.folders) == 1:
                    raise self._leaving(self.target)
                os.close(self.folders.pop())
                continue
            try:
                mode = os.stat(name, dir_fd=self.folders[-1], follow_symlinks=False).st_mode
            except FileNotFoundError as error:
                raise self._refused(f"no such file in {self.folder}") from error
            except OSError as error:
                raise self._refused(f"{name!r} in {self.folder} cannot be read: {error.strerror}") from error
            if stat.S_ISLNK(mode):
                links += 1
                if links > _MAX_LINKS:
                    raise self._refused(f"more than {_MAX_LINKS} symbolic links (a loop?)")
                pending.extend(self._link_target(name)[::-1])
            elif pending:
                if not stat.S_ISDIR(mode):
                    raise self._refused(f"{name!r} in {self.folder} is {file_kind(mode)}, not a folder")
                self.folders.append(self._open(name, os.O_DIRECTORY))
            else:
                return self._open_regular(name, mode)
        raise self._refused(f"it names the folder {self.folder} itself, not a file in it")

    def _link_target(self, name: str) -> list[str]:
        """The components the link ``name`` (in the current folder) stands for, from the current folder; an
        absolute target inside the model's folder restarts the walk there."""
        target = self.target = os.readlink(name, dir_fd=self.folders[-1])
        if not os.path.isabs(target):
            return _components(target)
        inside = next((target[len(p) :] for p in self.prefixes if (target + "/").startswith(p)), None)
        if inside is None:
            raise self._leaving(target)
        for descriptor in self.folders[1:]:
            os.close(descriptor)
        del self.folders[1:]
        return _components(inside)

    def _open(self, name: str, flags: int) -> int:
        try:
            return os.open(name, _NO_FOLLOW | flags, dir_fd=self.folders[-1])
        except OSError as error:  # a link or something else swapped in since it was looked at, or no permission
            raise self._refused(
                f"{name!r} in {self.folder} cannot be opened: {error.strerror} (did it change meanwhile?)"
            ) from error

    def _open_regular(self, name: str, mode: int) -> int:
        if not stat.S_ISREG(mode):
            raise self._refused(f"it is {file_kind(mode)} in {self.folder}, not a regular file")
        descriptor = self._open(name, 0)
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):  # swapped since it was looked at
            os.close(descriptor)
            raise self._refused(f"it is {file_kind(mode)} in {self.folder}, not a regular file")
        return descriptor


def _open_inside(base_dir: str, location: str, where: str) -> int:
    """A read-only descriptor of the regular file ``location`` names inside ``base_dir`` (see _Walk)."""
    walk = _Walk(base_dir, location, where)
    try:
        return walk.open_file()
    finally:
        walk.close()


def upload_external(
    device: Device,
    tensor: onnx.TensorProto,
    dims: tuple[int, ...],
    data_type: TensorDataType,
    base_dir: str | None,
    where: str,
) -> Buffer:
    """An initializer's external data copied to a new device buffer piece by piece."""
    folder, location, offset, length = _external_location(tensor, base_dir, where)
    if tensor.HasField("raw_data"):
        raise InvalidArgumentError(f"{where} holds raw_data and names external data; a tensor holds its data in one")
    need = (int(np.prod(dims, dtype=object)) * DATA_TYPES[data_type].bits + 7) // 8  # 4-bit: a half-filled last byte
    if length is not None and length != need:
        raise InvalidArgumentError(
            f"{where}: its external data has length {length}; its dims {list(dims)} of {onnx_name(data_type)} "
            f"take {need} bytes"
        )
    with open(_open_inside(folder, location, where), "rb") as file:
        size = os.fstat(file.fileno()).st_size
        if offset > size:
            raise InvalidArgumentError(f"{where}: offset {offset} is past the end of {location!r} ({size} bytes)")
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
