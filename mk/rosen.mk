## rosen-table1 / rosen-table2: rosen-projection-svm Tables 1-2 (smo_mod2 vs rosen, tol 1e-3 / 1e-6)
## on the staged IDA realizations -> results/rosen/table{1,2}.md, records in results/rosen/runs.
## SCALE=quick runs realization 1 only into results/store/rosen (ignored) and renders there.
ROSEN_STORE_quick := results/store/rosen
ROSEN_STORE_paper := results/rosen/runs
ROSEN_FOLDS_quick := 'folds=[0]'
ROSEN_OUTPUT_quick := results/store/rosen
ROSEN_OUTPUT_paper := results/rosen

.PHONY: rosen-table1 rosen-table2
rosen-table1 rosen-table2: rosen-table%: venv
	$(PY) -m svmbench.runner -m experiment=rosen_table$* store.dir=$(ROSEN_STORE_$(SCALE)) \
	  $(ROSEN_FOLDS_$(SCALE)) hydra.verbose=false
	$(PY) -m experiments.rosen_tables rosen_table$* --store $(ROSEN_STORE_$(SCALE)) \
	  --output $(ROSEN_OUTPUT_$(SCALE))/table$*.md
