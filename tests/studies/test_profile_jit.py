"""studies/profile_jit.py: perf's map names numba's compiled functions at their addresses, whether
compiled in the process or loaded from numba's cache, and their names read short."""

import os
import subprocess
import sys
import textwrap

import pytest
from study_modules import STUDIES, load_study

PROFILED = textwrap.dedent("""
    import sys
    sys.path.insert(0, {studies!r})
    from profile_jit import ObjectKeeper, short_name
    keeper = ObjectKeeper()
    from kernels_of_a_test import scaled_sum, twice
    scaled_sum(twice(3.0), 2.0)
    for function in (scaled_sum, twice):
        result = function.overloads[function.signatures[0]]
        name = result.fndesc.llvm_func_name
        print(result.library.get_pointer_to_function(name), short_name(name))
    keeper.write_map({map!r})
""")

KERNELS = textwrap.dedent("""
    from numba import njit

    @njit(cache=True)
    def twice(x):
        return 2.0 * x

    @njit(cache=True)
    def scaled_sum(x, y):
        total = 0.0
        for k in range(int(y) + 3):
            total += twice(x) * k
        return total
""")


def run_profiled(tmp_path):
    """[(address, short name)] of the two functions and perf's map rows (start, size, name)."""
    map_path = tmp_path / "perf.map"
    script = tmp_path / "profiled.py"
    script.write_text(PROFILED.format(studies=str(STUDIES), map=str(map_path)))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    out = subprocess.run([sys.executable, str(script)], check=True, capture_output=True,
                         text=True, env=env, cwd=tmp_path).stdout
    functions = [(int(address), name) for address, name in
                 (line.split() for line in out.splitlines())]
    rows = [(int(start, 16), int(size, 16), name) for start, size, name in
            (line.split(" ", 2) for line in map_path.read_text().splitlines())]
    return functions, rows


@pytest.mark.parametrize("runs", [1, 2], ids=["compiled", "loaded from the cache"])
def test_map_names_each_function_at_its_address(tmp_path, runs):
    (tmp_path / "kernels_of_a_test.py").write_text(KERNELS)
    for _ in range(runs):  # the second run loads both functions from numba's cache
        functions, rows = run_profiled(tmp_path)
    assert [name for _, name in functions] == ["kernels_of_a_test.scaled_sum",
                                               "kernels_of_a_test.twice"]
    for address, name in functions:
        covering = [row for row in rows if row[0] <= address < row[0] + row[1]]
        assert [row[2] for row in covering] == [name]
        assert covering[0][0] == address  # the function starts there


@pytest.mark.parametrize("symbol, name", [
    (("_ZN8svmbench7solvers3smo13requested_rowB3v44B50c8tJTIeFIjxB2IKSgI4CrvSCKg1MMfAww4hVqFJ"
      "gqIBZmgA_3dE1502DenseProvider_28Tuple_28array_28float64"),
     "svmbench.solvers.smo.requested_row"),
    ("_ZN8svmbench7solvers3smo16make_solver_loop12_3clocals_3e11solver_loopB4v112B52c8tJ",
     "svmbench.solvers.smo.make_solver_loop.<locals>.solver_loop"),
    ("_ZN8svmbench7kernels8provider17_fill_dense_rangeB4v104B42c8tJTIeFIjxB2IKSgI4CrvQClc",
     "svmbench.kernels.provider._fill_dense_range"),
    ("NRT_incref", "NRT_incref"),
])
def test_short_name(symbol, name):
    assert load_study("profile_jit").short_name(symbol) == name
