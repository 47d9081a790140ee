# Quick start (see README): `make run` starts the application, `make test` runs every test headless.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
ROBOT ?= robots/puma560.json

# Debian packages Qt's xcb platform, Mesa's software OpenGL and Xvfb need.
APT_PACKAGES := xvfb xauth libegl1 libgl1-mesa-dri libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 \
	libxcb-keysyms1 libxcb-shape0 libdbus-1-3 libfontconfig1 libglib2.0-0 fonts-dejavu-core

.PHONY: run test fuzz bench system-deps venv clean

run: venv
	$(PY) main.py $(ROBOT)

test: system-deps venv
	QT_QPA_PLATFORM=xcb $(PY) -m pytest -q

# The property tests with fresh random examples, twenty times as many as the suite replays.
fuzz: venv
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -q tests/model tests/project

bench: venv
	$(PY) -m benchmarks

# Installs the Debian packages only when one is missing (as root, or through sudo).
system-deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:" $$missing; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
