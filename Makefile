# Two entry points, each creating the local virtual environment on first use:
#   make demo   the main job: build descriptors, validate them, run Round on the default OpenCL device
#   make test   lint, types and the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/dmlpy demo

lint: $(STAMP)
	$(BIN)/ruff check dmlpy tests benchmarks examples scripts
	$(BIN)/ruff format --check dmlpy tests benchmarks examples scripts

typecheck: $(STAMP)
	$(BIN)/mypy dmlpy

unit: $(STAMP)
	$(BIN)/python -m pytest -q tests

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_round.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist build
