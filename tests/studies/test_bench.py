"""studies/bench.py at tiny scale: the 3 x 3 matrix per set, every contender fitted, with both
times, the kernel columns, the summary per solver and the time budget."""

import math
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from study_modules import STUDIES, load_study


def has(*paths):
    return all(any((Path(root) / path).exists()
                   for root in os.environ.get("SVMBENCH_DATA_PATH", "").split(os.pathsep) if root)
               for path in paths)


@pytest.mark.data
def test_bench_writes_a_three_by_three_matrix_per_set_with_the_summary(tmp_path):
    if not has("adult/a1a", "letter"):
        pytest.skip("adult/a1a or letter not found: set SVMBENCH_DATA_PATH to the shared data")
    bench = load_study("bench")
    output = tmp_path / "matrix.md"
    assert bench.main(["--scale", "quick", "--cold-start", "--datasets", "a1a", "letter",
                       "--solvers", "smo_wss2", "gs_svm", "--max-train", "150", "--output",
                       str(output)]) == 0
    text = output.read_text()
    assert "## a1a (n = 150)" in text and "## letter (n = 150)" in text
    assert "Median of 1 interleaved fits (1 of a contender whose fits all took less than 0 s " \
        "of wall time)" in text
    assert "Partial" not in text
    assert "BLAS (predictions, untimed) 1 thread." in text
    assert "| contender | C | gamma | wall s | CPU s | SV | test acc % | iter | K1 | K2 | reads s " \
        "| rows s | referee s | note | ns/K1 | rows % | us/it | bk us/it |" in text
    assert "- referee / fit wall: no cell with n >= 20,000; all " in text
    for label in ("SVC (LIBSVM)", "smo_wss2 (1 thr)", "gs_svm (1 thr)"):
        assert text.count(f"| {label} |") == 18  # 9 cells on each of the two sets
    gs_rows = [line.split("|") for line in text.splitlines() if line.startswith("| gs_svm (")]
    assert all(cells[12].strip() for cells in gs_rows)  # rows s, timed in the fit it shares
    for C, gamma in ((0.5, 0.0125), (8, 0.2), (2, 2), (32, 8)):  # corners and centres
        assert f"| smo_wss2 (1 thr) | {C:g} | {gamma:g} |" in text
    assert "## Summary per solver" in text and "| smo_wss2 | 18 |" in text
    assert "- smo_wss2, 1 thread /" in text and "ijcnn1: geometric mean nan" in text


@pytest.mark.data
def test_short_fits_are_repeated_in_turn_up_to_short_repeats(tmp_path, monkeypatch):
    """A contender whose fits all took less than --short-fit seconds is fitted again, in turn
    with the cell's other short ones, up to --short-repeats fits in all; an untimed round
    first, as before."""
    if not has("adult/a1a"):
        pytest.skip("adult/a1a not found: set SVMBENCH_DATA_PATH to the shared data directory")
    bench = load_study("bench")
    fits, timed_fit = [], bench.timed_fit

    def counted(contender, *args, keep=True, **kwargs):
        timed_fit(contender, *args, keep=keep, **kwargs)
        fits.append((contender.label, keep, len(contender.walls)))

    monkeypatch.setattr(bench, "timed_fit", counted)
    monkeypatch.setattr(bench, "grid", lambda dataset: [(1.0, 0.05, 0.05)])
    output = tmp_path / "matrix.md"
    bench.main(["--scale", "quick", "--cold-start", "--datasets", "a1a", "--solvers",
                "smo_wss2", "--max-train", "100", "--short-fit", "100", "--short-repeats", "3",
                "--output", str(output)])
    labels = [label for label, keep, _ in fits if not keep]  # the untimed round: each once
    assert "smo_wss2 (1 thr)" in labels and len(set(labels)) == len(labels)
    assert [(label, keep) for label, keep, _ in fits] == \
        [(label, False) for label in labels] + [(label, True) for label in labels] * 3
    assert [walls for _, keep, walls in fits if keep] == \
        [round_ for round_ in (1, 2, 3) for _ in labels]
    assert "Median of 1 interleaved fits (3 of a contender whose fits all took less than " \
        "100 s of wall time)" in output.read_text()


def test_ratio_summary_takes_geometric_means_worst_cells_and_counts_unequal_results():
    """Two cells, one peer: ratios 2 and 8 (geometric mean 4, worst 2), one SV count 10 % off."""
    bench = load_study("bench")
    base = {"dataset": "s", "n": 100, "gamma": 1.0, "test acc %": 90.0}
    rows = []
    for C, svc_cpu, ours_cpu, ours_wall_2, sv in ((1.0, 2.0, 1.0, 0.5, 100), (2.0, 8.0, 1.0, 1.0,
                                                                               110)):
        rows += [{**base, "C": C, "contender": "SVC (LIBSVM)", "solver": "SVC (LIBSVM)",
                  "threads": np.nan, "wall s": svc_cpu, "CPU s": svc_cpu, "SV": 100},
                 {**base, "C": C, "contender": "x (1 thr)", "solver": "x", "threads": 1,
                  "wall s": ours_cpu, "CPU s": ours_cpu, "SV": sv},
                 {**base, "C": C, "contender": "x (2 thr)", "solver": "x", "threads": 2,
                  "wall s": ours_wall_2, "CPU s": 2 * ours_wall_2, "SV": sv}]
    summary = bench.ratio_summary(pd.DataFrame(rows), 2)
    row = summary.loc["x"]
    assert row["SVC CPU / ours CPU, 1 thr: geo mean"] == pytest.approx(4.0)
    assert row["SVC CPU / ours CPU, 1 thr: worst"] == pytest.approx(2.0)
    assert row["ours 1 thr / ours 2 thr, wall: geo mean"] == pytest.approx(np.sqrt(2.0))
    assert row["SV off"] == 1 and row["acc off"] == 0 and row["cells"] == 2


@pytest.mark.data
def test_a_cell_over_budget_is_not_repeated_and_the_set_s_later_cells_are_left_out(tmp_path):
    if not has("adult/a1a"):
        pytest.skip("adult/a1a not found: set SVMBENCH_DATA_PATH to the shared data directory")
    bench = load_study("bench")
    output = tmp_path / "matrix.md"
    bench.main(["--scale", "quick", "--cold-start", "--datasets", "a1a", "a4a", "--solvers",
                "smo_mod1", "--max-train", "100", "--repeats", "2", "--budget", "0", "--output",
                str(output)])
    text = output.read_text()
    # a cell stops at once, before its first checkpoint (no bound: the next cells run) or after
    # one (a bound above the 0 s budget: the cells it dominates are not run); which, depends on
    # the clock, cell by cell
    stopped = not_run = bounded = 0
    for name in ("a1a", "a4a"):
        section = text[text.index(f"## {name} "):]
        section = section[:section.index("## a4a ")] if name == "a1a" else section
        ours = [line for line in section.splitlines() if line.startswith("| smo_mod1 (1 thr) |")]
        assert len(ours) == 9
        stops = [line for line in ours if "| over budget: stopped at 0 s; " in line]
        measured = [line for line in stops if "; stopped after 0 s at iteration" in line]
        skips = [line for line in ours if "| not run (over the budget, its rule's kernel entries "
                 "alone above it, on a cell of this set with no larger C or gamma); its rule's "
                 "kernel entries >= " in line]
        assert len(stops) + len(skips) == 9 and stops[0] == ours[0]
        assert len(stops) - len(measured) == sum("no checkpoint before it was stopped: no bound |"
                                                 in line for line in stops)
        assert not skips or measured  # only a measured bound rules cells out
        assert len(skips) == 8 if ours[0] in measured else len(stops) >= 2
        assert section.count("smo_mod1: over budget (0 s) at C 0.5, gamma 0.0125") == 1
        stopped, not_run, bounded = (stopped + len(stops), not_run + len(skips),
                                     bounded + len(measured))
    assert text.count("| smo_mod1 (") == 18 + stopped  # the other thread count: not tried
    assert text.count("not run: over budget at 1 thread |") == stopped
    assert text.count("| SVC (LIBSVM) |") == 18
    assert "- smo_mod1, every cell within the budget (0 s): 0 of 18 cells finished at 1 thread;" \
        " over budget on a1a" in text
    assert f"- smo_mod1, cells over the budget: {stopped} fitted (0 finished late), {bounded} " \
        f"of them with a measured bound of the rule's kernel entries above the budget; " \
        f"{not_run} not run, {not_run} of them with such a bound assumed" in text


def test_a_cell_over_the_budget_skips_only_the_cells_of_its_set_it_dominates(monkeypatch):
    """After rosen goes over the budget at set a's centre with its rule's bound above the
    budget, its cells there with a smaller C or a smaller gamma still run, the others not; at
    set b's centre its bound is within the budget: every cell runs (the budget stops each); set
    c runs every cell (another set's gamma is another kernel)."""
    bench = load_study("bench")
    sizes = {"a": 1000, "b": 2000, "c": 500}
    monkeypatch.setattr(bench, "load", lambda name, *_: (None, np.zeros(sizes[name])))
    monkeypatch.setattr(bench, "warm_up", lambda *args, **kwargs: None)
    monkeypatch.setattr(bench, "points_kind", lambda X: "dense")
    idle_worker = type("Worker", (), {"close": lambda self: None})
    monkeypatch.setattr(bench, "FitWorker", lambda *args: idle_worker())
    monkeypatch.setattr(bench, "SETTINGS", {name: (4.0, 1.0, 1.0, False) for name in "abc"})
    bounds = {"a": 700.0, "b": 500.0}
    run = []

    def run_cell(dataset, point, data, args, all_cores, skipped, warm, gs_fits, worker):
        run.append((dataset, point[:2], "rosen" not in skipped))
        if dataset in bounds and point[:2] == (4.0, 1.0):
            skipped.add("rosen")
            return [{"solver": "SVC (LIBSVM)", "threads": math.nan},
                    {"solver": "rosen", "threads": 1, "rule s": bounds[dataset]}]
        return []

    monkeypatch.setattr(bench, "run_cell", run_cell)
    args = bench.parse(["--solvers", "rosen", "--datasets", *sizes, "--budget", "600"])
    for name in "abc":
        _, over_here, not_run = bench.bench_dataset(name, args, 1)
        if name in bounds:
            assert over_here == {"rosen": [(4.0, 1.0, 1.0)]}
            assert not_run == ({"rosen": (3, (4.0, 1.0, 1.0))} if name == "a" else {})
    skipped = {(name, point) for name, point, ran in run if not ran}
    dominated = {(C, g) for C in (4.0, 16.0) for g in (1.0, 4.0)} - {(4.0, 1.0)}
    assert skipped == {("a", point) for point in dominated}
    assert len(run) == 27


def test_only_a_bound_above_the_budget_or_a_solver_the_budget_cannot_stop_rules_out_cells():
    bench = load_study("bench")
    cell = [{"solver": "SVC (LIBSVM)", "threads": math.nan},
            {"solver": "smo_platt", "threads": 1, "rule s": 452.0},
            {"solver": "rosen", "threads": 1, "rule s": 657.0},
            {"solver": "smo_mod1", "threads": 1}]  # stopped before its first checkpoint
    assert not bench.rules_out_dominated("smo_platt", cell, 600.0)
    assert bench.rules_out_dominated("rosen", cell, 600.0)
    assert not bench.rules_out_dominated("rosen", cell, 700.0)
    assert not bench.rules_out_dominated("smo_mod1", cell, 600.0)  # no bound: it runs them
    assert bench.rules_out_dominated("gs_svm", cell, 600.0)  # nothing would stop its fits


def test_dominating_takes_no_larger_c_or_gamma():
    bench = load_study("bench")
    over = [(4.0, 1.0, 0.5), (1.0, 4.0, 2.0)]
    assert bench.dominating(over, 4.0, 1.0) == over[0]
    assert bench.dominating(over, 16.0, 4.0) == over[0]  # the first that dominates
    assert bench.dominating(over, 2.0, 4.0) == over[1]
    assert bench.dominating(over, 2.0, 2.0) is None  # a smaller C than the first's, gamma second
    assert bench.dominating(over, 16.0, 0.5) is None  # a smaller gamma than both


@pytest.mark.data
def test_the_file_holds_every_set_finished_when_a_run_stops(tmp_path, monkeypatch):
    """The matrix is rewritten after each set: a run stopped in its second set leaves the first,
    headed as partial."""
    if not has("adult/a1a"):
        pytest.skip("adult/a1a not found: set SVMBENCH_DATA_PATH to the shared data directory")
    bench = load_study("bench")
    finished = bench.bench_dataset

    def stop_at_letter(dataset, *args):
        if dataset == "letter":
            raise KeyboardInterrupt
        return finished(dataset, *args)

    monkeypatch.setattr(bench, "bench_dataset", stop_at_letter)
    output = tmp_path / "matrix.md"
    with pytest.raises(KeyboardInterrupt):
        bench.main(["--scale", "quick", "--cold-start", "--datasets", "a1a", "letter",
                    "--solvers", "smo_wss2", "--max-train", "100", "--output", str(output)])
    text = output.read_text()
    assert "**Partial: the run has not benched letter yet (or was stopped).**" in text
    assert "## a1a (n = 100)" in text and "## letter" not in text
    assert text.count("| smo_wss2 (1 thr) |") == 9


@pytest.mark.data
def test_a_stopped_run_resumes_at_its_first_set_not_benched(tmp_path, monkeypatch):
    """Stopped in its second set, a run leaves its state; run again with the same arguments on
    the same clean commit it benches only that set, keeps the first set's rows, says it resumed,
    and drops the state at the end. Another CPU or another commit starts over."""
    if not has("adult/a1a", "adult/a4a"):
        pytest.skip("adult/a1a, a4a not found: set SVMBENCH_DATA_PATH to the shared data directory")
    bench = load_study("bench")
    monkeypatch.setattr(bench, "git_commit", lambda: "0123abcd")
    finished, benched = bench.bench_dataset, []

    def stop_at_a4a(dataset, *args):
        if dataset == "a4a":
            raise KeyboardInterrupt
        return finished(dataset, *args)

    def counted(dataset, *args):
        benched.append(dataset)
        return finished(dataset, *args)

    output = tmp_path / "matrix.md"
    argv = ["--scale", "quick", "--cold-start", "--datasets", "a1a", "a4a", "--solvers",
            "smo_wss2", "--max-train", "100", "--output", str(output)]
    monkeypatch.setattr(bench, "bench_dataset", stop_at_a4a)
    with pytest.raises(KeyboardInterrupt):
        bench.main(argv)
    partial = tmp_path / "matrix.partial.json"
    first = output.read_text()
    a1a = first[first.index("## a1a"):first.index("Command:")]
    assert partial.exists()
    monkeypatch.setattr(bench, "bench_dataset", counted)
    bench.main(argv)
    text = output.read_text()
    assert benched == ["a4a"] and not partial.exists()
    assert a1a in text and "## a4a (n = 100)" in text and "Partial" not in text
    assert text.count("| smo_wss2 (1 thr) |") == 18
    assert " Resumed in a new process from a4a at " in text
    with pytest.raises(KeyboardInterrupt):  # left again, then found by another commit
        monkeypatch.setattr(bench, "bench_dataset", stop_at_a4a)
        bench.main(argv)
    monkeypatch.setattr(bench, "machine", lambda: "another CPU (znver9)")
    monkeypatch.setattr(bench, "bench_dataset", counted)
    benched.clear()
    bench.main(argv)  # same commit, another CPU: its clock may not share the matrix
    assert benched == ["a1a", "a4a"] and "Resumed" not in output.read_text()
    with pytest.raises(KeyboardInterrupt):
        monkeypatch.setattr(bench, "bench_dataset", stop_at_a4a)
        bench.main(argv)
    monkeypatch.setattr(bench, "git_commit", lambda: "4567cdef")
    monkeypatch.setattr(bench, "bench_dataset", counted)
    benched.clear()
    bench.main(argv)
    assert benched == ["a1a", "a4a"] and "Resumed" not in output.read_text()
    args = bench.parse(argv)  # a run killed between its last set and dropping its state
    run = {"command": "", "threads": {}, "load_before": "", "cold_starts": [], "resumed": [],
           "started": 0.0, "seconds_before": 0.0}
    bench.save_partial(args, run, [], ["## a1a", "## a4a"])
    assert partial.exists() and bench.resumed_state(args) is None


@pytest.mark.data
def test_a_slow_solver_fits_in_its_worker_with_the_counts_of_a_fit_in_the_process(tmp_path):
    """smo_mod2 runs in the spawned worker (SLOW_SOLVERS): its cells carry the iterations,
    K1, K2 and SV count of the same fit made here."""
    if not has("adult/a1a"):
        pytest.skip("adult/a1a not found: set SVMBENCH_DATA_PATH to the shared data directory")
    bench = load_study("bench")
    assert "smo_mod2" in bench.SLOW_SOLVERS
    args = bench.parse(["--scale", "quick", "--datasets", "a1a", "--solvers", "smo_mod2",
                        "--max-train", "120", "--max-test", "50"])
    rows, over, not_run = bench.bench_dataset("a1a", args, 1)
    assert not over and not not_run
    data = bench.load("a1a", 120, 50)
    for row in rows:
        if row["solver"] != "smo_mod2":
            continue
        model = bench.build_estimator({"name": "smo_mod2", "C": row["C"], "gamma": row["gamma"],
                                       "tol": bench.TOL, "cache_mb": bench.CACHE_MB})
        expected = bench.summarize(model.fit(data[0], data[1]), data[2], data[3])
        assert row["note"] == expected.pop("faults") == ""
        assert row["referee s"] > 0 and expected.pop("referee s") > 0  # a clock: not compared
        assert math.isnan(row["reads s"]) and expected.pop("reads s") is None  # not timed
        assert 0 < row["rows s"] <= row["wall s"] and expected.pop("rows s") > 0  # a clock
        assert {key: row[key] for key in expected} == expected
        assert row["CPU s"] > 0


def test_a_fit_ending_in_a_fault_is_named_in_its_cells_note():
    """summarize counts the class pairs whose solver stopped at a fault; the cell's note shows
    them (a fit stopped at max_iter on three classes: 3 pairs)."""
    bench = load_study("bench")
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)), np.repeat([0, 1, 2], 20)
    model = bench.build_estimator({"name": "smo_wss2", "C": 100.0, "gamma": 1.0, "tol": 1e-6,
                                   "max_iter": 2, "cache_mb": 1.0})
    with pytest.warns(Warning, match="did not converge"):
        model.fit(X, y)
    summary = bench.summarize(model, X, y)
    assert summary["faults"] == "max_iter 3 of 3 pairs"
    converged = bench.build_estimator({"name": "smo_wss2", "C": 1.0, "gamma": 1.0, "tol": 1e-3,
                                       "cache_mb": 1.0})
    assert bench.summarize(converged.fit(X, y), X, y)["faults"] == ""


def test_parity_compares_bookkeeping_per_iteration_with_smo_wss2_in_the_same_cell():
    """Two cells: x's bookkeeping 2x and 0.5x smo_wss2's (geometric mean 1, worst 2, one cell
    within 1.5x); a cell at the rows' bound (bookkeeping <= 0) is left out and counted, a cell
    smo_wss2 did not run is not paired."""
    bench = load_study("bench")
    rows = []
    for C, ours, theirs in ((1.0, 4.0, 2.0), (2.0, 1.0, 2.0), (4.0, -1.0, 2.0)):
        for solver, value in (("smo_wss2", theirs), ("x", ours)):
            rows.append({"dataset": "s", "C": C, "gamma": 1.0, "solver": solver, "threads": 1,
                         "bk us/it": value})
    rows.append({"dataset": "s", "C": 8.0, "gamma": 1.0, "solver": "x", "threads": 1,
                 "bk us/it": 3.0})
    assert bench.parity(pd.DataFrame(rows))["x"] == (pytest.approx(1.0), pytest.approx(2.0), 1,
                                                      2, 1)


def test_the_header_says_whether_each_target_is_met():
    """headline: oneDAL's ratio met only with both its mean and worst at their targets, the
    speedups at theirs, a speedup with no cell said so; slow_headline: item 2 counts a cell over
    the budget only with a bound of its rule above the budget (measured, or assumed for a cell
    not run), a cell within the budget once whatever its bound, and parity is met only with
    every cell within 1.5x."""
    bench = load_study("bench")
    onedal = "oneDAL / ours wall, 2 thr"
    summary = pd.DataFrame([{"solver": "smo_wss2", f"{onedal}: geo mean": 2.5,
                             f"{onedal}: worst": 0.9, "SV off": 0, "acc off": 0}]
                           ).set_index("solver")
    text = bench.headline(summary, {("smo_wss2", "ijcnn1"): 1.6, ("smo_wss2", "n >= 20000"): 1.4,
                                    ("gs_svm", "ijcnn1"): math.nan}, 2)
    assert "worst 0.90 (target >= 1): NOT met;" in text
    assert "ijcnn1: geometric mean 1.60 (target >= 1.6): met" in text
    assert "n >= 20000: geometric mean 1.40 (target >= 1.45): NOT met" in text
    assert "gs_svm, 1 thread / 2 threads wall, ijcnn1: geometric mean nan (target >= 1.6): " \
           "no such cell ran" in text
    base = {"dataset": "s", "n": 100, "gamma": 1.0, "threads": 1}
    rows = [{**base, "solver": "smo_wss2", "C": float(C), "wall s": 1.0, "bk us/it": 1.0,
             "note": ""} for C in range(9)]
    rows += [{**base, "solver": "rosen", "C": float(C), "wall s": 10.0, "rule s": 5.0,
              "bk us/it": 1.4, "note": ""} for C in range(6)]
    rows[-1].update({"wall s": 590.0, "rule s": 610.0})  # within the budget: counted once
    rows += [{**base, "solver": "rosen", "C": 6.0, "wall s": math.nan, "rule s": 700.0,
              "note": "over budget: stopped at 600 s"},
             {**base, "solver": "rosen", "C": 7.0, "wall s": 650.0, "rule s": 300.0,
              "bk us/it": 1.6, "note": "over budget, 1 fit(s)"},
             {**base, "solver": "rosen", "C": 8.0, "wall s": math.nan, "bound s": 700.0,
              "note": "not run (over the budget on a cell ...)"}]
    args = bench.parse(["--solvers", "smo_wss2", "rosen", "--budget", "600"])
    text = bench.slow_headline(pd.DataFrame(rows), args)
    assert ("above it (issue 42 item 2): 8 of 9, NOT met" in text
            and "6 of 7 cells within 1.5x (target: all): NOT met" in text)
    rows[-2].update({"rule s": 610.0, "bk us/it": 1.5})
    text = bench.slow_headline(pd.DataFrame(rows), args)
    assert ("above it (issue 42 item 2): 9 of 9, met" in text
            and "7 of 7 cells within 1.5x (target: all): met" in text)


def test_time_per_requested_entry_is_that_of_reading_rows():
    """read_time_per_entry: a positive time per entry, under 100 ns (a row read from memory)."""
    bench = load_study("bench")
    assert 0.0 < bench.read_time_per_entry(1000) < 1e-7
    assert bench.pair_length(np.repeat([0, 1, 2, 3], 25)) == 50
    assert bench.pair_length(np.repeat([0, 1], 30)) == 60


def test_rosen_times_its_reading_of_requested_entries_and_smo_wss2_leaves_it_to_the_bench():
    """summarize's ``reads s``: Rosen's Q d time, positive and within the fit's wall time;
    None for smo_wss2, whose reading the bench estimates from K2; ``rows s``, the provider's
    computing time, both's. median_part: the median of the timed fits, NaN when none is."""
    bench = load_study("bench")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = np.where(X[:, 0] + rng.normal(size=300) > 0, 1, -1)
    for name in ("rosen", "smo_wss2"):
        model = bench.build_estimator({"name": name, "C": 4.0, "gamma": 1.0, "tol": 1e-3,
                                       "cache_mb": 1.0})
        start = time.perf_counter()
        model.fit(X, y)
        wall = time.perf_counter() - start
        summary = bench.summarize(model, X, y)
        assert 0.0 < summary["rows s"] <= wall
        if name == "rosen":
            assert 0.0 < summary["reads s"] <= wall
        else:
            assert summary["reads s"] is None
    timings = [{"reads s": seconds} for seconds in (3.0, None, 1.0, 2.0)]
    assert bench.median_part(timings, "reads s") == 2.0
    assert math.isnan(bench.median_part(timings[1:2], "reads s"))


def rosen_worker():
    """A FitWorker for Rosen over 3,000 noisy 5-feature samples (two classes, seed 0), with its
    last 10 as the test part, and the data."""
    sys.path.insert(0, str(STUDIES))
    from _fit_worker import FitWorker

    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 5))
    y = np.where(X[:, 0] + rng.normal(size=3000) > 0, 1, 0)
    return FitWorker((X, y, X[:10], y[:10]), ["rosen"]), X, y


def test_a_slow_fit_stopped_at_the_budget_says_how_far_it_went():
    """The worker shares its fits' checkpoints with the bench: a fit killed at the budget, or
    later while keep_going asks (read every POLL_S past the budget), leaves its last checkpoint
    (iteration, K2, K1, gap), and the next fit in a new worker finishes with the counts of the
    same fit made here."""
    worker, X, y = rosen_worker()
    from _fit_worker import POLL_S, summarize

    from svmbench.algorithms import build_estimator

    try:
        slow = {"name": "rosen", "C": 1e6, "gamma": 2.0, "tol": 1e-9, "cache_mb": 100.0}
        asked = []

        def keep_going(progress, seconds):
            asked.append((progress, seconds))
            return seconds < 3.0

        assert worker.fit(slow, 1, 2.0, keep_going) is None
        iteration, requested, computed, gap = worker.progress
        assert iteration > 0 and requested >= computed > 0 and gap > 2e-9
        assert [round(seconds) for _, seconds in asked] == [2, 2 + POLL_S]
        assert 2 + POLL_S <= worker.ran < 2 + 2 * POLL_S  # stopped at the second no
        assert asked[-1][0][0] > asked[0][0][0]  # the fit went on past the budget
        quick = {"name": "rosen", "C": 0.5, "gamma": 0.5, "tol": 1e-3, "cache_mb": 100.0}
        (wall, _, failed), summary = worker.fit(quick, 1, 600.0)
        expected = summarize(build_estimator(quick).fit(X, y), X[:10], y[:10])
        assert summary.pop("referee s") > 0 and expected.pop("referee s") > 0  # clocks
        for clock in ("reads s", "rows s"):
            assert summary.pop(clock) > 0 and expected.pop(clock) > 0
        assert summary == expected and wall > 0 and failed == ""
    finally:
        worker.close()


def test_a_worker_that_ends_within_a_fit_gives_a_failed_fit_and_the_next_fit_a_new_worker():
    """The worker killed from outside within a slow fit (as the system's memory killer would):
    the fit comes back failed, with the exit code and no summary, and the next fit runs in a
    new worker."""
    worker, _, _ = rosen_worker()
    quick = {"name": "rosen", "C": 0.5, "gamma": 0.5, "tol": 1e-3, "cache_mb": 100.0}
    slow = {"name": "rosen", "C": 1e6, "gamma": 2.0, "tol": 1e-9, "cache_mb": 100.0}
    try:
        assert worker.fit(quick, 1, 600.0)[0][2] == ""  # the worker is up
        killer = threading.Timer(1.0, worker.process.kill)
        killer.start()
        (wall, cpu, failed), summary = worker.fit(slow, 1, 600.0)
        killer.join()
        assert math.isnan(wall) and math.isnan(cpu) and summary is None
        assert failed == "failed:the fit's worker process ended (exit code -9)"
        (wall, _, failed), summary = worker.fit(quick, 1, 600.0)
        assert failed == "" and wall > 0 and summary["SV"] > 0
    finally:
        worker.close()


def test_a_worker_that_ends_while_compiling_gives_a_failed_fit():
    """A worker that cannot compile its solvers (an unknown name: warm_up raises) ends before
    it is ready: the fit comes back failed with the exit code, instead of the bench waiting
    forever (the fit runs in a thread given 120 s) or raising."""
    worker, _, _ = rosen_worker()
    worker.solvers = ["no_such_solver"]
    answers = []
    try:
        fitting = threading.Thread(target=lambda: answers.append(
            worker.fit({"name": "rosen", "C": 1.0}, 1, 600.0)), daemon=True)
        fitting.start()
        fitting.join(120.0)
        assert answers, "the fit still waits for a worker that ended"
        (wall, cpu, failed), summary = answers[0]
        assert math.isnan(wall) and math.isnan(cpu) and summary is None
        assert failed == "failed:the fit's worker process ended while compiling (exit code 1)"
        assert worker.process is None
    finally:
        worker.close()


def test_a_fit_goes_on_past_the_budget_while_its_bound_may_pass_the_budget():
    """past_budget: budget 10 s, cap 3 budgets, 1 ns per computed and 0.1 ns per requested
    entry: a bound of 5 s after 12 s grows past 10 s by 30 s (go on), after 25 s it would not
    (stop); a bound above the budget is shown (stop); nothing past the cap or before a
    checkpoint; no costs (no slow solver at 1 thread): no keep_going."""
    bench = load_study("bench")
    args = bench.parse(["--budget", "10", "--bound-cap", "3"])
    keep_going = bench.past_budget({0.5: 1e-9, "read": 1e-10}, 0.5, args)
    five = (100, 10**10, 4 * 10**9, 0.1)  # 1 s + 4 s
    assert bench.entry_seconds(five, {0.5: 1e-9, "read": 1e-10}, 0.5) == pytest.approx(5.0)
    assert keep_going(five, 12.0) and not keep_going(five, 25.0)
    assert not keep_going((100, 10**10, 10**10, 0.1), 12.0)  # 11 s: shown
    assert not keep_going(five, 30.0) and not keep_going(None, 12.0)
    assert bench.past_budget({}, 0.5, args) is None


def test_a_stopped_cells_note_says_how_far_it_went_and_what_its_bound_shows():
    """bound_note, with the a8a C 8 gamma 0.05 cell's numbers (load 10-13, not of record): the
    iteration, violation and counts of the last checkpoint, the bound and the costs it assumes,
    and within or above the budget; Platt records no violation."""
    bench = load_study("bench")
    costs = {0.05: 5.1e-9, "read": 3.19e-10}
    y = np.repeat([0, 1], 50)
    rosen = bench.Contender("rosen (1 thr)", "rosen", None, 1, {"tol": 1e-3}, stopped=True,
                            over_budget=True, progress=(33005, 2.338e11, 1.843e8, 0.591),
                            stopped_after=638.0)
    row = {"rule s": bench.entry_seconds(rosen.progress, costs, 0.05)}
    assert bench.bound_note(rosen, row, costs, 0.05, y, 600.0) == (
        "; stopped after 638 s at iteration 33005 (last checkpoint: violation 0.591, its stop at "
        "<= 0.002; K2 2.338e+11, K1 1.843e+08): its rule's kernel entries alone >= 75.5 s (K2 x "
        "0.319 ns + K1 x 5.1 ns, the least measured costs of a requested and a computed entry), "
        "within the budget: the rest of its time is not shown to be the rule's")
    assert bench.bound_note(rosen, row, costs, 0.05, y, 60.0).endswith(
        "above the budget: the published rule's cost")
    platt = bench.Contender("smo_platt (1 thr)", "smo_platt", None, 1, {"tol": 1e-3},
                            stopped=True, over_budget=True, stopped_after=638.0,
                            progress=(1122471, 5.096e10, 2.7e8, math.nan))
    assert "(last checkpoint: no violation recorded; K2" in bench.bound_note(
        platt, row, costs, 0.05, y, 600.0)
    assert bench.bound_note(platt, {}, costs, 0.05, y, 600.0) == \
        "; no checkpoint before it was stopped: no bound"


def test_a_cell_not_run_states_the_bound_of_a_smaller_cell_of_its_set_and_the_check():
    """A slow solver's cell not run takes the largest bound of its set's cells with no larger C
    and gamma; none when there is no such cell; the headline counts them and the ordered pairs
    of one set's finished cells whose bound does not fall (another set's cells are no pair)."""
    bench = load_study("bench")
    base = {"dataset": "s", "n": 100, "solver": "rosen", "contender": "rosen (1 thr)",
            "threads": 1}
    ours = [{**base, "C": 1.0, "gamma": 1.0, "wall s": 50.0, "rule s": 40.0, "note": ""},
            {**base, "C": 4.0, "gamma": 1.0, "wall s": 500.0, "rule s": 450.0, "note": ""},
            {**base, "C": 16.0, "gamma": 1.0, "wall s": math.nan, "rule s": 700.0,
             "note": "over budget: stopped at 600 s; ..."}]
    peer = {"dataset": "s", "n": 100, "solver": "SVC (LIBSVM)", "contender": "SVC (LIBSVM)",
            "threads": math.nan, "wall s": 1.0, "note": ""}
    found = ours + [{**peer, "C": C, "gamma": 1.0} for C in (0.5, 1.0, 4.0, 16.0, 64.0)]
    rows = bench.with_inherited_bounds(found, 600.0)
    added = {row["C"]: row for row in rows[len(found):]}
    assert sorted(added) == [0.5, 64.0] and "bound s" not in added[0.5]
    assert added[64.0]["bound s"] == 700.0
    assert added[64.0]["note"] == (
        "not run (over the budget, its rule's kernel entries alone above it, on a cell of this "
        "set with no larger C or gamma); its rule's kernel entries >= 700 s, assumed from C 16 "
        "gamma 1 (no larger C or gamma): above the budget")
    other = {**base, "dataset": "t", "n": 200, "C": 64.0, "gamma": 4.0, "wall s": 5.0,
             "rule s": 4.0, "note": ""}  # cheaper on another set's kernel: no pair with s's
    frame = pd.DataFrame(rows + [other])
    assert bench.monotone_pairs(frame, "rosen") == (1, 1)
    args = bench.parse(["--solvers", "rosen", "--budget", "600"])
    assert bench.bound_headline(frame, args) == (
        "\n- rosen, cells over the budget: 1 fitted (0 finished late), 1 of them with a measured "
        "bound of the rule's kernel entries above the budget; 2 not run, 1 of them with such a "
        "bound assumed from a smaller cell (held on 1 of 1 ordered pairs of finished cells)")


def test_the_header_reports_each_solvers_cold_start_and_the_target(monkeypatch):
    """cold_starts runs a fresh process per solver on an empty cache, then svmbench-compile into
    another, then a fresh process per solver on that one, and one more for its large fit (none
    for a solver without code for large fits only); the header's line says whether every first
    fit after it, large ones included, took 30 s or less, and what compiling at the install
    took."""
    bench = load_study("bench")
    calls, compiles = [], []

    def first_fit(solver, cache, size="small"):
        calls.append((solver, cache, size))
        if size == "large":
            return ({"solver": solver, "samples": 8692, "fit_wall": 31.0, "compiled": 5}
                    if solver == "smo_wss2" else {"solver": solver, "samples": None})
        cold = not compiles
        seconds = {"smo_wss2": 12.0, "rosen": 41.0}[solver] if cold else 0.5
        return {"fit_wall": seconds, "fit_cpu": seconds, "compiled": 90 if cold else 0,
                "predict_wall": 1.0, "import_wall": 2.0}

    def compile_ahead(cache):
        compiles.append(cache)
        return {"wall": 300.0, "cpu": 580.0, "load average": "2.0/2.0/2.0"}

    monkeypatch.setattr(bench, "first_fit", first_fit)
    monkeypatch.setattr(bench, "compile_ahead", compile_ahead)
    measured = bench.cold_starts(["smo_wss2", "rosen"])
    assert [(solver, size) for solver, _, size in calls] == [
        ("smo_wss2", "small"), ("rosen", "small"), ("smo_wss2", "small"), ("smo_wss2", "large"),
        ("rosen", "small"), ("rosen", "large")]
    assert len({cache for _, cache, _ in calls[:2]} | set(compiles)) == 3  # each cold cache empty
    assert {cache for _, cache, _ in calls[2:]} == {compiles[0]}  # then the one it filled
    line, table = bench.cold_start_section(measured)
    assert ("svmbench-compile, which compiled every built-in solver for dense and binary points "
            "and its grid search in 300 s (580 s CPU" in line)
    assert "first fit after it took at most 31.00 s: 1 of 2 solvers NOT met" in line
    assert "Without it, a first fit compiles: 1 of 2 within the target, longest rosen 41.0" in line
    assert "(\"large fit\", counted in the target): smo_wss2 on 8692 samples 31.00 s, 5 compiled." in line
    assert "| smo_wss2 | 12.00 | 12.00 | 90 | 1.00 | 2.00 |" in table
    assert table.splitlines()[2].endswith("| 0.50 | 0 | 8692 | 31.00 | 5 |")
    assert bench.cold_start_section(bench.cold_starts([])) == []


class TamperedSVC:
    """A peer that claims convergence for a point it spoiled: scikit-learn's SVC fit, its dual
    coefficients then halved (the referee refutes it: the KKT conditions fail by far)."""

    def __init__(self, **params):
        from sklearn.svm import SVC
        self.svc = SVC(**params)

    def fit(self, X, y):
        self.svc.fit(X, y)
        self.svc.dual_coef_ = self.svc.dual_coef_ * 0.5
        return self

    def __getattr__(self, name):
        return getattr(self.svc, name)


def blobs(seed, count=80):
    rng = np.random.default_rng(seed)
    y = np.repeat([-1, 1], count // 2)
    return rng.normal(size=(count, 4)) + y[:, None], y


def test_a_refuted_peer_fit_is_a_recorded_cell_and_the_run_exits_non_zero(tmp_path, monkeypatch,
                                                                           capsys):
    """oneDAL's SVC refuted by the referee in every cell (a stand-in whose point is spoiled):
    each of its cells is in the matrix with its note (failed:refuted: ...) and no times, no
    ratio uses it, the header lists the cells, the run finishes and returns 1."""
    bench = load_study("bench")
    monkeypatch.setattr(bench, "peer_svc", lambda C, gamma: lambda: TamperedSVC(
        C=C, gamma=gamma, tol=bench.TOL, cache_size=bench.CACHE_MB))
    monkeypatch.setattr(bench, "load", lambda name, *_: (*blobs(0), *blobs(1)))
    output = tmp_path / "matrix.md"
    assert bench.main(["--scale", "quick", "--cold-start", "--datasets", "a1a", "--solvers",
                       "smo_wss2", "--output", str(output)]) == 1
    text = output.read_text()
    refuted = [line for line in text.splitlines() if line.startswith("| oneDAL SVC |")]
    assert len(refuted) == 9
    assert all(line.startswith("| oneDAL SVC | ") and line.split("|")[4:6] == ["  ", "  "]
               and "failed:refuted: TamperedSVC claimed convergence" in line
               for line in refuted)  # no times
    assert text.count("| SVC (LIBSVM) |") == text.count("| smo_wss2 (1 thr) |") == 9
    assert "- fits that raised or that the referee refuted: 9 cell(s), each noted with why " \
           "(oneDAL SVC on a1a at C 0.5, gamma 0.0125;" in text
    assert "a1a, C 0.5, gamma 0.0125: oneDAL SVC: failed:refuted:" in capsys.readouterr().err


def test_no_ratio_nor_comparison_of_results_uses_a_failed_peer():
    """A cell whose oneDAL fit was refuted: no oneDAL ratio, and its SV count (half the right
    one) does not count ours as off; SVC's cell still gives its ratio."""
    bench = load_study("bench")
    base = {"dataset": "s", "n": 100, "C": 1.0, "gamma": 1.0, "test acc %": 90.0}
    rows = [{**base, "contender": bench.SVC_LABEL, "solver": bench.SVC_LABEL, "threads": np.nan,
             "wall s": 2.0, "CPU s": 2.0, "SV": 100, "note": ""},
            {**base, "contender": bench.ONEDAL_LABEL, "solver": bench.ONEDAL_LABEL,
             "threads": np.nan, "wall s": np.nan, "CPU s": np.nan, "SV": 50,
             "note": "failed:refuted: SVC claimed convergence"},
            *({**base, "contender": f"x ({threads} thr)", "solver": "x", "threads": threads,
               "wall s": 1.0, "CPU s": 1.0, "SV": 100, "note": ""} for threads in (1, 2))]
    row = bench.ratio_summary(pd.DataFrame(rows), 2).loc["x"]
    assert math.isnan(row["oneDAL / ours wall, 2 thr: geo mean"])
    assert row["SVC CPU / ours CPU, 1 thr: geo mean"] == pytest.approx(2.0)
    assert row["SV off"] == 0


def test_a_fit_that_raises_keeps_no_times_and_says_why():
    """certified_fit: a fit our referee refutes (RefutedError from fit) or that raises gives
    NaN times and the store's failure status; summarize has nothing of an unfitted model."""
    bench = load_study("bench")
    from svmbench.referee import RefutedError

    class Refuted:
        def fit(self, X, y):
            raise RefutedError("refuted: x claimed convergence")

    class Broken:
        def fit(self, X, y):
            raise FloatingPointError("overflow in the gradient")

    X, y = blobs(0)
    wall, cpu, failed = bench.certified_fit(Refuted(), X, y)
    assert math.isnan(wall) and math.isnan(cpu)
    assert failed == "failed:refuted: x claimed convergence"
    assert bench.certified_fit(Broken(), X, y)[2] == \
        "failed:FloatingPointError: overflow in the gradient"
    assert bench.summarize(Refuted(), X, y) is None
    model = bench.build_estimator({"name": "smo_wss2", "C": 1.0, "gamma": 0.5, "tol": 1e-3,
                                   "cache_mb": 1.0})
    wall, cpu, failed = bench.certified_fit(model, X, y)
    assert failed == "" and wall > 0 and cpu > 0
