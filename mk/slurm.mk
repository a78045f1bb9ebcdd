## slurm-up: start a one-node SLURM cluster on this machine (root; Debian's slurm-wlm and munge),
## state and logs in SLURM_DIR; then `export SLURM_CONF=$(SLURM_DIR)/slurm.conf` (tests/integration/slurm/)
## slurm-down: cancel its jobs and stop its daemons (by the pids slurm-up kept)
SLURM_DIR ?= /tmp/svmbench-slurm
.PHONY: slurm-up slurm-down
slurm-up: venv
	$(PY) tests/integration/slurm/cluster.py up $(SLURM_DIR)

slurm-down: venv
	$(PY) tests/integration/slurm/cluster.py down $(SLURM_DIR)
