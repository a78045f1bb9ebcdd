## bench: smo_wss2 vs scikit-learn SVC (time ratio, iterations, SVs, accuracy, K1/K2) -> results/bench/smo_vs_svc.md
bench: venv
	$(PY) experiments/bench_smo.py
