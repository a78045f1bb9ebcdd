## bench: the benchmark matrix, every solver vs scikit-learn's SVC (and oneDAL's with the peers
## extra) at 9 (C, gamma) points per set, wall and CPU time at 1 thread and all cores, one
## interleaved run -> results/bench/matrix.md (committed: all six solvers, BENCH_ARGS='--repeats 1
## --slow-threads 1', see the file's last lines for its commit and time; a solver over the per-cell
## budget, its rule's bound above it, skips the set's cells with no smaller C or gamma; a stopped
## run resumes at its first set not benched when run again on the same clean commit and CPU, its
## state in results/bench/matrix.partial.json, which another session may copy in beside the
## output);
## BENCH_SCALE=quick: 300 training samples a set, one fit a cell -> results/quick/bench/matrix.md
BENCH_SCALE ?= full
BENCH_ARGS ?=
.PHONY: bench
bench: venv
	$(PY) studies/bench.py --scale $(BENCH_SCALE) $(BENCH_ARGS)

## bench-grid: the shared-kernel, warm-started grid search vs the naive loop -> results/bench/grid_search.md
.PHONY: bench-grid
bench-grid: venv
	$(PY) studies/bench_grid.py

## bench-fw: our CVM/FW/MFW against the authors' C++ timings on a1a, a2a, w1a -> results/fw/bench.md
.PHONY: bench-fw
bench-fw: venv
	$(PY) studies/bench_fw.py --out results/fw/bench.md
