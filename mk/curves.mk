# Convergence curves (issue 29): the solvers' checkpoints per data set, solvers overlaid.
.PHONY: curves

## curves: run svmbench/boards/experiment/curves.yaml at SCALE (quick: heart and australian, about a minute)
## with checkpoints in the records, then draw them -> results/quick/leaderboard/curves*.{md,png}
curves: venv
	@status=0; $(PY) -m svmbench.walltime curves --scale $(SCALE) -- \
	  $(PY) -m svmbench.runner -m +experiment=curves scale=$(SCALE) $(STORE_REUSE) $(LAUNCHER) \
	  || status=$$?; \
	  $(PY) -m svmbench.render curves --scale $(SCALE) && exit $$status
