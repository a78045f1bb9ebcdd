"""The scripts of studies/ as modules, for their tests (studies/ is a folder of scripts, not a
package)."""

import importlib.util
from pathlib import Path

STUDIES = Path(__file__).resolve().parents[2] / "studies"


def load_study(name):
    """studies/<name>.py executed as a fresh module named ``name``."""
    spec = importlib.util.spec_from_file_location(name, STUDIES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
