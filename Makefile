# Every target builds .venv from pyproject.toml when needed, so a fresh machine
# with nothing but python3 can run any of them.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PACKAGES := engine protocol core server client web lang bench
HOST ?= 127.0.0.1
PORT ?= 8765
DB   ?= flowergarden.sqlite3

.PHONY: help venv constraints image services serve play practice test lint typecheck pytest schema catalogues schema-js screenshot stats bench bench-quick bench-cluster chaos bot-pace clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14

# Every version comes from constraints.txt (`make constraints`), as in the image, so
# that the tests run on what ships. PIP_CONSTRAINT rather than -c: it also pins the
# setuptools that builds the editable install. The warning filter hides the box
# setuptools prints about every editable install ("Editable installation. Please be
# careful with folders..."): setuptools documents PYTHONWARNINGS for its warnings, and
# pip's build of the project inherits it.
PIP_INSTALL := PIP_CONSTRAINT=$(CURDIR)/constraints.txt PYTHONWARNINGS='ignore:Editable installation' \
	$(BIN)/python -m pip install --quiet

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(PIP_INSTALL) -e '.[dev]'
	touch $(STAMP)

# The benchmarks' own dependencies (picows, uvloop, matplotlib, py-spy): the
# benchmarks need them to run, and mypy to check the bench package.
BENCH_STAMP := $(VENV)/.installed-bench

$(BENCH_STAMP): $(STAMP)
	$(PIP_INSTALL) -e '.[dev,bench]'
	touch $(BENCH_STAMP)

venv: $(STAMP)  ## create .venv and install the project with its dev tools

# constraints.txt pins every package any install of the project takes (the server,
# the client, dev and bench extras, and setuptools, which builds it), at the versions
# a fresh install resolves today. Run it after changing a dependency in pyproject.toml,
# and commit the result: tests/test_packaging.py fails while a dependency is missing
# from it or pinned outside what pyproject.toml asks.
FRESH := $(VENV)-constraints

constraints:  ## pin every dependency anew in constraints.txt, from a fresh venv
	rm -rf $(FRESH)
	$(PYTHON) -m venv $(FRESH)
	$(FRESH)/bin/python -m pip install --quiet --upgrade pip setuptools
	$(FRESH)/bin/python -m pip install --quiet '.[dev,bench]'
	{ echo "# Made by \`make constraints\` on Python $$($(FRESH)/bin/python -c 'import platform; print(platform.python_version())'): edit pyproject.toml, not this file."; \
	  $(FRESH)/bin/python -m pip freeze --all --exclude pip --exclude flowergarden-race; } > constraints.txt
	rm -rf $(FRESH)

# The server's image, with whichever engine is here: docker when it reaches its
# daemon, else podman (a docker CLI with no engine is skipped for it). ENGINE=podman
# chooses. Podman's own image format drops HEALTHCHECK: --format docker keeps it.
# Podman also gets --no-cache: its builder reuses the layer of a RUN
# --mount=type=bind,from=build whatever the wheels in that stage now are (buildah
# issue 6609; Debian 12's podman 4.3 has it), so a cached build installs an old server.
# Docker's BuildKit keys the layer on the mounted files, as it does for COPY.
# PYTHON_IMAGE=... builds on another base (docs/operating.md, "The base image").
IMAGE ?= flowergarden:local

image:  ## build the server's image $(IMAGE) with docker or podman
	@engine="$(ENGINE)"; \
	if [ -z "$$engine" ]; then \
		if command -v docker >/dev/null && docker info >/dev/null 2>&1; then engine=docker; \
		elif command -v podman >/dev/null; then engine=podman; \
		elif command -v docker >/dev/null; then engine=docker; \
		else echo "make image needs docker or podman, and neither is installed" \
			"(Debian: apt-get install podman)" >&2; exit 1; fi; \
	fi; \
	set -x; "$$engine" build $$([ "$${engine##*/}" = podman ] && echo --format docker --no-cache) \
		$(if $(PYTHON_IMAGE),--build-arg PYTHON_IMAGE=$(PYTHON_IMAGE)) -t $(IMAGE) .

# The servers the store and bus tests start themselves (tests/services.py):
# without them those tests are skipped, or fail under FLOWERGARDEN_REQUIRE_SERVICES=1.
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

# The browser tests (tests/web) drive Debian's chromium the same way: skipped without it.
services:  ## install the Debian packages the tests use: PostgreSQL, Redis, chromium, node and npm
	@if ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 && command -v redis-server >/dev/null \
		&& test -x /usr/bin/chromium && command -v node >/dev/null && command -v npm >/dev/null; then \
		echo "PostgreSQL, Redis, chromium, node and npm are installed"; \
	else \
		$(SUDO) apt-get update && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y --no-install-recommends postgresql redis-server chromium nodejs npm; \
	fi

serve: $(STAMP)  ## run the race server on $(HOST):$(PORT) with SQLite file $(DB)
	$(BIN)/flowergarden-server --host $(HOST) --port $(PORT) --db $(DB)

# NAME goes to the client as one word, whatever it holds (quotes too): a name the
# server will not take is refused by the server's name rule, in its words.
play: $(STAMP)  ## race from this terminal against the server on $(HOST):$(PORT)
	$(BIN)/flowergarden --server ws://$(HOST):$(PORT)/ws $(if $(NAME),--name '$(subst ','\'',$(NAME))')

practice: $(STAMP)  ## race the clock alone on a winnable layout, no server
	$(BIN)/flowergarden practice

test: lint typecheck schema-js pytest  ## everything CI checks: lint, types, tests

lint: $(STAMP)  ## ruff (lint and format) and hadolint on the Dockerfile
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/hadolint Dockerfile

typecheck: $(BENCH_STAMP)  ## mypy --strict on the four packages and the benchmarks
	$(BIN)/mypy --strict $(PACKAGES)

# Two processes (pytest-xdist): most tests wait on sockets, servers and a browser.
# TEST_WORKERS=1 runs them in one, TEST_WORKERS=auto on every core.
TEST_WORKERS ?= 2

pytest: $(STAMP)  ## the test suite, on TEST_WORKERS processes (2)
	$(BIN)/pytest -q -n $(TEST_WORKERS)

schema: $(STAMP)  ## regenerate protocol/schema/*.json and web/static/js/facts.js from the models
	$(BIN)/python -m protocol.schema
	$(BIN)/python -m web.facts

catalogues: $(STAMP)  ## regenerate the page's web/static/i18n/*.json from lang/locales (docs/translating.md)
	$(BIN)/python -m web.catalogues

# ajv, the second validator the published schemas are held to (tests/protocol/
# test_schema_validators.py), from npm at the versions package-lock.json pins.
# node and npm are Debian's packages (`make services`); without them the test is
# skipped, or fails under FLOWERGARDEN_REQUIRE_SERVICES=1.
SCHEMA_JS := tests/schema_js
SCHEMA_JS_STAMP := $(SCHEMA_JS)/node_modules/.package-lock.json

$(SCHEMA_JS_STAMP): $(SCHEMA_JS)/package.json $(SCHEMA_JS)/package-lock.json
	cd $(SCHEMA_JS) && npm ci --no-audit --no-fund --loglevel=error

schema-js:  ## install ajv for the schema tests (tests/schema_js), when npm is there
	@if command -v npm >/dev/null; then $(MAKE) --no-print-directory $(SCHEMA_JS_STAMP); \
	else echo "npm is missing: the ajv schema test will be skipped (make services)"; fi

# The README's picture, taken by a browser test that writes it only when asked.
# BENCH_STAMP for Pillow (matplotlib's), which cuts it to 64 colours.
screenshot: $(BENCH_STAMP)  ## a race in the browser, written to docs/race.png (the README's picture)
	FLOWERGARDEN_REQUIRE_SERVICES=1 FLOWERGARDEN_SCREENSHOT=docs/race.png $(BIN)/pytest -q tests/web/test_screenshot.py

stats: $(STAMP)  ## deal statistics with 95% confidence intervals
	$(BIN)/python -m engine stats --deals 200000

bench: $(BENCH_STAMP)  ## the benchmarks: engine, cores, store, restoring races, load, bots, fair play, an arena, then several workers (about 24 minutes)
	$(BIN)/python -m bench.engine
	$(BIN)/python -m bench.core
	$(BIN)/python -m bench.store
	$(BIN)/python -m bench.restore
	$(BIN)/python -m bench.run
	$(BIN)/python -m bench.bots
	$(BIN)/python -m bench.fairplay
	$(BIN)/python -m bench.arena
	$(BIN)/python -m bench.cluster
	$(BIN)/python -m bench.bus

bench-quick: $(BENCH_STAMP)  ## a short benchmark run (under a minute); the last line is JSON
	$(BIN)/python -m bench.engine --quick
	$(BIN)/python -m bench.core --quick
	$(BIN)/python -m bench.store --quick
	$(BIN)/python -m bench.restore --races 200
	$(BIN)/python -m bench.arena --quick
	$(BIN)/python -m bench.run --quick

# It starts its own PostgreSQL and Redis (installed by `make services`).
bench-cluster: $(BENCH_STAMP)  ## the multi-worker benchmark: Redis, PostgreSQL, two workers (about 4 minutes)
	$(BIN)/python -m bench.cluster
	$(BIN)/python -m bench.bus

# Three workers under faults (a worker stopped, killed, cut off from Redis; Redis
# restarted; PostgreSQL stopped) while 50 races run; it starts its own PostgreSQL
# and Redis (`make services`). bench/README.md, "Faults", says how to read it.
chaos: $(BENCH_STAMP)  ## several workers under 50 faults while 50 races run; writes bench/results/chaos.md (about 15 minutes)
	$(BIN)/python -m bench.chaos

bot-pace: $(STAMP)  ## the bots' pace per level, and docs/bot-pace-level3.svg (about 10 s)
	$(BIN)/python -m bench.bot_pace --level 3 --out docs/bot-pace-level3.svg

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) $(FRESH) .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info $(SCHEMA_JS)/node_modules
