"""The built wheel works where it is installed: dmlpy imports from the install location (not this source tree)
and finds its OpenCL kernel sources inside the installed package.

Deliberately not marked slow: it runs in the default suite (a few seconds: hatchling builds in about two).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CHECK = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    import numpy as np

    import dmlpy as dml
    from dmlpy.codegen import opencl_source_dir

    target = Path(sys.argv[1]).resolve()
    assert Path(dml.__file__).resolve().is_relative_to(target), dml.__file__
    kernels = opencl_source_dir().resolve()
    assert kernels.is_relative_to(target), kernels
    assert (kernels / "element_wise_round.cl").is_file()

    x = np.array([-2.5, -1.5, -0.5, -0.0, 0.5, 1.5, 2.5, 3.498046875, np.inf, -np.inf], dtype=np.float16)
    expected = {
        "half_to_even": [-2.0, -2.0, -0.0, -0.0, 0.0, 2.0, 2.0, 3.0, np.inf, -np.inf],
        "half_away_from_zero": [-3.0, -2.0, -1.0, -0.0, 1.0, 2.0, 3.0, 3.0, np.inf, -np.inf],
        "toward_zero": [-2.0, -1.0, -0.0, -0.0, 0.0, 1.0, 2.0, 3.0, np.inf, -np.inf],
    }
    for mode, want in expected.items():
        got = dml.round(x, mode)
        assert got.dtype == np.float16
        assert got.view(np.uint16).tolist() == np.array(want, np.float16).view(np.uint16).tolist(), (mode, got)
    print("installed dmlpy ok:", dml.__file__)
    """
)


def run(command: list[str], **options: object) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, **options)  # type: ignore[call-overload]
    assert result.returncode == 0, f"{command[:4]} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return result  # type: ignore[no-any-return]


def test_wheel_installs_and_finds_its_kernels(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    target = tmp_path / "site"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(REPO)])
    wheels = list(dist.glob("dmlpy-*.whl"))
    assert len(wheels) == 1, wheels
    run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(target), str(wheels[0])])
    assert (target / "dmlpy" / "opencl" / "element_wise_round.cl").is_file()

    env = {key: value for key, value in os.environ.items() if key not in {"PYTHONPATH", "PYTHONHOME"}}
    env["PYTHONPATH"] = str(target)
    env["PYTHONSAFEPATH"] = "1"
    result = run([sys.executable, "-c", CHECK, str(target)], cwd=elsewhere, env=env)
    assert "installed dmlpy ok" in result.stdout
