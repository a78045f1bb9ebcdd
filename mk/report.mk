## report: the browsable report site from the committed results and stores, no training
## -> results/site/index.html (ignored: rebuilt on demand; see docs/report.md)
.PHONY: report
report: venv
	$(PY) -m svmbench.webreport --out results/site
