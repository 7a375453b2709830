"""Reading the command's input files, with one-line errors (CliError) for anything unreadable."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.cli.common import CliError
from dmlpy.descriptors_json import Descriptor, parse_descriptor


def read_json(path: str) -> Any:
    """The JSON value in ``path`` (``-`` for stdin); CliError for an unreadable file or bad syntax."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a directory, not a JSON file") from None
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise CliError(f"{path}: cannot read: {reason}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise CliError(f"{path}: not valid JSON: {error.msg} at line {error.lineno} column {error.colno}") from None


def read_descriptor(path: str) -> Descriptor:
    """The descriptor in the JSON file ``path``; DescriptorProblems when it breaks a rule."""
    return parse_descriptor(read_json(path))


def load_npy(path: Path) -> npt.NDArray[Any]:
    """The float32 or float16 array in ``path``, memory-mapped; CliError naming what else the file is."""
    try:
        with path.open("rb") as handle:
            magic = handle.read(6)
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a directory, not a .npy file") from None
    except OSError as error:
        raise CliError(f"{path}: cannot read: {error.strerror or error}") from None
    if magic.startswith(b"PK"):
        raise CliError(f"{path}: is a .npz archive of several arrays; give one .npy file")
    if magic != b"\x93NUMPY":
        raise CliError(f"{path}: not a .npy file (it does not start with NumPy's \\x93NUMPY header)")
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a directory, not a .npy file") from None
    except PermissionError:
        raise CliError(f"{path}: permission denied") from None
    except (ValueError, OSError, EOFError) as error:
        raise CliError(f"{path}: not a readable .npy file ({error})") from None
    if not isinstance(array, np.ndarray):
        raise CliError(f"{path}: holds several arrays (.npz); give one .npy file")
    if array.dtype.kind != "f" or array.dtype.itemsize not in (2, 4):
        raise CliError(
            f"{path}: holds {array.dtype} data; Round takes float32 or float16 "
            "(DML_TENSOR_DATA_TYPE_FLOAT32, FLOAT16; DirectML's Round has no integer or FLOAT64 form)"
        )
    return array
