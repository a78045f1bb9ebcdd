# frank-wolfe-svm artefacts (CVM, FW, MFW): a Hydra multirun (conf/experiment/fw_*.yaml) into
# results/fw/runs, then a renderer (experiments/fw_*.py) writing results/fw/.
FW_STORE := results/fw/runs
FW_RUN    = $(PY) -m svmbench.runner -m experiment=$(1) hydra.verbose=false

.PHONY: fw-table2 fw-table3 fw-fig3 fw-fig4 fw-table8 fw-tables4-7-ours fw-stopping bench-fw

## fw-table2, fw-table3: frank-wolfe-svm Tables 2-3 (accuracy, time) of CVM/FW/MFW, 5 seeds
fw-table2 fw-table3: venv
	$(call FW_RUN,fw_table2_3)
	$(PY) experiments/fw_table2_3.py $(FW_STORE) --out results/fw

## fw-fig3: frank-wolfe-svm Fig. 3 (Web series: accuracy, speed-up over CVM, time, SVs)
fw-fig3: venv
	$(call FW_RUN,fw_fig3)
	$(PY) experiments/fw_series.py $(FW_STORE) fig3 --out results/fw

## fw-fig4: frank-wolfe-svm Fig. 4 (Adult series: accuracy, speed-up over CVM, time, SVs)
fw-fig4: venv
	$(call FW_RUN,fw_fig4)
	$(PY) experiments/fw_series.py $(FW_STORE) fig4 --out results/fw

## fw-stopping: CVM/FW/MFW over eps, sampled vs full stopping test (the paper's timings explained)
fw-stopping: venv
	$(call FW_RUN,fw_stopping)
	$(PY) experiments/fw_stopping.py $(FW_STORE) --out results/fw

## bench-fw: our CVM/FW/MFW against the authors' C++ timings on a1a, a2a, w1a (experiments/bench_fw.py)
bench-fw: venv
	$(PY) experiments/bench_fw.py --out results/fw/bench.md

## fw-table8: frank-wolfe-svm Table 8, FW and MFW with the polynomial kernel (CVM refuses it)
fw-table8: venv
	$(call FW_RUN,fw_table8)
	$(PY) experiments/fw_table8.py $(FW_STORE) --out results/fw

## fw-tables4-7-ours: frank-wolfe-svm Tables 5-7 from our Tables 2-3 records (beside the paper's)
fw-tables4-7-ours: venv
	$(PY) experiments/fw_tables4_7_ours.py $(FW_STORE) --out results/fw/tables4-7-ours.md
