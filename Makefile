# Two commands matter: `make demo` and `make test`. Both build the virtual environment themselves.
SHELL := /bin/bash
# The Python of the virtual environment: the functions' own (the Lambda runtime in stacks/bundling.py) where this
# machine has it, else the newest 3.11+ that actually runs (pyenv shims exist for versions that are not
# selected). Choose another with `make test PYTHON=python3.12` (after `make clean`: an existing .venv is kept).
FUNCTIONS_PYTHON := $(shell sed -n 's/^RUNTIME = lambda_.Runtime.PYTHON_3_\([0-9]*\)$$/python3.\1/p' stacks/bundling.py)
PYTHON ?= $(shell for p in $(FUNCTIONS_PYTHON) python3.13 python3.12 python3.11 python3; do \
	if $$p -c 'import sys; assert sys.version_info >= (3, 11)' >/dev/null 2>&1; then command -v $$p; break; fi; done)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION := 1
export PYTHONPATH := lambdas:.

.PHONY: venv node demo test docs docs-gen wheel deploy lint typecheck unit integration infrastructure synth bench clean lock python

# Everything installs from the lock (exact versions, hashes checked); `make lock` refreshes it. Then the
# checkout itself, editable and without dependencies (the lock has them): its .pth puts the package's two
# import roots (the repository's top and lambdas/, pyproject.toml dev-mode-dirs) on the path, and it
# installs the `kafka-lineage` script.
venv: $(STAMP)
$(STAMP): requirements-dev.lock
	@test -n "$(PYTHON)" || { echo "Python 3.11+ is required ($(FUNCTIONS_PYTHON), python3.13, python3.12, python3.11 or python3)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes -r requirements-dev.lock
	$(PY) -m pip install --quiet --no-deps --editable .
	touch $(STAMP)

# Resolve the pinned requirements (every platform and Python from 3.11) into the locks, with hashes: the
# development one, and the functions' one the dependency layer is built from. Needs the package index.
UV_COMPILE := $(VENV)/bin/uv pip compile --quiet --universal --python-version 3.11 --generate-hashes \
	--no-strip-extras --annotation-style line --custom-compile-command "make lock"
lock: venv
	$(UV_COMPILE) lambdas/requirements.txt -o lambdas/requirements.lock
	$(UV_COMPILE) requirements-dev.txt -o requirements-dev.lock

# The interpreter the virtual environment is (or would be) made with, and the functions' one.
python:
	@echo "PYTHON=$(PYTHON) (functions: $(FUNCTIONS_PYTHON); .venv: $$(test -x $(PY) && $(PY) -V))"

node: node_modules/.installed
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch node_modules/.installed

demo: venv
	$(PY) -m local.demo

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

# lambdas/ is held to mypy's strict flags (per module in pyproject.toml [tool.mypy]), the rest to the defaults.
typecheck: venv
	$(VENV)/bin/mypy lambdas stacks kafka_lineage_cdk local bench tests app.py docs/gen_*.py
	$(VENV)/bin/mypy examples/existing-app/app.py
	$(VENV)/bin/mypy examples/two-accounts/app.py

# The whole suite, after lint and types, with the line coverage of lambdas/: fails under the floor in
# pyproject.toml ([tool.coverage.report] fail_under). Each part of the suite on its own below.
test: lint typecheck docs wheel
	$(VENV)/bin/pytest -n 2 -q --cov --cov-report=term:skip-covered

# The docs site (mkdocs.yml), built strictly: a broken link, a missing page in the nav or an event fixture
# that is gone fails the build. Output under build/site (ignored).
docs: venv
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

# The generated parts of the docs pages (Cog blocks calling docs/gen_*.py), rewritten in place: run it after
# changing settings, stacks, metrics, results or readings, and commit the pages. tests/unit/test_generated_pages.py
# (and tests/infrastructure/test_permissions_page.py) fail while a page differs from what this writes.
DOCS_GEN := $(VENV)/bin/cog -I docs --verbosity=1 -U
docs-gen: venv
	$(DOCS_GEN) -r docs/*.md

unit: venv
	$(VENV)/bin/pytest -n 2 -q tests/unit

integration: venv
	$(VENV)/bin/pytest -n 2 -q tests/integration

infrastructure: venv
	$(VENV)/bin/pytest -n 2 -q tests/infrastructure

# The wheel as a user gets it: `python -m build` (the sdist, and the wheel built from it), installed into a
# fresh virtual environment of its own (no checkout on its path: neither PYTHONPATH nor the repository's
# venv), which synthesizes the existing-app example from a temporary directory, cdk-nag included (the code
# asset holds the function packages, staged from site-packages). There tests/installed_wheel.py checks the
# one-name scheme (the wheel's top-level packages are the checkout's import roots, all from site-packages,
# every module of the command line and the constructs imports, no local/ and no `local` command) and lists
# the commands, each of which must answer `--help`. The Lambda layer comes from the checkout's cache (build/),
# as a user's comes from theirs. pip fetches the build backend (hatchling) and the wheel's dependencies from
# the package index or its cache. The new venv has its own pip: the stack bundles the functions' layer with
# the Python that synthesizes it (a fresh clone has no cached layer yet). `twine check --strict` first reads
# both distributions' metadata as the package index would (the README rendered as the project's description):
# a release (.github/workflows/release.yml) publishes exactly what this target built and checked.
WHEEL_VENV := build/wheel-venv
TWINE := $(VENV)/bin/twine
wheel: venv
	rm -rf build/dist $(WHEEL_VENV)
	$(PY) -m build --outdir build/dist . >/dev/null
	$(TWINE) check --strict build/dist/*
	$(PY) -m venv $(WHEEL_VENV)
	$(PY) -m pip --python $(WHEEL_VENV)/bin/python install --quiet --disable-pip-version-check --no-compile \
		"$$(ls build/dist/*.whl)[nag]"
	set -e; app=$$(mktemp -d); trap 'rm -rf "$$app"' EXIT; cp examples/existing-app/app.py "$$app"; \
	cp tests/installed_wheel.py "$$app/check_installed.py"; \
	cd "$$app" && env -u PYTHONPATH JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20 CDK_OUTDIR="$$app/cdk.out" KAFKA_LINEAGE_BUILD_DIR="$(CURDIR)/build" \
		"$(CURDIR)/$(WHEEL_VENV)/bin/python" app.py; \
	test -f cdk.out/DataPlatform.template.json; ls cdk.out/asset.*/schema_sync/handler.py >/dev/null; \
	test -z "$$(ls -d cdk.out/asset.*/click cdk.out/asset.*/stacks cdk.out/asset.*/kafka_lineage_cdk 2>/dev/null)"; \
	env -u PYTHONPATH "$(CURDIR)/$(WHEEL_VENV)/bin/kafka-lineage" --version; \
	commands=$$(env -u PYTHONPATH "$(CURDIR)/$(WHEEL_VENV)/bin/python" -P check_installed.py); \
	for command in $$commands; do \
		env -u PYTHONPATH "$(CURDIR)/$(WHEEL_VENV)/bin/kafka-lineage" $$command --help >/dev/null; done
	@echo "wheel: $$(ls build/dist/*.whl) installs, embeds and synthesizes; one name per module"

# `cdk deploy` of the repository's app with the cdk.json context (CDK_CONTEXT adds -c options).
deploy: venv node
	npx --no-install cdk deploy $(CDK_CONTEXT)

synth: venv node
	npx --no-install cdk synth --quiet $(CDK_CONTEXT)

bench: venv
	$(PY) -m bench.run

clean:
	rm -rf $(VENV) node_modules cdk.out build .pytest_cache .mypy_cache .ruff_cache .import_linter_cache .coverage .coverage.*
