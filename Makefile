# kartu: `make run` serves the game, `make test` runs the whole suite.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
HOST   ?= 127.0.0.1

.PHONY: setup run test lint migrate bench load soak clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
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

# The fault suite (tests/fault) for longer: more rooms, more kills and outages.
soak: setup
	KARTU_SOAK=$${KARTU_SOAK:-3} $(BIN)/pytest tests/fault -s

clean:
	rm -rf $(VENV) data .pytest_cache .mypy_cache .ruff_cache .hypothesis
