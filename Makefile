# Every target creates .venv and installs the project first, so each works on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test soak lint schema bench upstream clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

demo: $(BIN)/.installed
	bash examples/run-demo.sh $(BIN)/planner

test: $(BIN)/.installed
	$(BIN)/planner schema --check
	$(BIN)/ruff check planner tests benchmarks examples
	$(BIN)/mypy
	$(BIN)/pytest
	$(BIN)/lit -q tests/lit

soak: $(BIN)/.installed
	HYPOTHESIS_PROFILE=soak $(BIN)/pytest -m "slow or not slow" --durations=20

lint: $(BIN)/.installed
	$(BIN)/ruff check planner tests benchmarks examples
	$(BIN)/mypy

schema: $(BIN)/.installed
	$(BIN)/planner schema

bench: $(BIN)/.installed
	for b in benchmarks/bench_*.py; do $(BIN)/python $$b || exit 1; done

# Upstream's parser reading back what planner-opt prints (not part of `test`): the tt-lang 1.1.1
# wheel, which needs CPython 3.12, in a virtualenv of its own. PYTHON312 names the interpreter.
PYTHON312 ?= $(firstword $(foreach p,python3.12 $(wildcard $(HOME)/.pyenv/versions/3.12*/bin/python3.12),$(shell $(p) -c 'print("$(p)")' 2>/dev/null)))
UPSTREAM_VENV := .venv-upstream

$(UPSTREAM_VENV)/.installed:
	@test -n "$(PYTHON312)" || { echo "make upstream needs CPython 3.12 (set PYTHON312)"; exit 1; }
	$(PYTHON312) -m venv $(UPSTREAM_VENV)
	$(UPSTREAM_VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps tt-lang==1.1.1
	touch $@

upstream: $(BIN)/.installed $(UPSTREAM_VENV)/.installed
	$(BIN)/python tests/upstream/check.py $(UPSTREAM_VENV)/bin/python

clean:
	rm -rf $(VENV) $(UPSTREAM_VENV)
