# Quick start (see README): `make run` starts the application, `make test` runs every test headless.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
ROBOT ?= robots/puma560.json

# Debian packages the window needs on a bare Debian 12: Qt's xcb platform, Mesa's software OpenGL, fonts,
# and Xvfb with xauth so that it can also run on a machine without a screen (xvfb-run).
RUN_PACKAGES := xvfb xauth libegl1 libgl1 libgl1-mesa-dri libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 \
	libxcb-keysyms1 libxcb-shape0 libdbus-1-3 libfontconfig1 libglib2.0-0 fonts-dejavu-core
# ... and what the whole test suite needs besides: OpenMP for Pinocchio (libgomp1), a C compiler for the
# generated-code tests (g++ for the C header) and the machine code of one state (python3-dev: Python.h), pdflatex for the LaTeX report test, GNU Octave for the generated MATLAB code.
TEST_PACKAGES := $(RUN_PACKAGES) libgomp1 gcc g++ libc6-dev python3-dev texlive-latex-base octave

.PHONY: run test lint fuzz bench system-deps run-deps test-deps venv clean check-fresh

run: run-deps venv
	$(PY) main.py $(ROBOT)

# on every core (pytest-xdist; TEST_JOBS=1 for one process), each worker with its own Xvfb (pytest-xvfb)
TEST_JOBS ?= auto

test: test-deps venv lint
	QT_QPA_PLATFORM=xcb $(PY) -m pytest -q -rs -n $(TEST_JOBS)

# ruff over everything, mypy over the headless core, the layer order of the core (import-linter's
# contracts; all three configured in pyproject.toml, the layers explained in docs/architecture.md)
lint: venv
	$(VENV)/bin/ruff check designer tests benchmarks main.py
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# The property tests with fresh random examples, twenty times as many as the suite replays.
fuzz: venv
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -q tests/model tests/project

bench: venv
	$(PY) -m benchmarks

# Installs the Debian packages only when one is missing (as root, or through sudo).
run-deps:
	@$(MAKE) --no-print-directory system-deps PACKAGES="$(RUN_PACKAGES)"

test-deps:
	@$(MAKE) --no-print-directory system-deps PACKAGES="$(TEST_PACKAGES)"

system-deps:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:" $$missing; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# The README's two commands on a bare Debian 12 (debootstrap), from a clone of this repository's HEAD.
check-fresh:
	tools/check-fresh.sh

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
