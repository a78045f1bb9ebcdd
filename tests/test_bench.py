"""experiments/bench.py at tiny scale: every contender fitted, interleaved, with both times."""

import importlib.util
import os
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "experiments" / "bench.py"


def has_a1a():
    return any((Path(root) / "adult" / "a1a").exists()
               for root in os.environ.get("SVMBENCH_DATA_PATH", "").split(os.pathsep) if root)


@pytest.mark.data
def test_bench_writes_one_row_per_contender_with_wall_and_cpu_time(tmp_path):
    if not has_a1a():
        pytest.skip("adult/a1a not found: set SVMBENCH_DATA_PATH to the shared data directory")
    spec = importlib.util.spec_from_file_location("bench", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    output = tmp_path / "bench.md"
    bench.SIZE_LIMITS = {"smo_mod1": 100}  # a1a's 150 samples are over it
    bench.main(["--datasets", "a1a", "--solvers", "smo_wss2", "gs_svm", "smo_mod1", "--repeats",
                "2", "--max-train", "150", "--output", str(output)])
    text = output.read_text()
    assert "## a1a (n = 150)" in text and "Median of 2 interleaved fits" in text
    for label in ("SVC (LIBSVM)", "smo_wss2 (1 thr)", "gs_svm (1 thr)"):
        assert f"| {label} |" in text
    assert "| wall s | CPU s | SVC/ours wall | SVC/ours CPU |" in text
    assert "| SV | iter | test acc % |" in text
    assert "| smo_mod1 (1 thr) |" not in text
    assert "smo_mod1: not run here, n = 150 > its size limit 100" in text
