# The cross-solver leaderboard (svmbench/boards/experiment/leaderboard.yaml, svmbench/boards/leaderboard.py):
# every solver on every staged data set it can take, one protocol, ranks, Friedman/Iman-Davenport,
# Nemenyi and Holm tests, CD diagrams and a Pareto plot. SCALE=quick: minutes, under
# results/quick/leaderboard/; SCALE=paper: 23 min on 2 cores at 300 tuning samples, not yet timed at 5,000 (about 16 min estimated: docs/leaderboard.md), results/leaderboard/. A
# stopped sweep resumes where it stopped (the store skips finished cells); on a cluster:
#   make leaderboard SCALE=paper LAUNCHER='hydra/launcher=svmbench_slurm'
# Solvers of other packages (entry point group svmbench.solvers) join by themselves; algorithm
# configs of yours with a _target_ through OWN (the sweep and the table both take it):
#   make leaderboard OWN='hydra.searchpath=[file:///my/conf] leaderboard_solvers.yours=[mine]'
# The convergence curves (make curves, svmbench/boards/experiment/curves.yaml) run first; the board is printed
# last, so that it is what the command ends on.
LEADERBOARD_ROOT = $(if $(filter paper,$(SCALE)),results,results/quick)/leaderboard
OWN ?=

.PHONY: leaderboard
## leaderboard: every solver on common ground; prints the table, writes figures beside it
# (the curves' sub-make is a recipe line of its own, so that `make -n leaderboard` runs nothing; a
# failed sweep leaves $(LEADERBOARD_FAILED) until the board is printed, then the target fails)
LEADERBOARD_FAILED = $(LEADERBOARD_ROOT)/.failed
leaderboard: venv
	@rm -f $(LEADERBOARD_FAILED); $(PY) -m svmbench.walltime leaderboard --scale $(SCALE) -- \
	  $(PY) -m svmbench.runner -m +experiment=leaderboard scale=$(SCALE) $(STORE_REUSE) $(OWN) $(LAUNCHER) \
	  || { mkdir -p $(LEADERBOARD_ROOT); touch $(LEADERBOARD_FAILED); }
	$(MAKE) --no-print-directory curves SCALE=$(SCALE) || touch $(LEADERBOARD_FAILED)
	@$(PY) -m svmbench.render leaderboard --scale $(SCALE) $(if $(OWN),--set $(OWN)) \
	  && cat $(LEADERBOARD_ROOT)/leaderboard.md \
	  && if [ -e $(LEADERBOARD_FAILED) ]; then rm -f $(LEADERBOARD_FAILED); exit 1; fi

.PHONY: solvers
## solvers: the solvers board (svmbench/boards/experiment/solvers.yaml): per problem, time/K1/K2 to a certified
## suboptimality at 1 and 2 threads; one fit at a time (its clocks are the point: no LAUNCHER)
solvers: venv
	@status=0; $(PY) -m svmbench.walltime solvers --scale $(SCALE) -- \
	  $(PY) -m svmbench.runner -m +experiment=solvers scale=$(SCALE) $(STORE_REUSE) \
	  || status=$$?; \
	  $(PY) -m svmbench.render solvers --scale $(SCALE) \
	  && cat $(LEADERBOARD_ROOT)/solvers.md && exit $$status
