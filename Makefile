# Two entry points, each creating the local virtual environment on first use:
#   make demo   the main job: build descriptors, validate them, run Round on the default OpenCL device
#   make test   lint, types, the docs site and the whole test suite
#   make docs   the API reference site (MkDocs, strict: a warning fails), into site/
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck docs unit bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/dmlpy demo

lint: $(STAMP)
	$(BIN)/ruff check dmlpy tests benchmarks examples scripts docs/hooks
	$(BIN)/ruff format --check dmlpy tests benchmarks examples scripts docs/hooks

typecheck: $(STAMP)
	$(BIN)/mypy dmlpy

docs: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

unit: $(STAMP)
	$(BIN)/python -m pytest -q tests

test: lint typecheck docs unit

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_round.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist build site
