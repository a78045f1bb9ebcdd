"""Every published artefact is a Hydra sweep config: its cells per scale, and the renderer path
from a small store to the table (golden file)."""

from pathlib import Path

import pandas as pd
import pytest

from svmbench.analysis.sources import sources
from svmbench.render import artefacts, render
from svmbench.store import ResultStore
from svmbench.sweep import cells, experiment_config, sweep_jobs

GOLDEN = Path(__file__).parent / "golden"
# artefact -> cells at (quick, paper)
CELL_COUNTS = {"gs2005_table1": (16, 160), "gs2005_table2": (9, 45), "gs2008_table2": (6, 24),
               "gs2008_table3": (11, 29), "gs2008_table7": (9, 51), "gs2008_fig2_3": (8, 28),
               "rosen_table1": (6, 18), "rosen_table2": (6, 18),
               "tsang_fig1": (5, 10), "tsang_table2": (14, 300), "tsang_table3": (14, 300),
               "fw_table2": (12, 210), "fw_table3": (12, 210), "fw_fig3": (6, 75),
               "fw_fig4": (6, 75), "fw_fig5": (3, 30), "fw_fig6": (3, 30), "fw_fig7": (6, 21),
               "fw_fig8": (6, 21), "fw_table8": (4, 60), "fw_stopping": (12, 144),
               "fw_tables4_7_ours": (12, 210), "curves": (34, 68), "leaderboard": (48, 400),
               "solvers": (64, 288)}


def test_every_artefact_has_an_experiment_config():
    assert artefacts() == sorted(CELL_COUNTS)


@pytest.mark.parametrize("artefact", sorted(CELL_COUNTS))
def test_sweep_expands_to_the_artefacts_cells_at_each_scale(artefact):
    for scale, count in zip(("quick", "paper"), CELL_COUNTS[artefact]):
        jobs = sweep_jobs(experiment_config(artefact, scale))
        assert len(jobs) == count
        assert len({tuple(job) for job in jobs}) == count, "a cell is listed twice"


def test_scales_write_to_different_places_and_quick_never_to_committed_results():
    quick, paper = (experiment_config("gs2008_table2", scale) for scale in ("quick", "paper"))
    assert quick.store.dir.startswith("results/quick/")
    assert quick.artefact.output.startswith("results/quick/")
    assert paper.artefact.output == "results/gs2008/table2.md"


def test_the_papers_per_dataset_settings_are_in_the_config():
    jobs = [set(job) for job in sweep_jobs(experiment_config("gs2008_table2", "paper"))]
    assert any({"dataset=w7a", "algorithm=gs_svm", "algorithm.gamma=0.1"} <= job for job in jobs)
    assert any({"dataset=w7a", "algorithm=smo_wss2", "++algorithm.C=4"} <= job for job in jobs)
    assert any({"dataset=a7a", "algorithm=libsvm", "++algorithm.C=2"} <= job for job in jobs)


def synthetic_records(artefact, scale):
    """One finished record per cell, with fixed numbers and provenance."""
    records = []
    for index, cell in enumerate(cells(artefact, scale)):
        settings = dict(o.lstrip("+").split("=", 1) for o in cell.overrides)
        records.append({
            "config_hash": cell.config_hash, "fold": 0, "status": "converged",
            "dataset": settings["dataset"], "algorithm": settings["algorithm"],
            "n_sv": 100 + index, "test_error": 0.01 * (index + 1), "train_time_s": 0.5 + index,
            "kernel_computed": 1e6 * (index + 1), "kernel_requested": 2e6 * (index + 1),
            "kernel_requested_working_set": 1.5e6 * (index + 1),
            "n_train": 1000, "git_commit": "c0ffee" * 6 + "abcd", "git_dirty": index == 0,
            "code_fingerprint": "feedfacefeedface", "run_id": "sweep-1",
            "timestamp_utc": "2026-11-22T10:00:00+00:00", "host": "box", "cpu": "cpu"})
    return records


def test_sources_say_one_run_a_few_clean_runs_or_neither():
    base = {**synthetic_records("gs2008_table2", "quick")[0], "git_dirty": False,
            "run_id": "/w/multirun/2026-11-26/03-00-00"}
    resumed = {**base, "fold": 1, "run_id": "/w/multirun/2026-11-27/09-30-00"}
    assert sources(pd.DataFrame([base, {**base, "fold": 1}])).endswith(
        "Measured in one run of one clean commit.")
    assert sources(pd.DataFrame([base, resumed])).endswith(
        "Measured from one clean commit in 2 runs (a sweep stopped and resumed, or split): "
        "2026-11-26/03-00-00, 2026-11-27/09-30-00.")
    for spoiler in ({"git_dirty": True}, {"git_commit": "b" * 40},
                    {"code_fingerprint": "0123456789abcdef"}, {"run_id": None}):
        line = sources(pd.DataFrame([base, {**resumed, **spoiler}]))
        assert "Not measured in one run of one clean commit" in line, spoiler


def test_renderer_turns_a_small_store_into_the_expected_table(tmp_path):
    store = ResultStore(tmp_path / "runs")
    for record in synthetic_records("gs2008_table2", "quick"):
        store.write(record)
    store.write({**synthetic_records("gs2008_table2", "quick")[0], "config_hash": "not-a-cell"})
    output = render("gs2008_table2", "quick", [f"store.dir={tmp_path / 'runs'}",
                                               f"artefact.output={tmp_path / 'table2.md'}"])
    assert output.read_text() == (GOLDEN / "gs2008_table2_quick.md").read_text()


def test_a_cluster_launcher_gets_the_same_cells_and_its_settings_from_the_command_line():
    cluster = ["hydra/launcher=svmbench_slurm", "hydra.launcher.partition=cpu",
               "hydra.launcher.timeout_min=240", "hydra.launcher.array_parallelism=32"]
    config = experiment_config("gs2008_table7", "paper", cluster)
    launcher = config.hydra.launcher
    assert launcher._target_.endswith("SlurmLauncher")
    assert (launcher.partition, launcher.timeout_min, launcher.array_parallelism) == ("cpu", 240, 32)
    jobs = sweep_jobs(config)
    plain = sweep_jobs(experiment_config("gs2008_table7", "paper"))
    assert [[o for o in job if o not in cluster] for job in jobs] == plain


def test_sources_name_the_compile_target_and_blas_kernel_where_records_carry_them():
    base = synthetic_records("gs2008_table2", "quick")[0]
    records = pd.DataFrame([
        {**base, "cpu": "AMD EPYC", "cpu_target": "znver4", "blas_core": "openblas 0.3 SkylakeX"},
        {**base, "cpu": "AMD EPYC", "fold": 1},  # stored before those fields
    ])
    line = sources(records)
    assert "cpu AMD EPYC, AMD EPYC (znver4; openblas 0.3 SkylakeX);" in line
