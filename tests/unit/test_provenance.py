"""The dirty flag: uncommitted changes to what measures count, the sweep outputs under results/
do not (a re-run moves its old records to superseded/ while it writes new ones)."""

import subprocess

import pytest

from svmbench.provenance import OUTPUTS, git_state


def git(checkout, *arguments):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *arguments], cwd=checkout,
                   check=True, capture_output=True)


@pytest.fixture
def checkout(tmp_path):
    (tmp_path / "svmbench").mkdir()
    (tmp_path / "svmbench" / "solver.py").write_text("STEP = 1\n")
    (tmp_path / "svmbench" / "conf").mkdir()
    (tmp_path / "svmbench" / "conf" / "config.yaml").write_text("seed: 0\n")
    store = tmp_path / OUTPUTS / "paper" / "runs" / "cell"
    store.mkdir(parents=True)
    (store / "fold-0.json").write_text("{}\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "start")
    return tmp_path


def test_a_clean_checkout_is_clean_from_any_folder(checkout):
    commit, dirty = git_state(checkout / "svmbench")
    assert len(commit) == 40 and dirty is False


def test_records_moved_and_tables_rewritten_under_results_leave_the_tree_clean(checkout):
    store = checkout / OUTPUTS / "paper" / "runs"
    (store / "superseded").mkdir()
    (store / "cell" / "fold-0.json").rename(store / "superseded" / "fold-0-old.json")
    (checkout / OUTPUTS / "paper" / "table.md").write_text("new table\n")
    assert git_state(checkout / "svmbench")[1] is False


@pytest.mark.parametrize("changed", ["svmbench/solver.py", "svmbench/conf/config.yaml"])
def test_a_change_to_code_or_config_makes_it_dirty(checkout, changed):
    (checkout / changed).write_text("changed\n")
    assert git_state(checkout / "svmbench")[1] is True


def test_outside_git_the_state_is_unknown(tmp_path):
    assert git_state(tmp_path) == ("unknown", None)
