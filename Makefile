# One command for the main job, one for the whole test suite; each does its own set-up.
#   make demo    the simulated board plays a demo game
#   make test    every test (CPython, MicroPython unix port, browser)
SHELL := /bin/bash
VENV := .venv
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
APT_PACKAGES := socat librsvg2-bin chromium strace bubblewrap nodejs npm
APT_COMMANDS := socat rsvg-convert chromium strace bwrap node npm

.PHONY: demo test setup apt clean

demo: setup
	yard sim --demo

test: setup
	python -m pytest -q

setup: $(VENV)/.installed apt host/pico/node_modules/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test]'
	touch $@

# The emulated Pico (rp2040js, the version host/pico/package-lock.json pins)
host/pico/node_modules/.installed: host/pico/package-lock.json | apt
	cd host/pico && npm ci --no-audit --no-fund --silent
	touch $@

# System packages the tests drive (as root; CI runs as root).
apt:
	@missing=""; for c in $(APT_COMMANDS); do command -v $$c >/dev/null || missing=1; done; \
	if [ -n "$$missing" ]; then \
		echo "installing $(APT_PACKAGES) with apt-get"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES) >/dev/null; \
	fi

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis test-artifacts host/pico/node_modules
