"""The built wheel works where it is installed: dmlpy imports from the install location (not this source tree)
and finds its OpenCL kernel sources inside the installed package; the wheel carries what every package has
(py.typed, the LICENSE its metadata names, the version of pyproject.toml); and a user's code type-checks
against the installed package with mypy --strict.

Deliberately not marked slow: it runs in the default suite (about ten seconds: hatchling builds in about two,
mypy checks the user's script in about five).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]

CHECK = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    import numpy as np

    import dmlpy as dml
    from dmlpy.kernels import opencl_source_dir

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
        got = dml.round(x, mode=mode)
        assert got.dtype == np.float16
        assert got.view(np.uint16).tolist() == np.array(want, np.float16).view(np.uint16).tolist(), (mode, got)
    print("installed dmlpy ok:", dml.__file__)
    """
)


def run(command: list[str], **options: object) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, **options)  # type: ignore[call-overload]
    assert result.returncode == 0, f"{command[:4]} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return result  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(REPO)])
    wheels = list(dist.glob("dmlpy-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_installs_and_finds_its_kernels(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(target), str(wheel)])
    assert (target / "dmlpy" / "opencl" / "element_wise_round.cl").is_file()

    env = {key: value for key, value in os.environ.items() if key not in {"PYTHONPATH", "PYTHONHOME"}}
    env["PYTHONPATH"] = str(target)
    env["PYTHONSAFEPATH"] = "1"
    result = run([sys.executable, "-c", CHECK, str(target)], cwd=elsewhere, env=env)
    assert "installed dmlpy ok" in result.stdout


def test_wheel_carries_py_typed_license_and_version(wheel: Path) -> None:
    version = PROJECT["version"]
    assert wheel.name.startswith(f"dmlpy-{version}-"), wheel.name
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert "dmlpy/py.typed" in names  # PEP 561: type checkers read the installed package's annotations
        info = f"dmlpy-{version}.dist-info"
        metadata = archive.read(f"{info}/METADATA").decode()
        license_text = archive.read(f"{info}/licenses/LICENSE").decode()
    assert f"\nVersion: {version}\n" in metadata
    assert PROJECT["license"] == "MIT" and "\nLicense-Expression: MIT\n" in metadata
    assert license_text == (REPO / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License")
    # What an index shows beside the name: who wrote it, where it lives, what it is for.
    assert "\nAuthor: the dmlpy contributors\n" in metadata
    urls = {line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Project-URL: ")}
    assert urls == {f"{label}, {url}" for label, url in PROJECT["urls"].items()} and len(urls) >= 3
    classifiers = [line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Classifier: ")]
    assert classifiers == PROJECT["classifiers"] and "Typing :: Typed" in classifiers


# A user's script, written as the README writes dmlpy. It must type-check under --strict: every name resolves
# to its annotated type (dml.round included, which dmlpy loads lazily), none to Any.
USER_SCRIPT = """
import numpy as np
import numpy.typing as npt

import dmlpy as dml

td = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=(1, 1, 2, 4))
rd = dml.ElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td, rounding_mode="TOWARD_INFINITY")
dml.validate(rd, dml.FeatureLevel.FL_3_0)
size: int = td.total_tensor_size_in_bytes
x = np.array([-2.5, 0.5, 1.5], dtype=np.float32)
y: npt.NDArray[np.float32] = dml.round(x, mode="half_to_even")
device: dml.Device = dml.default_device()
version: str = dml.__version__
"""

# The same names misused: each line must be an error, which proves the types are real (an Any would pass).
MISUSE_SCRIPT = """
import numpy as np

import dmlpy as dml

wrong_result: str = dml.round(np.zeros(3, np.float32))
wrong_size: str = dml.calc_buffer_tensor_size(dml.TensorDataType.FLOAT32, (4,))
wrong_version: int = dml.__version__
dml.validate("not a descriptor", dml.FeatureLevel.FL_3_0)
"""


def test_user_code_type_checks_against_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    """The wheel installed into a fresh virtual environment (dependencies from this one, through a .pth file),
    and this environment's mypy run with that environment's interpreter: mypy reads dmlpy from the install,
    which it does only because of py.typed (without it: 'missing library stubs or py.typed marker')."""
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)])
    site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    (site / "dmlpy_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")

    user = tmp_path / "user"
    user.mkdir()
    (user / "good.py").write_text(USER_SCRIPT, encoding="utf-8")
    (user / "misuse.py").write_text(MISUSE_SCRIPT, encoding="utf-8")
    # dmlpy's descriptors are pydantic models: a user type-checks them with pydantic's plugin, as dmlpy does.
    (user / "mypy.ini").write_text("[mypy]\nplugins = pydantic.mypy\n", encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if key not in {"PYTHONPATH", "MYPYPATH"}}

    where = run([str(python), "-c", "import dmlpy; print(dmlpy.__file__, dmlpy.__version__)"], cwd=user, env=env)
    assert where.stdout.split() == [str(site / "dmlpy" / "__init__.py"), PROJECT["version"]]
    version = run([str(venv / "bin" / "dmlpy"), "--version"], cwd=user, env=env)
    assert version.stdout == f"dmlpy {PROJECT['version']}\n"

    mypy = [sys.executable, "-m", "mypy", "--strict", "--config-file", "mypy.ini", "--python-executable", str(python)]
    mypy += ["--cache-dir", str(tmp_path / "mypy-cache")]
    checked = subprocess.run(
        [*mypy, "good.py", "misuse.py"], cwd=user, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    report = checked.stdout + checked.stderr
    errors = [line for line in report.splitlines() if ": error:" in line]
    assert not [line for line in errors if line.startswith("good.py")], report
    assert {int(line.split(":")[1]) for line in errors if line.startswith("misuse.py")} == {6, 7, 8, 9}, report
    assert "py.typed" not in report and "import-untyped" not in report, report
