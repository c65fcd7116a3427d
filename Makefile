# Two commands matter: `make demo` and `make test`. Both build the virtual environment themselves.
SHELL := /bin/bash
# The newest Python 3.11+ that actually runs (pyenv shims exist for versions that are not selected).
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	if $$p -c 'import sys; assert sys.version_info >= (3, 11)' >/dev/null 2>&1; then command -v $$p; break; fi; done)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION := 1
export PYTHONPATH := lambdas:.

.PHONY: venv node demo test lint typecheck unit integration infrastructure synth bench clean

venv: $(STAMP)
$(STAMP): requirements.txt requirements-dev.txt lambdas/requirements.txt
	@test -n "$(PYTHON)" || { echo "Python 3.11+ is required (python3.11, python3.12, python3.13 or python3)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

node: node_modules/.installed
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch node_modules/.installed

demo: venv
	$(PY) -m local.demo

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: venv
	$(VENV)/bin/mypy lambdas stacks local bench tests app.py

# The whole suite, after lint and types; each part of it on its own below.
test: lint typecheck
	$(VENV)/bin/pytest -n 2 -q

unit: venv
	$(VENV)/bin/pytest -n 2 -q tests/unit

integration: venv
	$(VENV)/bin/pytest -n 2 -q tests/integration

infrastructure: venv
	$(VENV)/bin/pytest -n 2 -q tests/infrastructure

synth: venv node
	npx --no-install cdk synth --quiet $(CDK_CONTEXT)

bench: venv
	$(PY) -m bench.run

clean:
	rm -rf $(VENV) node_modules cdk.out build .pytest_cache .mypy_cache .ruff_cache
