## bench: smo_wss2 and GS-SVM vs scikit-learn SVC, same run -> results/bench/solvers_vs_svc.md
.PHONY: bench
bench: venv
	$(PY) experiments/bench.py

## bench-grid: the shared-kernel, warm-started grid search vs the naive loop -> results/bench/grid_search.md
.PHONY: bench-grid
bench-grid: venv
	$(PY) experiments/bench_grid.py
