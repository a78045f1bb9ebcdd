"""svmbench.sweep.cells composes once per choice of config groups and applies value overrides to a
copy: the hashes must be those of composing every job whole (Hydra, the oracle). And every cell
hashes as it did before the algorithm configs were made from the solver specs alone
(cell_hashes.json, written by studies/cell_hashes.py on the commit before; that script checks all
27 experiments at both scales, this test the ones that reach every built-in solver)."""

import json
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from svmbench import sweep
from svmbench.conf import CONF_DIR
from svmbench.configs import cell_config
from svmbench.provenance import config_hash


def composed_whole(artefact, scale):
    """(overrides, hash) of every job, each composed by Hydra from all its overrides."""
    base = [f"+experiment={artefact}", f"scale={scale}"]
    found, jobs = [], sweep.sweep_jobs(sweep.experiment_config(artefact, scale))
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        for job in jobs:
            extra = tuple(o for o in job if o not in base)
            found.append((extra, config_hash(cell_config(compose("config", [*base, *extra])))))
    return found


# value overrides of the forms the committed sweeps use: ++ (gs2005, gs2008), lists and nested
# keys of a group (the tuned protocols), top-level values (folds); every committed sweep at both
# scales was checked so once, and the committed-records tests (tsang, fw, rosen) compare their
# paper-scale hashes with the stores'
@pytest.mark.parametrize("artefact", ["gs2005_table1", "gs2008_fig2_3", "tsang_table2"])
def test_cells_hash_as_composing_every_job_whole(artefact):
    cells = [(cell.overrides, cell.config_hash) for cell in sweep.cells(artefact, "quick")]
    assert cells == composed_whole(artefact, "quick")
    assert len({config_hash for _, config_hash in cells}) == len(cells)


def test_overrides_hydra_would_refuse_are_left_to_hydra():
    """Adding a key that is there, or changing one that is not: no config (the job is composed
    whole, and Hydra's error is the user's)."""
    config = sweep.experiment_config("quickstart", "quick")
    assert sweep.with_values(config, ["+seed=3"]) is None
    assert sweep.with_values(config, ["no_such_key=3"]) is None
    changed = sweep.with_values(config, ["seed=3", "++algorithm.C=2.5", "+algorithm.new_key=1"])
    assert (changed.seed, changed.algorithm.C, changed.algorithm.new_key) == (3, 2.5, 1)
    assert config.seed != 3  # a copy


def test_a_group_choice_is_not_a_value_override():
    groups = {"dataset", "algorithm", "protocol"}
    assert not sweep.is_value_override("dataset=heart", groups)
    assert not sweep.is_value_override("~algorithm.C", groups)
    assert sweep.is_value_override("dataset.scale=true", groups)
    assert sweep.is_value_override("++algorithm.C=null", groups)


CELL_HASHES = Path(__file__).with_name("cell_hashes.json")


# together every built-in solver: SMO, GS-SVM, HM-SVM, RSVM, Rosen, CVM, FW, MFW, rho-SVM, its
# ensemble, Parzen (leaderboard), xi-alpha (tsang_table2), eg_fixed (tsang_fig1)
@pytest.mark.parametrize("experiment", ["leaderboard@quick", "tsang_table2@quick",
                                        "tsang_fig1@quick"])
def test_every_cell_hashes_as_it_did_when_its_algorithm_config_was_a_file(experiment):
    artefact, scale = experiment.split("@")
    expected = json.loads(CELL_HASHES.read_text())[experiment]
    found = [[" ".join(cell.overrides), cell.config_hash] for cell in sweep.cells(artefact, scale)]
    assert sorted(found) == sorted(expected)  # the cells and their hashes; not the jobs' order
