## bench: smo_wss2 and GS-SVM vs scikit-learn SVC, same run -> results/bench/solvers_vs_svc.md
.PHONY: bench
bench: venv
	$(PY) experiments/bench.py
