"""The descriptor layer imports no OpenCL: building and validating descriptors works without pyopencl. And no
process pays for ml_dtypes (0.5 s of CPU) before it meets one of its types (dmlpy/ml_types.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dmlpy

BUILD_AND_VALIDATE = """
import dmlpy as dml
td = dml.BufferTensorDesc(DataType="FLOAT16", Sizes=[1, 2, 3, 4])
rd = dml.ElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td, rounding_mode="TOWARD_ZERO")
op = dml.OperatorDesc.model_validate_json(dml.OperatorDesc.model_validate(rd).model_dump_json(by_alias=True))
dml.validate(op, "DML_FEATURE_LEVEL_2_1")
try:
    dml.validate(rd, "2_0")
except dml.UnsupportedError:
    pass
else:
    raise AssertionError("FL 2_0 must be refused")
assert dml.calc_buffer_tensor_size("FLOAT32", (65536, 65536)) == 2**34
"""

# Makes any import of pyopencl fail, so a hidden import anywhere in the descriptor layer cannot pass unnoticed.
BLOCK_PYOPENCL = """
import sys
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name == "pyopencl" or name.startswith("pyopencl."):
            raise ImportError("pyopencl is blocked in this test")
        return None
sys.meta_path.insert(0, _Block())
"""

CHECK_MODULES = """
import sys
loaded = sorted(m for m in sys.modules if m.split(".")[0] == "pyopencl" or m.split(".")[:2] in (["dmlpy", "runtime"],
                ["dmlpy", "arrays"]))
assert not loaded, loaded
print("OK")
"""


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    # Import the same dmlpy this test process imported, from a neutral working directory.
    package_root = str(Path(dmlpy.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
        env=env,
    )


@pytest.mark.parametrize("prelude", [pytest.param("", id="plain"), pytest.param(BLOCK_PYOPENCL, id="pyopencl-blocked")])
def test_descriptor_layer_imports_no_opencl(prelude: str, tmp_path: Path) -> None:
    result = _run(prelude + BUILD_AND_VALIDATE + CHECK_MODULES, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "OK"


def test_the_check_itself_can_fail(tmp_path: Path) -> None:
    # Guard against a vacuous test: importing pyopencl on purpose must trip the same check.
    pytest.importorskip("pyopencl")
    result = _run(BUILD_AND_VALIDATE + "import pyopencl\n" + CHECK_MODULES, tmp_path)
    assert result.returncode != 0
    assert "pyopencl" in result.stderr


NO_ML_DTYPES_UNTIL_NEEDED = """
import sys
import numpy as np
import dmlpy as dml
import dmlpy.arrays, dmlpy.cli.round, dmlpy.cli.quantize
from dmlpy.dtypes import DATA_TYPES, data_type_of
from dmlpy.nibbles import is_nibble_dtype
assert data_type_of(np.float32) == dml.TensorDataType.FLOAT32 and not is_nibble_dtype(np.int8)
assert "ml_dtypes" not in sys.modules, "imported before any of its types was asked for"
assert DATA_TYPES[dml.TensorDataType.INT4].numpy.name == "int4"
import ml_dtypes
assert data_type_of(ml_dtypes.bfloat16).name == "BFLOAT16" and is_nibble_dtype(ml_dtypes.uint4)
print("OK")
"""


def test_ml_dtypes_is_imported_when_one_of_its_types_is_needed(tmp_path: Path) -> None:
    result = _run(NO_ML_DTYPES_UNTIL_NEEDED, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "OK"
