# Every target builds .venv from pyproject.toml when needed, so a fresh machine
# with nothing but python3 can run any of them.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PACKAGES := engine protocol core server client bench
HOST ?= 127.0.0.1
PORT ?= 8765
DB   ?= flowergarden.sqlite3

.PHONY: help venv services serve play practice test lint typecheck pytest schema schema-js stats bench bench-quick bench-cluster clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The benchmarks' own dependencies (picows, uvloop, matplotlib, py-spy): the
# benchmarks need them to run, and mypy to check the bench package.
BENCH_STAMP := $(VENV)/.installed-bench

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $(BENCH_STAMP)

venv: $(STAMP)  ## create .venv and install the project with its dev tools

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

play: $(STAMP)  ## race from this terminal against the server on $(HOST):$(PORT)
	$(BIN)/flowergarden --server ws://$(HOST):$(PORT)/ws $(if $(NAME),--name $(NAME))

practice: $(STAMP)  ## a single-player game, no server
	$(BIN)/flowergarden practice

test: lint typecheck schema-js pytest  ## everything CI checks: lint, types, tests

lint: $(STAMP)  ## ruff (lint and format) and hadolint on the Dockerfile
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/hadolint Dockerfile

typecheck: $(BENCH_STAMP)  ## mypy --strict on the four packages and the benchmarks
	$(BIN)/mypy --strict $(PACKAGES)

pytest: $(STAMP)  ## the test suite
	$(BIN)/pytest -q

schema: $(STAMP)  ## regenerate protocol/schema/*.json from the models
	$(BIN)/python -m protocol.schema

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

stats: $(STAMP)  ## deal statistics with 95% confidence intervals
	$(BIN)/python -m engine stats --deals 200000

bench: $(BENCH_STAMP)  ## the benchmarks: engine, cores, store, restoring races, load, bots, then several workers (about 18 minutes)
	$(BIN)/python -m bench.engine
	$(BIN)/python -m bench.core
	$(BIN)/python -m bench.store
	$(BIN)/python -m bench.restore
	$(BIN)/python -m bench.run
	$(BIN)/python -m bench.bots
	$(BIN)/python -m bench.cluster

bench-quick: $(BENCH_STAMP)  ## a short benchmark run (under a minute); the last line is JSON
	$(BIN)/python -m bench.engine --quick
	$(BIN)/python -m bench.core --quick
	$(BIN)/python -m bench.store --quick
	$(BIN)/python -m bench.restore --races 200
	$(BIN)/python -m bench.run --quick

# It starts its own PostgreSQL and Redis (installed by `make services`).
bench-cluster: $(BENCH_STAMP)  ## the multi-worker benchmark: Redis, PostgreSQL, two workers (about 4 minutes)
	$(BIN)/python -m bench.cluster

bot-pace: $(STAMP)  ## the bots' pace per level, and docs/bot-pace-level3.svg (about 10 s)
	$(BIN)/python -m bench.bot_pace --level 3 --out docs/bot-pace-level3.svg

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info $(SCHEMA_JS)/node_modules
