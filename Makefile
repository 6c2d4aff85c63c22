# NeSt — the two commands a newcomer needs: `make demo` and `make test`.
# Each sets up what it needs (a virtualenv in .venv, the Rust build, the Python package).

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMPS := .stamps
# Shared reference material (traces, MQSim files); tests skip with a reason when it is absent.
export NEST_SHARED ?= $(abspath ../shared)

# What the demo needs (the package's own dependencies and its build backend), and what only the
# tests add (pyproject.toml's `test` extra: Ray, scikit-learn and fio-plot are large — the demo's
# venv is ~400 MB without them, ~900 MB with).
PY_DEPS   := "maturin>=1.9.4,<2.0" "numpy>=1.24" "pyarrow>=14" "matplotlib>=3.7"
TEST_DEPS := "pytest>=8" "hypothesis>=6" "ray" "scikit-learn>=1.3" "fio-plot==1.1.21"
SOURCES := $(shell find crates python -name '*.rs' -o -name '*.py' -o -name 'Cargo.toml' 2>/dev/null) Cargo.toml pyproject.toml

.PHONY: demo test test-rust test-python test-install lint bench build clean help

help:
	@echo "make demo   - set up, run the default scenario, print a summary, write a report"
	@echo "make test   - set up and run every test (rustfmt and clippy checks, cargo + pytest)"
	@echo "make lint   - rustfmt and clippy checks only"
	@echo "make bench  - engine, replay and whole-pipeline benchmarks (figures go in BENCHMARKS.md);"
	@echo "              ANCHORS=1 also installs ns-3's wheel (~500 MB with cppyy) to run it beside NeSt"

$(STAMPS)/venv: Makefile
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found (NeSt needs Python >= 3.9)"; exit 1; }
	@command -v cargo >/dev/null || { echo "error: cargo not found: install Rust (https://rustup.rs) first"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(PY_DEPS)
	@mkdir -p $(STAMPS) && touch $@

$(STAMPS)/test-deps: $(STAMPS)/venv
	@echo "installing the test dependencies (pytest, hypothesis, Ray, scikit-learn, fio-plot)"
	$(PY) -m pip install --quiet $(TEST_DEPS)
	@touch $@

# The package is built exactly as `pip install .` does (maturin backend, release profile);
# --no-build-isolation reuses the venv's maturin instead of fetching it again each time. -v lets
# cargo's progress through (a release build takes minutes; pip alone would print nothing).
$(STAMPS)/build: $(STAMPS)/venv $(SOURCES)
	@echo "building nestsim (release; cargo's progress follows)"
	@{ $(PY) -m pip install -v --no-build-isolation --no-deps --force-reinstall . 2>&1; echo $$? > $(STAMPS)/build.rc; } \
		| tee $(STAMPS)/build.log | grep -E --line-buffered "^ *(Compiling|Finished) " || true
	@test "$$(cat $(STAMPS)/build.rc)" = 0 || { tail -40 $(STAMPS)/build.log; echo "error: the build failed (whole log: $(STAMPS)/build.log)"; exit 1; }
	@$(PY) -c "import nestsim; print('nestsim', nestsim.__version__, 'installed')"
	@touch $@

build: $(STAMPS)/build

# The demo answers the project's question on one scenario: the same run with E2E QoS and with
# every layer ignoring the class, then the comparison (headline first).
NO_QOS := --set qos.host=ignore --set qos.network=ignore --set qos.transport=ignore --set qos.nvme=ignore --set qos.device=ignore
demo: $(STAMPS)/build
	$(VENV)/bin/nestsim run examples/demo.toml -o out/demo/qos
	$(VENV)/bin/nestsim run examples/demo.toml -o out/demo/no-qos -q $(NO_QOS)
	$(VENV)/bin/nestsim report out/demo/qos
	@echo
	$(VENV)/bin/nestsim compare out/demo/no-qos out/demo/qos --labels "no QoS,E2E QoS" -o out/demo
	@echo
	@$(PY) -c "import json; print('==>', json.load(open('out/demo/compare.json'))['headline'])"
	@echo "open out/demo/compare.html (both runs) and out/demo/qos/report.html in a browser"

# rustfmt (rustfmt.toml: the house's long lines) and clippy, warnings as errors: both come with
# rustup's default profile (`rustup component add rustfmt clippy` where they do not).
lint:
	cargo fmt --all --check || { echo "make lint: run 'cargo fmt --all'"; exit 1; }
	cargo clippy --workspace --all-targets --quiet -- -D warnings

# Compiling progress, then a dot per test (terse) and each failure in full.
test-rust: lint
	cargo test --workspace -- --format terse

test-python: $(STAMPS)/build $(STAMPS)/test-deps
	$(PY) -m pytest -q tests

# `pip install .` from a clean virtualenv, exactly as a user would (fetches maturin itself).
# Run by `make test` under CI (CI=true) so a missing install step fails there first.
test-install:
	rm -rf .stamps/install-venv
	$(PYTHON) -m venv .stamps/install-venv
	.stamps/install-venv/bin/python -m pip install --quiet .
	.stamps/install-venv/bin/nestsim --version
	.stamps/install-venv/bin/python -c "import nestsim, tomllib; r = nestsim.run(tomllib.load(open('examples/demo.toml', 'rb')), overrides=['run.duration=40ms']); assert r.summary['conservation'] == 'ok'; print('clean-venv install OK')"
	rm -rf .stamps/install-venv

ifeq ($(CI),true)
test: test-rust test-install test-python
else
test: test-rust test-python
endif

bench: $(STAMPS)/build
	@if [ -n "$(ANCHORS)" ]; then $(PY) -m pip install --quiet "ns3>=3.44"; fi
	cargo run --release --quiet -p nest-bench
	$(PY) benches/replay.py
	$(PY) benches/pipeline.py

clean:
	rm -rf $(STAMPS) $(VENV) target out
