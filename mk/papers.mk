# One target per published artefact = its Hydra multirun (svmbench/papers/<paper>/experiment/
# <artefact>.yaml) + its renderer (beside that folder). SCALE=quick (minutes; records and tables under the ignored results/quick/) or
# SCALE=paper (the published protocol; the committed results/<paper>/). LAUNCHER picks Hydra's
# launcher (e.g. LAUNCHER='hydra/launcher=joblib hydra.launcher.n_jobs=2'). A failed cell still
# lets the table render, then the target exits non-zero.
ARTEFACTS := gs2005-table1 gs2005-table2 gs2008-table2 gs2008-table3 gs2008-table7 gs2008-fig2-3 \
             rosen-table1 rosen-table2 tsang-fig1 tsang-table2 tsang-table3 \
             fw-table2 fw-table3 fw-fig3 fw-fig4 fw-fig5 fw-fig6 fw-fig7 fw-fig8 fw-table8 \
             fw-stopping fw-tables4-7-ours
LAUNCHER ?=
# make tables / figures re-render the committed (paper-scale) output unless SCALE is given
RENDER_SCALE = $(if $(filter command line environment,$(origin SCALE)),$(SCALE),paper)

.PHONY: $(ARTEFACTS) tables figures paper wall-times

## gs2005-table1 .. gs2008-fig2-3, rosen-table1 rosen-table2, tsang-fig1 tsang-table2
## tsang-table3, fw-table2 fw-table3 fw-fig3 .. fw-fig8 fw-table8 fw-stopping fw-tables4-7-ours:
## run the artefact's sweep at SCALE, then render its table (and figure)
$(ARTEFACTS): venv
	@status=0; $(PY) -m svmbench.walltime $(subst -,_,$@) --scale $(SCALE) -- \
	  $(PY) -m svmbench.runner -m +experiment=$(subst -,_,$@) scale=$(SCALE) $(STORE_REUSE) $(LAUNCHER) \
	  || status=$$?; \
	  $(PY) -m svmbench.render $(subst -,_,$@) --scale $(SCALE) && exit $$status

## tables: re-render every artefact from its stored records, no training (paper scale unless SCALE=)
tables: venv
	$(PY) -m svmbench.render --all --scale $(RENDER_SCALE)

## figures: re-render every figure (gs2008 Figs. 2-3, tsang Fig. 1, fw Figs. 3-8) from its stored
## records, no training
figures: venv
	$(PY) -m svmbench.render gs2008_fig2_3 tsang_fig1 fw_fig3 fw_fig4 fw_fig5 fw_fig6 fw_fig7 \
	  fw_fig8 --scale $(RENDER_SCALE)

## deviations: docs/deviations.md from the committed tables, experiment outputs and stores and
## the prose of docs/deviations.yaml (every cell outside its tolerance; no training)
.PHONY: deviations
deviations: venv
	$(PY) -m svmbench.deviations

## paper: every artefact at paper scale (hours on 2 cores; LAUNCHER=... for a cluster); each
## sweep's wall time goes to results/wall_times.csv (wall-times: as a table); a failed artefact
## does not stop the others (make -k), the target exits non-zero; run again to resume
paper:
	$(MAKE) -k $(ARTEFACTS) SCALE=paper

## wall-times: each artefact's logged sweep wall times per commit (SCALE=quick for the quick log);
## at paper scale also written to results/wall_times.md
wall-times: venv
	$(PY) -m svmbench.walltime --summary --scale $(RENDER_SCALE) \
	  $(if $(filter paper,$(RENDER_SCALE)),--output results/wall_times.md)
