# One entry point for newcomers and CI: `make demo` and `make test` (see README.md).
SHELL := /bin/bash
.DEFAULT_GOAL := help
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export GOTOOLCHAIN := local
TOOLS_PATH := $(shell tools/build.sh --path)
export PATH := $(TOOLS_PATH):$(abspath $(VENV))/bin:$(PATH)

.PHONY: help venv install system tools tools-path lint typecheck unit docs test image release demo demo-render bench soak clean

help:
	@echo "make demo   - the lifecycle loop on real kube-apiserver, etcd and Argo CD, narrated (the main job)"
	@echo "make demo-render - render the example applications with the plugin for two Kubernetes versions"
	@echo "make test   - lint, type-check and run the whole test suite (builds tools when missing)"
	@echo "make tools  - build the pinned upstream tools into $(TOOLS_PATH)"
	@echo "make docs   - build the docs site into build/site (mkdocs build --strict)"
	@echo "make release VERSION=x.y.z - chart package, image archive, SBOM and checksums in build/release"
	@echo "make image  - build the OCI image without a container engine (build/image/argocd-lifecycle.oci.tar)"

$(VENV)/.stamp: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	PYTHONWARNINGS=ignore $(PY) -m pip install -q -e '.[dev]' --config-settings editable_mode=strict
	touch $@

venv: $(VENV)/.stamp

# Strict editable mode links each file, so new modules need this re-run (cheap: no dependency changes).
install: venv
	PYTHONWARNINGS=ignore $(PY) -m pip install -q --no-deps -e . --config-settings editable_mode=strict

tools:
	tools/build.sh

system:
	tools/system-packages.sh

tools-path:
	@echo $(TOOLS_PATH)

lint: install
	$(VENV)/bin/ruff check app core plugin generators notifications tests benchmarks
	$(VENV)/bin/ruff format --check app core plugin generators notifications tests benchmarks

typecheck: install
	$(VENV)/bin/mypy

unit: install
	$(VENV)/bin/pytest -q tests/unit

# The docs site (mkdocs.yml): strict, so a broken link, a missing page or a missing snippet fails.
docs: venv
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

test: system install tools lint typecheck docs image
	tests/run-pytest.sh

# The image, daemonless and reproducible (tools/image/build.sh; as root): prints its digest and size.
image: system install tools
	tools/image/build.sh

# The release artifacts (deploy/release/release.sh): VERSION must be pyproject.toml's version.
release:
	deploy/release/release.sh --check "$(VERSION)"
	$(MAKE) image
	deploy/release/release.sh "$(VERSION)"

# The main job: the lifecycle loop on real upstream components, narrated (end-to-end scenarios 1-4, docs/contributing/end-to-end.md).
demo: system install tools image
	$(PY) -m tests.e2e.demo_loop

# The plugin alone: render the example applications for two Kubernetes versions.
demo-render: install
	@tools/build.sh helm kustomize
	$(PY) -m argocd_lifecycle.plugin.demo

# The chaos soak of deletion safety on real Argo CD (outside `make test`; docs/guide/generator.md, "How the guard is proven");
# the image first, as the e2e platform runs the plugin sidecar from it.
SEEDS ?= 1 2 3
EVENTS ?= 500
CLUSTERS ?= 30
soak: system install tools image
	$(PY) -m tests.e2e.soak $(foreach s,$(SEEDS),--seed $(s)) --events $(EVENTS) --clusters $(CLUSTERS)

bench: install tools
	@for b in benchmarks/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .pytest_cache .ruff_cache
