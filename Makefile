# One command for the main job, one for the whole test suite; each does its own set-up.
#   make demo    the simulated board plays a demo game
#   make test    every test (CPython, MicroPython unix port, browser)
SHELL := /bin/bash
VENV := .venv
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
# command:package pairs; only the packages whose command is missing are installed (a machine with
# NodeSource's nodejs has npm already, and Debian's npm package conflicts with it)
APT_NEEDS := socat:socat rsvg-convert:librsvg2-bin chromium:chromium strace:strace bwrap:bubblewrap \
	node:nodejs npm:npm ngspice:ngspice

.PHONY: demo test setup apt clean

demo: setup
	yard sim --demo

test: setup
	python -m pytest -q -n auto --dist loadfile --no-loadscope-reorder

setup: $(VENV)/.installed apt host/pico/node_modules/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test,bench]'
	touch $@

# The emulated Pico (rp2040js, the version host/pico/package-lock.json pins)
host/pico/node_modules/.installed: host/pico/package-lock.json | apt
	cd host/pico && npm ci --no-audit --no-fund --silent
	touch $@

# System packages the tests drive (as root; CI runs as root).
apt:
	@missing=""; for pair in $(APT_NEEDS); do \
		command -v $${pair%%:*} >/dev/null || missing="$$missing $${pair#*:}"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing$$missing with apt-get"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis test-artifacts host/pico/node_modules
