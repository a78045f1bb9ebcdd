"""Nothing a reader of the repository gets points outside the clone: no tracked file names the
staged data beside the checkout (``../shared``), except .ci/run (the CI machine's layout) and the
committed records under results/ (their provenance is data)."""

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE = ("../shared", "/work/shared")
ALLOWED = (".ci/run", "tests/test_repository_paths.py")  # this file names what it looks for


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
