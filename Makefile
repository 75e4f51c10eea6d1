# The two commands of the README: `make demo` (set up, then run the example tournament and the
# league of head-to-head matches, with their reports) and
# `make test` (set up, then lint, type-check and test). Both create .venv on first use.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
export SDL_VIDEODRIVER ?= dummy
export SDL_AUDIODRIVER ?= dummy

.PHONY: setup demo test bench bench-short

setup: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: setup
	$(VENV)/bin/tournament run tournaments/example.yaml
	$(VENV)/bin/tournament report tournaments/example.yaml
	$(VENV)/bin/tournament run tournaments/league.yaml
	$(VENV)/bin/tournament report tournaments/league.yaml

test: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(PY) -m pytest

bench: setup
	$(PY) benchmarks/engine.py
	$(PY) benchmarks/strength.py
	$(PY) benchmarks/sandbox.py
	$(PY) benchmarks/tournament_costs.py

bench-short: setup
	$(PY) benchmarks/engine.py --short
	$(PY) benchmarks/strength.py --short
	$(PY) benchmarks/sandbox.py --short
	$(PY) benchmarks/tournament_costs.py --short
