# kartu: `make run` serves the game, `make test` runs the whole suite.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
HOST   ?= 127.0.0.1

# Installs come from hashed lock files, never from pyproject.toml's ranges:
#   requirements.lock          the newest allowed versions, with the dev tools: make run, make test
#   requirements-runtime.lock  the same versions without the dev tools: the Dockerfile
# Both are written by `make lock` (see README, "Dependencies").
LOCK        := requirements.lock
RUNTIME_LOCK := requirements-runtime.lock
# uv resolves the lock files; it lives in its own venv, the project never needs it.
UV_VERSION  := 0.13.9
TOOLS       := .venv-tools
UV          := $(TOOLS)/bin/uv
COMPILE     := $(UV) pip compile --quiet pyproject.toml - --universal \
               --python-version 3.11 --generate-hashes --custom-compile-command 'make lock'
# Beside the project's dependencies the locks pin pip, and pyproject.toml's build-system
# requirements to build kartu itself (installed with --no-build-isolation, so nothing
# unhashed is downloaded).
BUILD_REQS  := { echo 'pip>=24'; $(PYTHON) -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"], sep="\n")'; }

.PHONY: setup run test lint migrate bench load lock lock-upgrade clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: $(LOCK) pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/python -m pip check
	touch $@

setup: $(VENV)/.installed

migrate: setup
	$(BIN)/python -m app.migrate

run: migrate
	$(BIN)/python -m app --host $(HOST) --port $(PORT)

test: setup
	$(BIN)/pytest

lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: setup
	$(BIN)/python -m bench.bot_strength
	$(BIN)/python -m bench.bot_strength --game indonesian_remi
	$(BIN)/python -m bench.bot_strength --game traditional_remi
	$(BIN)/python -m bench.partition_speed
	$(BIN)/python -m bench.broker_fanout
	$(BIN)/python -m bench.remmi_demmi_trading

# The load benchmark: kartu and a raw WebSocket server under the same load.
load: setup
	$(BIN)/python -m bench.load --shape turn --rooms 200 --rate 2400 --duration 20
	$(BIN)/python -m bench.load --shape realtime --rooms 50 --rate 600 --duration 20
	$(BIN)/python -m bench.load --shape idle --connections 2000

# Lock files. `make lock` keeps every pin that still fits pyproject.toml and resolves
# only what changed; `make lock-upgrade` takes the newest of everything
# (`make lock-upgrade UPGRADE='-P fastapi'` upgrades one package).
$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install --quiet 'uv==$(UV_VERSION)'

lock: | $(UV)
	$(BUILD_REQS) | $(COMPILE) --extra dev $(UPGRADE) -o $(LOCK)
	$(BUILD_REQS) | $(COMPILE) -c $(LOCK) -o $(RUNTIME_LOCK)

lock-upgrade: UPGRADE ?= --upgrade
lock-upgrade: lock

clean:
	rm -rf $(VENV) $(TOOLS) data .pytest_cache .mypy_cache .ruff_cache .hypothesis
