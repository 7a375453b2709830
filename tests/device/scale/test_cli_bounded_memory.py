"""`dmlpy round` and `dmlpy quantize` on a .npy file larger than the memory the process may use: the command
streams the file in chunks (a chunk-sized buffer in, one out, written to a temporary file renamed at the end), so
a child limited to less data memory than the file holds (``RLIMIT_DATA``, set before it starts) converts it all.
The output is checked at sampled elements and by a hash of every byte against NumPy's rounding, chunk by chunk."""

from __future__ import annotations

import hashlib
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ELEMENTS = 96 * 2**20  # float32: 384 MiB, above the limit below
LIMIT = 320 * 2**20
CHUNK = 8 * 2**20


def limited() -> None:
    resource.setrlimit(resource.RLIMIT_DATA, (LIMIT, LIMIT))


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.npy"
    array = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(ELEMENTS,))
    for start in range(0, ELEMENTS, CHUNK):
        array[start : start + CHUNK] = np.arange(start, start + CHUNK, dtype=np.float64) * 0.25 - 5e6
    array.flush()
    del array
    return path


def digest(path: Path, convert: object = None) -> str:
    """SHA-256 of a .npy file's data, chunk by chunk, optionally converted first (the reference)."""
    data = np.load(path, mmap_mode="r")
    hasher = hashlib.sha256()
    for start in range(0, data.size, CHUNK):
        chunk = np.asarray(data[start : start + CHUNK])
        hasher.update((convert(chunk) if callable(convert) else chunk).tobytes())
    return hasher.hexdigest()


def run_limited(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dmlpy", *args, "--quiet"],
        preexec_fn=limited,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_limit_is_below_the_file(big_file: Path) -> None:
    assert big_file.stat().st_size > LIMIT
    # and it binds: loading the whole file in the limited child fails
    load = subprocess.run(
        [sys.executable, "-c", f"import numpy as np; np.load({str(big_file)!r}).sum()"],
        preexec_fn=limited,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert load.returncode != 0 and "MemoryError" in load.stderr


def test_round_streams_a_file_larger_than_memory(big_file: Path, tmp_path: Path) -> None:
    target = tmp_path / "rounded.npy"
    done = run_limited("round", str(big_file), str(target), "--mode", "half_to_even")
    assert done.returncode == 0, done.stderr[-3000:]
    got = np.load(target, mmap_mode="r")
    source = np.load(big_file, mmap_mode="r")
    assert got.shape == source.shape and got.dtype == source.dtype
    sample = np.random.default_rng(0).integers(0, ELEMENTS, 2000)
    assert (got[sample] == np.rint(source[sample])).all()
    assert digest(target) == digest(big_file, np.rint)


def test_quantize_streams_a_file_larger_than_memory(big_file: Path, tmp_path: Path) -> None:
    target = tmp_path / "quantized.npy"
    done = run_limited("quantize", str(big_file), str(target), "--scale", "40000", "--zero-point", "128")
    assert done.returncode == 0, done.stderr[-3000:]

    def reference(chunk: np.ndarray) -> np.ndarray:
        return np.clip(np.rint(chunk / np.float32(40000)) + 128, 0, 255).astype(np.uint8)

    assert digest(target) == digest(big_file, reference)
