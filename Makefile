# Two entry points: `make results` regenerates every reported number,
# `make test` runs the test suite. Both bootstrap .venv when it is missing
# or older than pyproject.toml or requirements.lock.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
CORES ?= 2
# A local copy of the raw Cranfield files (see README); empty = download.
CRANFIELD_DIR ?=
export CRANFIELD_DIR

.PHONY: results test report lint clean

LOCK := requirements.lock

# The lock's exact versions (every extra and dev's tools), then irscore itself without
# resolving again: the same versions on every machine, so the same bytes in results/.
# requirements.lock is `uv pip compile`'s (its first lines say how to regenerate it).
$(STAMP): pyproject.toml $(LOCK)
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet --no-deps -r $(LOCK)
	$(VENV)/bin/pip install --quiet --no-deps -e .
	@# Bytecode now, as a pip-installed package has it: where PYTHONDONTWRITEBYTECODE
	@# is set, every irscore process would otherwise compile its modules at start.
	$(VENV)/bin/python -m compileall -q src/irscore
	touch $(STAMP)

# Recovers from an interrupted run by itself (see src/irscore/pipeline/workflow_runner.py): one
# line per finished job here, Snakemake's whole output in results/logs/workflow.log.
results: $(STAMP)
	@$(VENV)/bin/python -m irscore.pipeline.workflow_runner --cores $(CORES)

# One line per step here, Snakemake's output in results/logs/report.log.
report: results
	@$(VENV)/bin/python -m irscore.pipeline.workflow_runner --report

# On $(CORES) worker processes (pytest-xdist): the workflow tests wait on Snakemake. Each
# module goes whole to one worker, so that its module fixtures are built once; the slow
# modules first, in tests/conftest.py's order (--no-loadscope-reorder keeps it).
test: $(STAMP)
	$(VENV)/bin/python -m pytest -n $(CORES) --dist loadfile --no-loadscope-reorder

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/snakefmt --check Snakefile workflow
	$(VENV)/bin/snakemake --lint

clean:  # everything under results/ but the committed summary.md
	find results -mindepth 1 -maxdepth 1 ! -name summary.md -exec rm -rf {} +
