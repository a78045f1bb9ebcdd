## bench: every solver vs scikit-learn's SVC (and oneDAL's with the peers extra), one interleaved
## run, median of REPEATS, wall and CPU time, 1 thread and all cores -> results/bench/solvers_vs_svc.md
BENCH_DATASETS ?= a1a a4a w7a a8a w8a ijcnn1
BENCH_REPEATS  ?= 5
.PHONY: bench
bench: venv
	$(PY) experiments/bench.py --datasets $(BENCH_DATASETS) --repeats $(BENCH_REPEATS)

## bench-grid: the shared-kernel, warm-started grid search vs the naive loop -> results/bench/grid_search.md
.PHONY: bench-grid
bench-grid: venv
	$(PY) experiments/bench_grid.py

## bench-fw: our CVM/FW/MFW against the authors' C++ timings on a1a, a2a, w1a -> results/fw/bench.md
.PHONY: bench-fw
bench-fw: venv
	$(PY) experiments/bench_fw.py --out results/fw/bench.md
