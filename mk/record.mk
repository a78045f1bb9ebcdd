# The record (issue 45): every artefact, both boards, the convergence curves and the bench matrix
# re-run from one clean commit, then the stores pruned to what the pages draw on and every page
# re-rendered from them. store.reuse=commit: a record of another commit or of a dirty tree is
# trained again, and a record run that stopped (a crash, a session's end) resumes where it stopped
# when started again on the same commit. Each sweep's wall time goes to results/wall_times.csv
# (make wall-times), the load average before and after each part to results/record.log. Hours on
# 2 cores; run it with nothing else on the machine, since its times are the published ones. A
# failed part does not stop the others; the target names the failed parts and exits non-zero.
RECORD_LAUNCHER ?= hydra/launcher=joblib hydra.launcher.n_jobs=2 threads=1
RECORD_BENCH_ARGS ?= --repeats 1 --slow-threads 1
RECORD_LOG = results/record.log
RECORD_FAILED = results/.record-failed
RECORD_STAMP = $$(date -u +%FT%TZ) $$(git rev-parse --short=12 HEAD)
RECORD_LOAD = load $$(cut -d' ' -f1-3 /proc/loadavg)

.PHONY: record record-clean record-peers record-paper record-leaderboard record-solvers record-bench

## record: every artefact, the leaderboard with its curves, the solvers board and the bench from
## one clean commit (resumable: run it again on the same commit), then prune the stores and
## re-render tables, figures, the deviations page and results/wall_times.md (RECORD_LAUNCHER,
## RECORD_BENCH_ARGS)
record: venv record-clean record-peers
	@rm -f $(RECORD_FAILED)
	@echo "$(RECORD_STAMP) paper start, $(RECORD_LOAD)" >> $(RECORD_LOG)
	$(MAKE) --no-print-directory record-paper || echo paper >> $(RECORD_FAILED)
	@echo "$(RECORD_STAMP) leaderboard start, $(RECORD_LOAD)" >> $(RECORD_LOG)
	$(MAKE) --no-print-directory record-leaderboard || echo leaderboard >> $(RECORD_FAILED)
	@echo "$(RECORD_STAMP) solvers start, $(RECORD_LOAD)" >> $(RECORD_LOG)
	$(MAKE) --no-print-directory record-solvers || echo solvers >> $(RECORD_FAILED)
	@echo "$(RECORD_STAMP) bench start, $(RECORD_LOAD)" >> $(RECORD_LOG)
	$(MAKE) --no-print-directory record-bench || echo bench >> $(RECORD_FAILED)
	@echo "$(RECORD_STAMP) runs end, $(RECORD_LOAD)" >> $(RECORD_LOG)
	$(PY) -m svmbench.stores --prune || echo prune >> $(RECORD_FAILED)
	$(MAKE) --no-print-directory tables figures deviations wall-times || echo pages >> $(RECORD_FAILED)
	@if [ -s $(RECORD_FAILED) ]; then \
	  echo "make record: failed parts: $$(tr '\n' ' ' < $(RECORD_FAILED)); run it again to resume"; \
	  exit 1; fi

## record-clean: refuse a tree with uncommitted changes (a record comes from one clean commit)
record-clean: venv
	@$(PY) -c "from svmbench.store import ResultStore; ResultStore('.', reuse='commit')"

## record-peers: the peers extra (scikit-learn-intelex) before any sweep: without it the
## leaderboard records its oneDAL cells unsuitable and the bench has no oneDAL rows
record-peers: venv
	$(VENV)/bin/pip install -q -e '.[peers]'

record-paper:
	$(MAKE) -k paper REUSE=commit LAUNCHER='$(RECORD_LAUNCHER)'

record-leaderboard: record-peers
	$(MAKE) leaderboard SCALE=paper REUSE=commit LAUNCHER='$(RECORD_LAUNCHER)'

record-solvers:
	$(MAKE) solvers SCALE=paper REUSE=commit

record-bench: record-peers
	$(MAKE) bench BENCH_ARGS='$(RECORD_BENCH_ARGS)'
