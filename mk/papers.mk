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
