"""Side by side means same settings (svmbench.analysis.settings): cells of one data set that differ
in kernel, gamma, C or tol are flagged by key and value in the report and its comparisons, and a
sweep over algorithms that leaves such a key to differing defaults warns, naming each value."""

import subprocess
import sys

import pandas as pd

from svmbench import report
from svmbench.algorithm_keys import configured_defaults
from svmbench.analysis.settings import (
    differing_settings,
    pair_difference,
    sweep_defaults_conflicts,
)
from svmbench.store import ResultStore


def records(rows):
    return pd.DataFrame.from_records(rows)


def test_differing_settings_names_each_key_and_value_per_data_set():
    table = records([
        {"dataset": "heart", "algorithm": "smo_wss2", "gamma": 0.05, "C": 4.0, "tol": 1e-3},
        {"dataset": "heart", "algorithm": "mine", "gamma": "scale", "C": 4.0, "tol": 1e-3},
        {"dataset": "heart", "algorithm": "gs_svm", "gamma": 0.05, "C": None, "tol": None},
        {"dataset": "iris", "algorithm": "smo_wss2", "gamma": 0.05, "C": 1.0, "tol": 1e-3},
        {"dataset": "iris", "algorithm": "mine", "gamma": 0.05, "C": 1.0, "tol": 1e-3},
    ])
    assert differing_settings(table) == {
        "heart": {"gamma": {"gs_svm": "0.05", "mine": "scale", "smo_wss2": "0.05"}}}
    differences = differing_settings(table)
    assert pair_difference(differences, "heart", "smo_wss2", "mine") == \
        " (settings differ: gamma 0.05 vs scale)"
    assert pair_difference(differences, "heart", "smo_wss2", "gs_svm") == ""
    assert pair_difference(differences, "iris", "smo_wss2", "mine") == ""


def test_a_value_tuned_per_fold_is_the_protocols_not_a_setting():
    table = records([
        {"dataset": "heart", "algorithm": "a", "gamma": 0.5, "selected_gamma": 0.5},
        {"dataset": "heart", "algorithm": "b", "gamma": 2.0, "selected_gamma": 2.0},
    ])
    assert differing_settings(table) == {}


def test_a_sweep_leaving_a_key_to_differing_defaults_is_found_by_key():
    jobs = [["dataset=heart", "algorithm=smo_wss2", "algorithm.C=4"],
            ["dataset=heart", "algorithm=rho_svm", "algorithm.C=4"]]
    conflicts = sweep_defaults_conflicts(jobs, configured_defaults)
    assert conflicts == {"gamma": {"smo_wss2": "0.05", "rho_svm": "spread"}}
    given = [job + ["algorithm.gamma=0.1"] for job in jobs]
    assert sweep_defaults_conflicts(given, configured_defaults) == {}


def test_the_report_flags_cells_side_by_side_that_differ_and_names_it_in_a_comparison(tmp_path):
    store = tmp_path / "store"
    for algorithm, gamma in (("smo_wss2", 0.05), ("libsvm", 0.5)):
        subprocess.run([sys.executable, "-m", "svmbench.runner", "dataset=iris",
                        f"algorithm={algorithm}", f"algorithm.gamma={gamma}", "protocol.k=3",
                        f"store.dir={store}", f"hydra.run.dir={tmp_path / 'run'}"], check=True,
                       capture_output=True)
    assert len(list(ResultStore(store).records())) == 6
    text, failed = report.render(store, compare=["smo_wss2", "libsvm"])
    assert not failed
    assert "- iris: gamma differs (libsvm 0.5, smo_wss2 0.05)" in text
    assert "test error of smo_wss2 vs libsvm over 3 paired folds (settings differ: gamma 0.05 " \
           "vs 0.5)" in text


def test_a_sweep_over_algorithms_with_differing_defaults_warns_naming_each(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "svmbench.runner", "-m", "dataset=iris",
         "algorithm=smo_wss2,rho_svm", "protocol.k=2", "folds=[0]",
         f"store.dir={tmp_path / 'store'}", f"hydra.sweep.dir={tmp_path / 'multirun'}"],
        check=False, capture_output=True, text=True)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-2000:]
    assert "algorithm.gamma is not set in this sweep and its algorithms' defaults differ " \
           "(smo_wss2 0.05, rho_svm spread)" in output
