# One target per published artefact: runs the missing cells into results/<paper>/runs, then
# writes results/<paper>/<table>.md. SCALE=quick (minutes) or SCALE=paper (published protocol).
.PHONY: gs2008-table2

gs2008-table2: venv
	$(PY) -m svmbench.paper gs2008_table2 --scale $(SCALE)

.PHONY: gs2008-table3 gs2005-table1
gs2008-table3: venv
	$(PY) -m svmbench.paper gs2008_table3 --scale $(SCALE)

gs2005-table1: venv
	$(PY) -m svmbench.paper gs2005_table1 --scale $(SCALE)

# The UCI accuracy artefacts share one nested-CV protocol and one store (results/uci/runs):
# gs2005 Table 2, gs2008 Table VII and Figs. 2-3. JOBS cells run at a time.
JOBS ?= 2
.PHONY: gs2005-table2 gs2008-table7 gs2008-fig2-3
gs2005-table2: venv
	$(PY) -m svmbench.paper gs2005_table2 --scale $(SCALE) --jobs $(JOBS)

gs2008-table7: venv
	$(PY) -m svmbench.paper gs2008_table7 --scale $(SCALE) --jobs $(JOBS)

gs2008-fig2-3: venv
	$(PY) -m svmbench.paper gs2008_fig2_3 --scale $(SCALE) --jobs $(JOBS)
