# One target per published artefact: runs the missing cells into results/<paper>/runs, then
# writes results/<paper>/<table>.md. SCALE=quick (minutes) or SCALE=paper (published protocol).
.PHONY: gs2008-table2

gs2008-table2: venv
	$(PY) -m svmbench.paper gs2008_table2 --scale $(SCALE)
