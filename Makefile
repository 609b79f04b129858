# The two commands of the README. Both need only Python 3.11: they make the virtualenv, install
# the pinned requirements, and (when DATABASE_URL / REDIS_URL are unset) start an embedded
# PostgreSQL and Redis with their data under .local/. `make run` installs only what it runs
# (requirements-local.txt); the test tools (requirements-dev.txt) come with `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: run test bench soak cluster citus clean

$(RUN_STAMP): requirements.txt requirements-local.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "$(PYTHON) not found: install Python 3.11 or run 'make PYTHON=/path/to/python3.11 ...'"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-local.txt
	@touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP) requirements-dev.txt
	$(BIN)/pip install --quiet -r requirements-dev.txt
	@touch $(STAMP)

# PORT (8000) is where it listens; RESET_KEYS=1 revokes the kept demo keys and issues new ones.
run: $(RUN_STAMP)
	$(BIN)/python -m devtools.stack run

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The benchmark (bench/, docs/benchmarks.md): data set generated once into its own database,
# then the scenarios against gunicorn as the Procfile runs it. Options, all optional:
#   make bench SCENARIOS="ping bare" REQUESTS=20000 CONCURRENCY=16 WARMUP=50 CLIENTS=2 ROUNDS=3 LABEL=latest
$(BENCH_STAMP): $(STAMP) requirements-bench.txt
	$(BIN)/pip install --quiet -r requirements-bench.txt
	@touch $(BENCH_STAMP)

BENCH_OPTS = $(if $(SCENARIOS),--scenarios "$(SCENARIOS)") $(if $(REQUESTS),--requests $(REQUESTS)) \
	$(if $(CONCURRENCY),--concurrency $(CONCURRENCY)) $(if $(WARMUP),--warmup $(WARMUP)) \
	$(if $(CLIENTS),--processes $(CLIENTS)) $(if $(ROUNDS),--rounds $(ROUNDS)) \
	$(if $(LABEL),--label $(LABEL)) $(BENCH_ARGS)

bench: $(BENCH_STAMP)
	$(BIN)/python -m bench $(strip $(BENCH_OPTS))

# Invariants under load (bench/soak.py): 10,000 random operations from 16 clients against gunicorn
# and the worker as the Procfile runs them; minutes, so not part of `make test`.
#   make soak SOAK_ARGS="--operations 10000 --clients 16 --seed 7"
soak: $(BENCH_STAMP)
	$(BIN)/python -m bench.soak $(SOAK_ARGS)

# A production-shaped topology on this machine (devtools/cluster.py): PostgreSQL primary
# and streaming replica, PgBouncer when installed, Redis, two web instances, two RQ workers.
# Ctrl-C stops it. `make soak SOAK_ARGS="--cluster"` aims the soak at it.
cluster: $(RUN_STAMP)
	$(BIN)/python -m devtools.cluster

# The service on a Citus cluster (devtools/citus.py, docs/operations.md 6.4): builds Citus
# with ../shared/citus/build.sh when missing (root; CITUS_BUILD_SCRIPT overrides the path),
# starts a coordinator and two workers (ports 9700-9702, data kept in .local/citus), migrates,
# distributes, then a web instance (on PORT when set, else a free port) and an RQ worker; its
# demo keys and walk-through are in .local/citus. Ctrl-C stops it; a second run reuses it.
citus: $(RUN_STAMP)
	$(BIN)/python -m devtools.citus

clean:
	rm -rf $(VENV) .local .pytest_cache .hypothesis
