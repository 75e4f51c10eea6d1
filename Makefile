# The two commands of the README: `make demo` (set up, then run the example tournament and the
# league of head-to-head matches, with their reports) and
# `make test` (set up, then lint, type-check and test). Both create .venv on first use.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
export SDL_VIDEODRIVER ?= dummy
export SDL_AUDIODRIVER ?= dummy
# The browser the report's tests drive (tests/browser.py reads the same variable).
export PACMAN_ARENA_CHROMIUM ?= /usr/bin/chromium

.PHONY: setup browser demo test bench bench-short build-fast clean-fast test-fast

setup: $(STAMP) browser

# Debian's chromium for the browser tests: installed with apt-get when missing and run as
# root (as CI is), otherwise a stop that says what to install. Never skipped in silence.
browser:
	@if [ -x "$(PACMAN_ARENA_CHROMIUM)" ]; then :; \
	elif [ "$(PACMAN_ARENA_CHROMIUM)" = /usr/bin/chromium ] && [ "$$(id -u)" = 0 ]; then \
		echo "installing Debian's chromium for the browser tests (apt-get)"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null && \
		apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium >/dev/null && \
		[ -x /usr/bin/chromium ] || { echo "apt-get could not install chromium" >&2; exit 1; }; \
	else \
		echo "The browser tests need Chromium at $(PACMAN_ARENA_CHROMIUM)." >&2; \
		echo "Install it as root: apt-get install chromium (Debian), or set" >&2; \
		echo "PACMAN_ARENA_CHROMIUM to the path of a Chromium or Chrome executable" >&2; \
		echo "(on Ubuntu, chromium comes as a snap: /snap/bin/chromium)." >&2; \
		exit 1; \
	fi

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The demo needs no browser: only the virtualenv.
demo: $(STAMP)
	$(VENV)/bin/tournament run tournaments/example.yaml
	$(VENV)/bin/tournament report tournaments/example.yaml
	$(VENV)/bin/tournament run tournaments/league.yaml
	$(VENV)/bin/tournament report tournaments/league.yaml

test: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(PY) -m pytest

# The optional compiled build (pacman/fastbuild.py): the engine's hot modules compiled with
# mypyc in place; `clean-fast` goes back to the sources. `test-fast` builds it and runs the
# tests of the rules, the course API, the searches and the baselines on it (CI runs both).
build-fast: $(STAMP)
	$(PY) -m pacman.fastbuild build

clean-fast:
	@if [ -x $(PY) ]; then $(PY) -m pacman.fastbuild clean; fi

FAST_TESTS := tests/test_fastbuild.py tests/test_rules.py tests/test_compat.py \
	tests/test_perft.py tests/test_golden.py tests/test_reference_transcripts.py \
	tests/test_search.py tests/test_baselines.py tests/test_tictactoe.py \
	tests/test_ghost_search.py tests/test_game.py tests/test_frames.py tests/test_outputs.py \
	tests/test_tune_evaluation.py

test-fast: build-fast
	PACMAN_ARENA_EXPECT_COMPILED=1 $(PY) -m pytest $(FAST_TESTS)

bench: $(STAMP)
	$(PY) benchmarks/engine.py
	$(PY) benchmarks/strength.py
	$(PY) benchmarks/sandbox.py
	$(PY) benchmarks/tournament_costs.py

bench-short: $(STAMP)
	$(PY) benchmarks/engine.py --short
	$(PY) benchmarks/strength.py --short
	$(PY) benchmarks/sandbox.py --short
	$(PY) benchmarks/tournament_costs.py --short
