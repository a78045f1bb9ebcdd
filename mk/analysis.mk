# Analysis-layer targets: statistics and tables computed from published or stored results.
.PHONY: fw-tables4-7

## fw-tables4-7: FW paper Tables 4-7 (Wilcoxon W, Friedman/Iman-Davenport F, p-values) from its Tables 2-3
fw-tables4-7: venv
	$(PY) -m svmbench.analysis.fw_tables --out results/fw/tables4-7.md
