# svmbench — every target creates and reuses the local virtual environment by itself.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
SCALE  ?= quick
STORE  ?= results/store
# REUSE=none|commit|any: the sweeps' store.reuse (default: the config's, fingerprint)
REUSE  ?=
STORE_REUSE = $(if $(REUSE),store.reuse=$(REUSE))

# Real datasets come from the directories of SVMBENCH_DATA_PATH (none by default), then the cache
# SVMBENCH_DATA (default ~/.cache/svmbench), where downloads go (README "Pointing at data",
# docs/howto/dataset.md).

.PHONY: venv compile run test lint clean-numba help
.DEFAULT_GOAL := run

## help: list the targets
help:
	@grep -h '^## ' $(MAKEFILE_LIST) | sed 's/^## /  /'

## venv: the virtual environment, then its solvers compiled once (COMPILE=0 skips that)
COMPILE ?= 1
venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,launchers]'
	touch $@
	$(if $(filter 1,$(COMPILE)),$(VENV)/bin/svmbench-compile)

## compile: compile every built-in solver's numba code ahead of its first fit, one process a
## core (svmbench-compile; numba's cache keeps it for these sources: a first fit loads it)
compile: venv
	$(VENV)/bin/svmbench-compile

## run: the main job — GS-SVM vs LIBSVM (scikit-learn SVC) on bundled WDBC, 10-fold CV, table + tests
run: venv
	$(PY) -m svmbench.runner -m +experiment=quickstart algorithm=gs_svm,libsvm store.dir=results/quickstart/runs hydra.verbose=false
	$(PY) -m svmbench.report results/quickstart/runs --experiment quickstart --compare gs_svm libsvm

## test: the test suite, TEST_WORKERS processes at once (pytest-xdist; a test file stays in one
## process, so its fixtures are built once; TEST_WORKERS=0 runs it in this process)
TEST_WORKERS ?= 2
test: venv
	$(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile \
	  || { status=$$?; if [ $$status -eq 5 ]; then echo "no tests collected"; else exit $$status; fi; }

lint: venv
	$(PY) -m ruff check svmbench hydra_plugins studies tests docs/_ext docs/conf.py

## clean-numba: drop numba's compiled code (svmbench.kernels.compile_cache: a source edit never
## needs it, the cache is keyed by the sources' content; this frees the disk)
clean-numba: venv
	$(PY) -c "import shutil; from svmbench.kernels.compile_cache import cache_root; \
	  shutil.rmtree(cache_root(), ignore_errors=True)"
	find svmbench -name '*.nbi' -delete -o -name '*.nbc' -delete

include $(wildcard mk/*.mk)
