# Two entry points: `make demo` (main job on the embedded defaults) and `make test`.
# Both create the venv, install webseg and Debian's chromium when missing.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DATA ?= ../shared/data

.PHONY: setup chromium test demo lint bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

# chromium renders pages that need frames (scripts, screenshots); the headless shell (same
# Blink, no painting) renders the rest at about half the CPU (see webseg/render.py).
chromium:
	@{ command -v chromium >/dev/null 2>&1 && [ -x /usr/lib/chromium/chromium-headless-shell ]; } || { \
	  echo "installing Debian's chromium and chromium-headless-shell"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
	    chromium chromium-headless-shell >/dev/null; }

setup: $(VENV)/.installed chromium

test: setup
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

demo: setup
	$(BIN)/webseg show tests/fixtures/news.html --algo dom -o demo-overlay.png
	$(BIN)/webseg segment tests/fixtures/news.html --algo dom

lint: setup
	$(BIN)/ruff check .

bench: setup
	$(BIN)/python bench/render.py --data $(DATA)/segmentation/kreuzer-random

clean:
	rm -rf $(VENV) build *.egg-info
