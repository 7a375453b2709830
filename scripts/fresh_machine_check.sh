#!/usr/bin/env bash
# A new user's first run, simulated: clone this repository's committed HEAD into a temporary folder, hide every
# system OpenCL driver, start from empty OpenCL caches, run `make demo`, then check dml.round bit for bit against
# np.rint on the default device. No root is used.
#
#   scripts/fresh_machine_check.sh                 # the bundled PoCL as it is on this CPU
#   scripts/fresh_machine_check.sh --pocl-fails    # and as on AMD Zen 5, where it cannot build any kernel
#   scripts/fresh_machine_check.sh --make-test     # `make test` in the clone too (the whole suite: minutes)
#
# --make-test runs as a user's machine would, without CI=true (a test whose tool is missing skips, as it does for a
# user) and with a PATH that holds only Python, make and the POSIX basics (links in a folder of their own), so that
# nothing else this machine has installed (a system `oclgrind`, Chromium, clinfo, compilers) is seen: the suite
# must pass with what `make test` itself installs. CI runs it (.ci/run).
#
# Hiding: OCL_ICD_VENDORS names an empty folder, so the OpenCL loader of the pyopencl wheels reads no
# /etc/OpenCL/vendors file; it still reads pyopencl's own .libs folder, where the bundled PoCL (and Intel's CPU
# runtime, once the set-up adds it) are registered, as on a machine without a system OpenCL.
# --pocl-fails: POCL_EXTRA_BUILD_FLAGS makes the bundled PoCL's compiler fail every build (its kernels' __kernel
# keyword becomes an unknown type). On Zen 5 the failure is "unknown target CPU 'generic'" from LLVM 14 instead,
# but what dmlpy sees is the same: a listed CPU device whose every clBuildProgram fails with an "error:" line, so
# the set-up must add Intel's CPU runtime and dmlpy must pick it. The variable reaches PoCL only; Intel's runtime
# ignores it.
# The pip cache is kept (only speed depends on it); the pyopencl and PoCL kernel caches start empty.
set -euo pipefail
pocl_fails=false
make_test=false
for argument in "$@"; do
    case "$argument" in
        --pocl-fails) pocl_fails=true ;;
        --make-test) make_test=true ;;
        *) echo "usage: $0 [--pocl-fails] [--make-test]" >&2; exit 2 ;;
    esac
done
repository="$(cd "$(dirname "$0")/.." && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/no-system-icd" "$scratch/cache"
export PIP_CACHE_DIR="${PIP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pip}"
export XDG_CACHE_HOME="$scratch/cache"
export OCL_ICD_VENDORS="$scratch/no-system-icd"
unset PYOPENCL_CTX DMLPY_DEVICE DMLPY_TEST_DEVICES
if $pocl_fails; then
    export POCL_EXTRA_BUILD_FLAGS="-D__kernel=simulated_unknown_cpu"
fi
git clone --quiet "$repository" "$scratch/dmlpy"
cd "$scratch/dmlpy"
echo "fresh clone at $scratch/dmlpy ($(git log -1 --format=%h)); system OpenCL hidden; bundled PoCL failing: $pocl_fails"
start=$SECONDS
make demo
echo "make demo: exit 0 in $((SECONDS - start)) s"
.venv/bin/python - "$pocl_fails" <<'EOF'
import sys

import numpy as np

import dmlpy as dml

device = dml.default_device()
if sys.argv[1] == "true":
    assert "Intel(R) OpenCL" in device.name, f"the bundled PoCL fails, yet the default device is {device.name}"
rng = np.random.default_rng(27)
halves = np.arange(-4096, 4096, dtype=np.float32) + 0.5
specials = np.array([0.0, -0.0, np.inf, -np.inf, 2**23 - 0.5, 2**23 + 1, -(2**24), 1e-45, -1e-45], np.float32)
x = np.concatenate([rng.standard_normal(1 << 20).astype(np.float32) * 4096, halves, specials])
assert np.array_equal(dml.round(x).view(np.uint32), np.rint(x).view(np.uint32)), "float32 differs from np.rint"
h = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
with np.errstate(invalid="ignore"):  # NumPy flags the signalling NaNs among the bit patterns
    got, want = dml.round(h), np.rint(h)
numbers = ~np.isnan(h)
assert np.array_equal(got.view(np.uint16)[numbers], want.view(np.uint16)[numbers]), "float16 differs from np.rint"
assert np.isnan(got[~numbers]).all(), "a float16 NaN did not stay NaN"
print(f"dml.round == np.rint bit for bit on {x.size} float32 values and all {h.size} float16 bit patterns, on {device.name}")
EOF
.venv/bin/dmlpy devices
if $make_test; then
    # The commands a machine with only Python and make has: coreutils, grep, sed, bash, git, and `ld` (binutils),
    # which the bundled PoCL runs to link each kernel (where it is missing, `dmlpy devices` says so and the set-up
    # adds Intel's CPU runtime: the --pocl-fails run covers that path).
    mkdir "$scratch/bin"
    for tool in python3 make git ld bash sh env cat cp mv rm ln ls mkdir rmdir touch chmod mktemp dirname basename \
        readlink realpath uname id date sleep timeout true false printf echo test tr cut head tail sort uniq wc \
        grep sed awk find xargs tee stat du df nproc; do
        if found="$(command -v "$tool")"; then ln -s "$found" "$scratch/bin/$tool"; fi
    done
    start=$SECONDS
    env -u CI PATH="$scratch/bin" make test PYTHON=python3
    echo "make test: exit 0 in $((SECONDS - start)) s"
fi
