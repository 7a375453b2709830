"""Reading the command's input files, with one-line errors (CliError) for anything unreadable."""

from __future__ import annotations

import io
import json
import math
import os
import stat
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from dmlpy.cli.common import CliError
from dmlpy.descriptors_json import Descriptor, parse_descriptor
from dmlpy.messages import file_kind
from dmlpy.ml_types import is_ml_dtype, ml_dtype


def _stat_mode(path: Path) -> int | None:
    try:
        return os.stat(path).st_mode
    except OSError:
        return None


def open_regular(path: Path, what: str, advice: str = "") -> io.BufferedReader:
    """``path`` opened for reading; CliError unless it is a regular file, naming what it is instead of ``what``
    (what the command reads), followed by ``advice``. Never blocks on a FIFO: every command reads through it."""

    def not_regular(mode: int) -> CliError:
        return CliError(f"{path}: is {file_kind(mode)}, not {what}{advice}")

    # Non-blocking only to open: a FIFO's open would otherwise wait for a writer before it can be refused.
    nonblocking = getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, os.O_RDONLY | nonblocking | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except OSError as error:  # permission, a symlink loop (ELOOP), a socket (ENXIO: it has nothing to open), ...
        mode = _stat_mode(path)
        if mode is not None and not stat.S_ISREG(mode):
            raise not_regular(mode) from None
        raise CliError(f"{path}: cannot read: {error.strerror or error}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise not_regular(mode)
    if nonblocking:
        os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


JSON_BYTES_LIMIT = 64 * 2**20
"""The most bytes ``validate`` and ``explain`` read of a descriptor, from a file or standard input. A graph node
is about a kilobyte of JSON, so this holds tens of thousands of them; without a bound, an endless input
(``/dev/zero``, ``yes |``) would fill memory before the JSON parser could refuse it."""


def _bytes(count: int) -> str:
    return f"{count} bytes" + (f" ({count / 2**20:.4g} MiB)" if count >= 2**20 else "")


def _onnx_model(path: str, data: bytes) -> CliError | None:
    """The error for an ONNX model given where a descriptor belongs, or None for anything else. A serialised
    ModelProto begins with its ir_version field (tag 0x08: field 1, a varint), as onnx and the exporters write it,
    a byte no JSON text begins with; a tiny model may be all ASCII and so pass for text, hence the check here
    rather than only among the non-UTF-8 files."""
    if not (data.startswith(b"\x08") or path.lower().endswith(".onnx")):
        return None
    model = repr(path if path != "-" else "model.onnx")
    return CliError(
        f"{path}: an ONNX model, not a DirectML descriptor (JSON); run it with dmlpy.onnx: "
        f"dmlpy.onnx.prepare({model}).run(inputs) (see docs/api/onnx.md)"
    )


def _not_text(path: str, data: bytes, error: UnicodeDecodeError) -> CliError:
    """The error for a file that is not UTF-8 text: a .npy or other binary file given where JSON belongs."""
    if data.startswith(b"\x93NUMPY"):
        what = "it is a .npy file"
    elif data.startswith(b"PK"):
        what = "it is a zip archive (.npz?)"
    else:
        what = f"byte 0x{data[error.start]:02x} at offset {error.start} is not UTF-8"
    return CliError(f"{path}: not a text JSON file ({what}); give a descriptor as UTF-8 JSON text")


def _too_big(path: str, head: bytes, size: int | None) -> CliError:
    """The error for a descriptor over JSON_BYTES_LIMIT: ``size`` bytes, or None where only the excess is known
    (standard input, a file that grew as it was read)."""
    held = "" if size is None else f" holds {_bytes(size)},"
    return _onnx_model(path, head) or CliError(
        f"{path}:{held} over the {_bytes(JSON_BYTES_LIMIT)} dmlpy reads of a JSON descriptor; give a "
        "descriptor's JSON file"
    )


def _read_stdin(count: int) -> bytes:
    if sys.stdin is None:  # started with standard input closed (`<&-`)
        raise CliError("-: standard input is closed; give the descriptor's file name, or pipe the JSON in")
    buffer = getattr(sys.stdin, "buffer", None)  # None where stdin was replaced by a text stream
    return buffer.read(count) if buffer is not None else sys.stdin.read(count).encode("utf-8")


def _json_bytes(path: str) -> bytes:
    """The bytes of the descriptor file ``path`` (``-``: standard input), JSON_BYTES_LIMIT at most."""
    limit = JSON_BYTES_LIMIT
    if path == "-":
        data = _read_stdin(limit + 1)  # a pipe or terminal has no size to check first
    else:
        advice = "; give a regular file, or pipe the JSON to standard input as -"
        with open_regular(Path(path), "a JSON file", advice) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > limit:
                raise _too_big(path, handle.read(1), size)
            # Bounded even so: the size may be stale (a file still being written) or 0 (/proc's files).
            data = handle.read(limit + 1)
    if len(data) > limit:
        raise _too_big(path, data, None)
    return data


def read_json(path: str) -> Any:
    """The JSON value in ``path`` (``-`` for stdin); CliError for a file that is not regular, too large, binary
    or an ONNX model, and for bad syntax."""
    try:
        data = _json_bytes(path)
    except OSError as error:
        raise CliError(f"{path}: cannot read: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _onnx_model(path, data) or _not_text(path, data, error) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise _onnx_model(path, data) or CliError(
            f"{path}: not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from None
    except RecursionError:
        # json's decoder recurses once per [ or {: a deep enough document exhausts Python's stack.
        raise CliError(f"{path}: not usable JSON: arrays or objects nested too deeply") from None
    except ValueError:
        # Python refuses to convert integers longer than sys.get_int_max_str_digits() (CVE-2020-10735).
        limit = sys.get_int_max_str_digits()
        raise CliError(f"{path}: not usable JSON: an integer has more than {limit} digits") from None


def read_descriptor(path: str) -> Descriptor:
    """The descriptor in the JSON file ``path``; DescriptorProblems when it breaks a rule."""
    return parse_descriptor(read_json(path))


class NpyFile:
    """An open .npy file: its header, and its data read chunk by chunk with plain reads.

    Plain reads rather than a memory map: a file truncated while it is read gives a short read (an error
    naming the file) where a map gives SIGBUS, which kills the process with no message.
    """

    def __init__(
        self, path: Path, handle: io.BufferedReader, dtype: np.dtype[Any], shape: tuple[int, ...], fortran: bool
    ):
        self.path, self.handle, self.dtype, self.shape, self.fortran_order = path, handle, dtype, shape, fortran
        self.data_offset = handle.tell()
        self.size = math.prod(shape)  # Python ints: a huge declared shape cannot overflow or warn
        self.nbytes = self.size * dtype.itemsize

    def __enter__(self) -> NpyFile:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.handle.close()

    def _truncated(self) -> CliError:
        found = max(0, os.fstat(self.handle.fileno()).st_size - self.data_offset)
        return CliError(f"{self.path}: truncated: expected {self.nbytes} bytes of data, found {found}")

    def check_length(self) -> None:
        """CliError when the file holds fewer data bytes than its header declares."""
        if os.fstat(self.handle.fileno()).st_size - self.data_offset < self.nbytes:
            raise self._truncated()

    def read_into(self, buffer: memoryview) -> None:
        """Fill ``buffer`` with the next bytes of data; CliError if the file ends first (truncated meanwhile)."""
        filled = 0
        while filled < len(buffer):
            count = self.handle.readinto(buffer[filled:])
            if not count:
                raise self._truncated()
            filled += count


def stored_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype a .npy header's ``descr`` means here. np.save writes ml_dtypes' bfloat16 as two raw bytes
    (``<V2``), and np.load gives back ``|V2`` data: a plain 2-byte void is read as bfloat16."""
    if dtype.kind == "V" and dtype.itemsize == 2 and dtype.names is None and dtype.subdtype is None:
        return ml_dtype("bfloat16")
    return dtype


def dtype_words(dtype: np.dtype[Any]) -> str:
    """A dtype as messages name it: ``float32``, ``>f4`` for non-native byte order, ``bfloat16 (.npy |V2)``."""
    if is_ml_dtype(dtype, "bfloat16"):
        return "bfloat16 (.npy |V2)"
    if dtype.kind == "V":
        return f"{dtype.str} (raw bytes)"
    return dtype.name if dtype.isnative or dtype.byteorder == "|" else dtype.str


def open_npy(path: Path, accepted: Sequence[np.dtype[Any]], takes: str) -> NpyFile:
    """The .npy file ``path``, open, its header read, holding one of the ``accepted`` dtypes (either byte
    order); CliError naming what else it is and, in ``takes``, what the command takes."""
    handle = open_regular(path, "a .npy file")
    try:
        magic = handle.read(6)
        if magic.startswith(b"PK"):
            raise CliError(f"{path}: is a .npz archive of several arrays; give one .npy file")
        if magic != b"\x93NUMPY":
            raise CliError(f"{path}: not a .npy file (it does not start with NumPy's \\x93NUMPY header)")
        handle.seek(0)
        try:
            version = np.lib.format.read_magic(handle)
            if version not in ((1, 0), (2, 0), (3, 0)):
                raise ValueError(f"format version {version[0]}.{version[1]} is not one NumPy writes")
            # 3.0 differs from 2.0 only in encoding the header as UTF-8 rather than Latin-1, which is the same
            # bytes for the ASCII a numeric dtype's header holds. Python 2 headers warn: not for the user.
            read_header = (
                np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                shape, fortran, dtype = read_header(handle)
        except (ValueError, OSError, EOFError, RecursionError, MemoryError) as error:
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise CliError(f"{path}: not a readable .npy file ({reason})") from None
        if any(extent < 0 for extent in shape):
            raise CliError(f"{path}: not a readable .npy file (negative dimension in shape {shape})")
        dtype = stored_dtype(dtype)
        if dtype.hasobject or dtype.newbyteorder("=") not in accepted:
            raise CliError(f"{path}: holds {dtype_words(dtype)} data; {takes}")
        npy = NpyFile(path, handle, dtype, shape, fortran)
        npy.check_length()
    except BaseException:
        handle.close()
        raise
    return npy
