"""Intel's OpenCL CPU runtime from PyPI: the CPU device where no PoCL can build kernels, installed without root.

``python -m dmlpy.runtime.cpu_runtime`` (what ``make demo`` and ``make test`` run once, when they create
``.venv``) does nothing when some OpenCL device already builds a one-line kernel. Where none does (the PoCL that
the pyopencl wheels bundle compiles with LLVM 14, which fails every build on CPUs newer than it, such as AMD Zen
5, with "unknown target CPU 'generic'"), it pip-installs dmlpy's ``cpu`` extra (``intel-opencl-rt``, and
``intel-cmplr-lib-rt`` for the libimf, libsvml, libirng and libintlc it links) and registers the runtime with the
OpenCL loader of the pyopencl wheels. ``--always`` installs it even so (CI runs the device tests on both CPU
runtimes, so every kernel is compiled by two compilers).

Why a fallback, not the default: it is about 700 MB installed and under Intel's licence, not an open-source
one; and NumPy's arrays start 16 bytes past a page, short of the 128-byte alignment its zero-copy host buffers
need, so it copies them at every call: ``dml.round`` on a 16M float32 NumPy array ran several times slower there
than on PoCL (docs/performance.md has the figures).

Registering fixes the wheel's two snags. Its ICD file (``<prefix>/etc/OpenCL/vendors/intel-cpu.icd``) names the
library under conda-build's placeholder prefix, ``/opt/anaconda1anaconda2anaconda3``, and lies where the
pyopencl wheels' loader never looks: that loader reads the system's ``/etc/OpenCL/vendors`` (root's) and every
``.icd`` file in pyopencl's own ``.libs`` folder, which is how it finds the bundled PoCL. :func:`register`
writes ``intel-cpu.icd`` there, naming ``libintelocl.so`` by its absolute path; the companion libraries lie in
the same folder and the library's RUNPATH is ``$ORIGIN``, so no ``LD_LIBRARY_PATH`` is needed. The loader reads
the folder when a process first asks for platforms, so the runtime appears in processes started afterwards.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pyopencl as cl

from dmlpy.errors import UnsupportedError
from dmlpy.runtime.platforms import CPU_RUNTIME_COMMAND, list_devices

EXTRA = "cpu"
"""dmlpy's extra that lists the runtime's packages (pyproject.toml is where their versions are kept)."""
RUNTIME_PACKAGE = "intel-opencl-rt"
LIBRARY = "libintelocl.so"
PLATFORM = "Intel(R) OpenCL"
ICD_NAME = "intel-cpu.icd"


def extra_requirements() -> list[str]:
    """The requirements of dmlpy's ``cpu`` extra, read from dmlpy's installed metadata."""
    marker = f"extra == '{EXTRA}'"  # as the build backend writes the marker; some write double quotes
    found = [
        requirement.split(";")[0].strip()
        for requirement in metadata.requires("dmlpy") or []
        if requirement.partition(";")[2].strip().replace('"', "'") == marker
    ]
    if not found:
        raise UnsupportedError(
            f"dmlpy's metadata lists no {EXTRA!r} extra; reinstall dmlpy (pip install -e . in a clone) and rerun"
        )
    return found


def installed_library() -> Path | None:
    """Where pip put ``libintelocl.so`` (the file itself, not the versioned copy), or None when the runtime's
    package is not installed."""
    try:
        files = metadata.files(RUNTIME_PACKAGE) or []
    except metadata.PackageNotFoundError:
        return None
    paths = (Path(str(f.locate())).resolve() for f in files if Path(str(f)).name == LIBRARY)
    return next((path for path in paths if path.is_file()), None)


def loader_folder() -> Path:
    """pyopencl's ``.libs`` folder, whose ``.icd`` files its bundled OpenCL loader reads besides the system's."""
    folder = Path(cl.__file__).resolve().parent / ".libs"
    if not folder.is_dir():
        raise UnsupportedError(
            f"pyopencl at {folder.parent} has no .libs folder: it was built against the system's OpenCL loader, "
            f"which reads only /etc/OpenCL/vendors. Write a file naming {LIBRARY}'s path there (root), or point "
            "OCL_ICD_VENDORS at a folder holding one"
        )
    return folder


def register(library: Path, folder: Path) -> Path:
    """Write ``folder/intel-cpu.icd`` naming ``library`` by its absolute path; the file written."""
    icd = folder / ICD_NAME
    icd.write_text(f"{library.resolve()}\n", encoding="utf-8")
    return icd


PROBE_IN_NEW_PROCESS = """
import json
from dmlpy.runtime.platforms import list_devices
print(json.dumps([[e.platform, e.describe(), e.compiler_error] for e in list_devices()]))
"""


def devices_in_new_process() -> list[tuple[str, str, str | None]]:
    """(platform, description, compiler error) of every device a new process sees: this process's loader read
    its ICD files when it first listed platforms, before the runtime was registered."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE_IN_NEW_PROCESS], capture_output=True, text=True, check=False, timeout=300
    )
    if done.returncode != 0:
        raise UnsupportedError(f"listing the OpenCL devices in a new process failed: {done.stderr.strip()[-2000:]}")
    return [(platform, described, error) for platform, described, error in json.loads(done.stdout)]


def install() -> None:
    """pip-install the ``cpu`` extra's packages into this Python's environment."""
    requirements = extra_requirements()
    print(f"installing Intel's OpenCL CPU runtime from PyPI: {' '.join(requirements)}", flush=True)
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *requirements], check=False)
    if done.returncode != 0:
        raise UnsupportedError(f"pip could not install {' '.join(requirements)} (exit status {done.returncode})")


def add_runtime() -> str:
    """Install and register Intel's CPU runtime and check, in a new process, that its device builds a kernel;
    the device's description."""
    install()
    library = installed_library()
    if library is None:
        raise UnsupportedError(f"{RUNTIME_PACKAGE} is installed but holds no {LIBRARY}; reinstall it")
    icd = register(library, loader_folder())
    seen = devices_in_new_process()
    intel = [(described, error) for platform, described, error in seen if platform == PLATFORM]
    if not intel:
        raise UnsupportedError(
            f"{icd} names {library}, yet a new process lists no {PLATFORM} platform "
            f"(it lists: {', '.join(described for _, described, _ in seen) or 'nothing'})"
        )
    described, error = intel[0]
    if error is not None:
        raise UnsupportedError(f"{described} is registered ({icd}) but cannot build a kernel: {error}")
    print(f"registered {icd} -> {library}", flush=True)
    return described


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=f"python {CPU_RUNTIME_COMMAND}",
        description="Add Intel's OpenCL CPU runtime from PyPI (no root) when no OpenCL device builds kernels.",
    )
    parser.add_argument(
        "--always", action="store_true", help="add it even where a device builds (a second CPU implementation)"
    )
    args = parser.parse_args(argv)
    if not args.always:
        working = [entry for entry in list_devices() if entry.compiler_error is None]
        if working:
            print(f"OpenCL device {working[0].describe()} builds kernels: Intel's CPU runtime is not needed")
            return 0
    try:
        described = add_runtime()
    except UnsupportedError as error:
        print(f"{parser.prog}: {error}", file=sys.stderr)
        return 1
    print(f"Intel's OpenCL CPU runtime is ready: {described}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
