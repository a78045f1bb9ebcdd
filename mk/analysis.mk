# Tables computed from published values alone (no run): the FW paper's statistics tables.
.PHONY: fw-tables4-7

## fw-tables4-7: FW paper Tables 4-7 (Wilcoxon W, Friedman/Iman-Davenport F, p-values) from its Tables 2-3
fw-tables4-7: venv
	$(PY) -m svmbench.papers.fw.fw_tables --out results/fw/tables4-7.md
