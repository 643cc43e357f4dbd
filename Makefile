# Every target creates .venv and installs the project first, so each works on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test soak lint schema bench clean

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

clean:
	rm -rf $(VENV)
