"""Arrows point one way: reading records and rendering them needs no engine, and no library module
imports the command (svmbench.runner)."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "svmbench"
ENGINE = ("numba", "svmbench.solvers", "svmbench.models", "svmbench.runner")


@pytest.mark.parametrize("code", [
    "import svmbench.render",
    "import svmbench.webreport.build",
    "import svmbench.report",
    # describing an experiment's cells composes configs: the registration loads no solver
    "from svmbench.sweep import cells; cells('gs2008_table2', 'quick')",
])
def test_rendering_loads_neither_numba_nor_the_solvers(code):
    check = f"{code}\nimport sys\nprint(sorted(m for m in {ENGINE!r} if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]", f"{code!r} loaded {result.stdout.strip()}"


def imported(path):
    """The modules ``path`` imports (``from svmbench import runner`` as ``svmbench.runner``)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def test_no_library_module_imports_the_runner():
    importers = [path.relative_to(PACKAGE).as_posix() for path in sorted(PACKAGE.rglob("*.py"))
                 if path.name != "runner.py" and "svmbench.runner" in imported(path)]
    assert importers == []
