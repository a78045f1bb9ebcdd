"""Nothing a reader of the repository gets points outside the clone: no tracked file names the
staged data beside the checkout (``../shared``), except .ci/run (the CI machine's layout) and the
committed records under results/ (their provenance is data)."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = ("../shared", "/work/shared")
# this file names what it looks for
ALLOWED = (".ci/run", "tests/integration/test_repository_paths.py")


def tracked_files():
    try:
        listing = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                                 check=True).stdout
    except (OSError, subprocess.CalledProcessError) as err:
        pytest.skip(f"not a git checkout ({err})")
    return [name for name in listing.decode().split("\0") if name]


def test_no_tracked_file_points_at_the_shared_directory_beside_the_clone():
    offending = []
    for name in tracked_files():
        path = ROOT / name
        if name in ALLOWED or name.startswith("results/") or not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        offending += [f"{name}:{number}: {line.strip()}"
                      for number, line in enumerate(text.splitlines(), 1)
                      if any(outside in line for outside in OUTSIDE)]
    assert not offending, ("files point the reader at a directory outside the clone; name "
                           "SVMBENCH_DATA_PATH / the cache instead (README 'Pointing at data'):\n"
                           + "\n".join(offending))


# the layout before issue 44: configs at the top level, renderers and studies in experiments/
RETIRED = re.compile(r"(?<![\w/.-])(?:experiments/\w+\.py|conf/(?:algorithm|experiment|protocol|"
                     r"scale|hydra)/\w[\w/]*\.yaml|conf/config\.yaml)")


def test_no_tracked_file_names_a_path_of_the_retired_layout():
    """conf/ moved into the package and experiments/ split into the papers' folders and studies/
    (docs/explanation/layout.md): a file naming an old path sends the reader nowhere."""
    offending = []
    for name in tracked_files():
        path = ROOT / name
        if name in ALLOWED or not path.is_file() or name.endswith(".json"):
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        offending += [f"{name}:{number}: {match}"
                      for number, line in enumerate(text.splitlines(), 1)
                      for match in RETIRED.findall(line)]
    assert not offending, ("old layout paths (conf/... is svmbench/conf/... or a paper's folder, "
                           "experiments/... is svmbench/papers/, svmbench/boards/ or studies/):\n"
                           + "\n".join(offending))
