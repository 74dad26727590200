# kartu: `make run` serves the game, `make test` runs the whole suite.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
HOST   ?= 127.0.0.1

# Installs come from hashed lock files, never from pyproject.toml's ranges:
#   requirements.lock          the newest allowed versions, with the dev tools: make run, make test
#   requirements-runtime.lock  the same versions without the dev tools: the Dockerfile
#   requirements-lowest.lock   every direct dependency at its lower bound: make test-lowest
# All three are written by `make lock` (see README, "Dependencies").
LOCK        := requirements.lock
RUNTIME_LOCK := requirements-runtime.lock
LOWEST_LOCK := requirements-lowest.lock
LOWEST_VENV := .venv-lowest
# The tests that prove pyproject.toml's lower bounds (browser and bench tests need the dev tools' newest).
LOWEST_TESTS := tests/engine tests/app
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
# `-P name` for each direct dependency: in $(LOWEST_LOCK) they follow their lower bounds
# both ways, not the pins already there.
DIRECT_P     = $(shell $(PYTHON) -c 'import re, tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; print(*("-P " + re.match(r"[\w.-]+", r)[0] for r in p["dependencies"] + p["optional-dependencies"]["dev"]))')

.PHONY: setup run test test-lowest lint migrate bench load soak lock lock-upgrade clean

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

# The engine's tests are pure computation: they run on every core. The server tests
# (each starts its own servers, databases and ports, and spends most of its time waiting
# on them) run three files at a time: they wait more than they compute, and on two cores
# a fourth only queues for the CPU. The browser tests run two at a time: each waits on
# its page and its server about as much as Chromium computes.
PURE_TESTS    := tests/engine
BROWSER_TESTS := tests/browser
SERVER_TESTS_AT_ONCE := -n 3 --dist loadfile
test: setup
	$(BIN)/pytest -n auto $(PURE_TESTS)
	$(BIN)/pytest $(SERVER_TESTS_AT_ONCE) --ignore=$(PURE_TESTS) --ignore=$(BROWSER_TESTS)
	$(BIN)/pytest -n 2 $(BROWSER_TESTS)

# The engine and app tests again, in $(LOWEST_VENV): every direct dependency at the
# lowest version pyproject.toml allows ($(LOWEST_LOCK)).
$(LOWEST_VENV)/bin/python:
	$(PYTHON) -m venv $(LOWEST_VENV)

$(LOWEST_VENV)/.installed: $(LOWEST_LOCK) pyproject.toml | $(LOWEST_VENV)/bin/python
	$(LOWEST_VENV)/bin/python -m pip install --quiet --require-hashes -r $(LOWEST_LOCK)
	$(LOWEST_VENV)/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .
	$(LOWEST_VENV)/bin/python -m pip check
	touch $@

# The property tests try a quarter of their examples there (tests/examples.py): this run
# proves the tests pass at the lower bounds; `make test` tries the properties in full.
LOWEST_PYTEST := KARTU_EXAMPLES_SCALE=0.25 $(LOWEST_VENV)/bin/pytest
test-lowest: $(LOWEST_VENV)/.installed
	$(LOWEST_VENV)/bin/python -c "$$CHECK_LOWEST"
	$(LOWEST_PYTEST) -n auto $(PURE_TESTS)
	$(LOWEST_PYTEST) $(SERVER_TESTS_AT_ONCE) $(filter-out $(PURE_TESTS),$(LOWEST_TESTS))

# Fails when $(LOWEST_LOCK) has drifted from pyproject.toml: every direct dependency
# must sit exactly at its lower bound (run `make lock` after changing one).
define CHECK_LOWEST
from importlib.metadata import requires, version
from packaging.requirements import Requirement
from packaging.version import Version
stale = []
for line in requires("kartu"):
    req = Requirement(line)
    low = [s.version for s in req.specifier if s.operator == ">="]
    if low and Version(version(req.name)) != Version(low[0]):
        stale.append(f"{req.name} {version(req.name)}, lower bound {low[0]}")
if stale:
    raise SystemExit("$(LOWEST_LOCK) is not at pyproject.toml's lower bounds (make lock): "
                     + "; ".join(stale))
endef
export CHECK_LOWEST

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

# The fault suite (tests/fault) for longer: more rooms, more kills and outages.
soak: setup
	KARTU_SOAK=$${KARTU_SOAK:-3} $(BIN)/pytest tests/fault -s

# Lock files. `make lock` keeps every pin that still fits pyproject.toml and resolves
# only what changed; `make lock-upgrade` takes the newest of everything
# (`make lock-upgrade UPGRADE='-P fastapi'` upgrades one package).
$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install --quiet 'uv==$(UV_VERSION)'

lock: | $(UV)
	$(BUILD_REQS) | $(COMPILE) --extra dev $(UPGRADE) -o $(LOCK)
	$(BUILD_REQS) | $(COMPILE) -c $(LOCK) -o $(RUNTIME_LOCK)
	$(BUILD_REQS) | $(COMPILE) --extra dev --resolution lowest-direct $(DIRECT_P) $(UPGRADE) -o $(LOWEST_LOCK)

lock-upgrade: UPGRADE ?= --upgrade
lock-upgrade: lock

clean:
	rm -rf $(VENV) $(LOWEST_VENV) $(TOOLS) data .pytest_cache .mypy_cache .ruff_cache .hypothesis
