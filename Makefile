# The two commands of the README. Both need only Python 3.11: they make the virtualenv, install
# the pinned requirements, and (when DATABASE_URL / REDIS_URL are unset) start an embedded
# PostgreSQL and Redis with their data under .local/.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

$(STAMP): requirements.txt requirements-dev.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "$(PYTHON) not found: install Python 3.11 or run 'make PYTHON=/path/to/python3.11 ...'"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m connectivity.devstack run

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .local .pytest_cache .hypothesis
