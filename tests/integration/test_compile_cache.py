"""numba's compiled code is cached by source content (svmbench.kernels.compile_cache): a fresh
process with an empty cache compiles, says so once, and compiles only its own rule; a second
process loads everything; a changed source file is compiled anew, never served old code; the
directory is locked while numba compiles; old directories are pruned, locked ones kept; no
Python code calls a compiled callee (it has no Python entry point)."""

import ast
import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from numba.core.dispatcher import Dispatcher

from svmbench.kernels import compile_cache
from svmbench.kernels.compile_cache import JIT_SOURCES, PACKAGE, SourceKeyedLocator, prune

ROOT = PACKAGE.parent

# a program's preamble: ``compiled`` collects the name of every function numba compiles
COUNT_COMPILES = """
import json
import numpy as np
from numba.core import event
compiled, signatures = [], []
class Count(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)
        signatures.append(compiled[-1] + str(ev.data["args"]))
    def on_end(self, ev):
        pass
event.register("numba:compile", Count())
"""

FIRST_FIT = COUNT_COMPILES + """
import numba
from svmbench.kernels import provider
from svmbench.solvers import smo
from svmbench.models import SMOSVC
rng = np.random.default_rng(3)
X = rng.normal(size=(60, 3))
y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
numba.set_num_threads(1)
wss2 = SMOSVC(variant="wss2", C=2.0, gamma=0.5).fit(X, y)
# Platt's and Keerthi's code, the parallel passes (one thread here), the other points' rows
others = [function.__name__ for function in (
    smo.next_examined, smo.platt_threshold, smo.refresh_thresholds, smo.bound_gradients,
    smo.keerthi_blocks, smo.wss2_pair_parallel, smo.step_and_select,
    smo.SOLVER_LOOPS[smo.WSS2, True], provider._fill_from_points, provider._fill_from_bits)
    if function.signatures]
platt = SMOSVC(variant="platt", C=2.0, gamma=0.5).fit(X, y)
print(json.dumps({"compiled": len(compiled), "others": others,
                  "decision": [wss2.decision_function(X).tolist(),
                               platt.decision_function(X).tolist()]}))
"""


def run(program, cache, pythonpath=None):
    """The last line of ``program``'s output as JSON, and its stderr; ``cache``: numba's cache
    directory (None: the user's, compile_cache.cache_root)."""
    env = {**os.environ} if cache is None else {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          env=env, check=True, cwd=ROOT if pythonpath is None else pythonpath)
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_a_cold_start_compiles_its_rule_once_and_a_second_process_loads_it(tmp_path):
    """wss2's fit compiles none of Platt's and Keerthi's code, none of the parallel passes on
    one thread and none of the row fillers of other points than its dense ones; Platt's loop is
    cached too (a compiled function passed as a value would make it uncacheable: a dynamic
    global)."""
    first, told = run(FIRST_FIT, tmp_path)
    assert first["compiled"] > 0 and first["others"] == []
    # one notice per solver that compiles, naming it (its predictions' kernels are not told)
    assert told.count("svmbench: compiling") == 2
    assert told.count("compiling smo_wss2 once") == told.count("compiling smo_platt once") == 1
    second, quiet = run(FIRST_FIT, tmp_path)
    assert second["compiled"] == 0 and "compiling" not in quiet
    assert second["decision"] == first["decision"]


DIAGONAL = """
import json
import numpy as np
from svmbench.kernels.provider import make_provider
provider = make_provider(np.array([[1.0, 2.0], [3.0, 0.0]]), kernel="linear")
print(json.dumps({"diag": provider.diag.tolist()}))
"""


def test_a_changed_source_file_is_compiled_anew_even_when_only_a_callee_changed(tmp_path):
    """provider.fill_diagonal calls math.apply_kernel: numba's own cache, keyed on provider.py,
    would serve the old machine code after math.py changed."""
    copy = tmp_path / "checkout"
    shutil.copytree(PACKAGE, copy / "svmbench", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    assert run(DIAGONAL, cache, copy)[0]["diag"] == [5.0, 9.0]
    math_py = copy / "svmbench" / "kernels" / "math.py"
    source = math_py.read_text()
    linear = "        return (gamma * dot + coef0) ** degree\n    return dot\n"
    assert linear in source
    math_py.write_text(source.replace(linear, linear.replace("return dot", "return dot + 1.0")))
    assert run(DIAGONAL, cache, copy)[0]["diag"] == [6.0, 10.0]


COMPILED_DIAGONAL = COUNT_COMPILES + """
import svmbench
from svmbench.kernels.provider import make_provider
provider = make_provider(np.array([[1.0, 2.0], [3.0, 0.0]]), kernel="linear")
print(json.dumps({"compiled": len(compiled), "package": svmbench.__file__}))
"""


def test_a_fresh_clone_elsewhere_loads_what_another_checkout_compiled(tmp_path):
    """Two checkouts of the same sources at two paths, their files written at different times
    (numba's own index would take them for changed sources): the second compiles nothing."""
    cache = tmp_path / "cache"
    checkouts = [tmp_path / "one", tmp_path / "elsewhere" / "two"]
    for hours, checkout in enumerate(checkouts):
        shutil.copytree(PACKAGE, checkout / "svmbench", copy_function=shutil.copyfile,
                        ignore=shutil.ignore_patterns("__pycache__"))
        for source in (checkout / "svmbench").rglob("*.py"):
            os.utime(source, (time.time() + 3600 * hours, time.time() + 3600 * hours))
    first, second = (run(COMPILED_DIAGONAL, cache, checkout)[0] for checkout in checkouts)
    assert Path(second["package"]).resolve().is_relative_to(checkouts[1])
    assert first["compiled"] > 0 and second["compiled"] == 0


LOCKED_WHILE_COMPILING = """
import fcntl, json
import numpy as np
from numba.core import event
from svmbench.kernels import compile_cache
from svmbench.kernels.math import is_sparse, make_points

seen = []
class Probe(event.Listener):
    def on_start(self, ev):
        with open(compile_cache.key_directory() / ".lock", "a") as other:
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
                seen.append("free")
            except BlockingIOError:
                seen.append("locked")
    def on_end(self, ev):
        pass
event.register("numba:compile", Probe())
is_sparse(make_points(np.ones((2, 2))))
print(json.dumps(seen))
"""


def test_the_cache_directory_is_locked_while_numba_compiles(tmp_path):
    assert run(LOCKED_WHILE_COMPILING, tmp_path)[0] == ["locked"]


def key_folder(cache, folder="kernels"):
    """The one key directory's ``folder`` under a NUMBA_CACHE_DIR."""
    (key,) = (cache / "svmbench").iterdir()
    return key / folder


def hold(path, mode=fcntl.LOCK_EX):
    lock = open(path, "a")  # noqa: SIM115 (the caller closes it)
    fcntl.flock(lock, mode)
    return lock


def test_a_process_that_only_loads_never_waits_for_one_that_compiles(tmp_path):
    """Every function of a program locked as a compiling process locks it (the directory shared,
    each function exclusive): a process that finds them all in the cache loads them at once (it
    waited for the whole directory: 320 s in one case)."""
    cache = tmp_path / "cache"
    assert run(COMPILED_DIAGONAL, cache)[0]["compiled"] > 0
    folder = key_folder(cache)
    held = [hold(folder.parent / ".lock", fcntl.LOCK_SH),
            *(hold(path) for path in sorted(folder.glob("*.lock")))]
    assert len(held) > 5
    try:
        loaded = subprocess.run([sys.executable, "-c", COMPILED_DIAGONAL], capture_output=True,
                                check=True,
                                text=True, cwd=ROOT, timeout=120,
                                env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    finally:
        for lock in held:
            lock.close()
    assert json.loads(loaded.stdout.strip().splitlines()[-1])["compiled"] == 0


def waiting_on_a_lock(pid):
    """Whether process ``pid`` waits for a file lock (a blocked entry of /proc/locks)."""
    return any(fields[1] == "->" and fields[-4] == str(pid) for fields in
               map(str.split, Path("/proc/locks").read_text().splitlines()))


def test_a_process_missing_a_function_waits_for_the_one_compiling_it_then_loads_it(tmp_path):
    """The cache lacks fill_diagonal while another process (this test) holds its lock, as while
    compiling it: the program waits; the other saves it and lets go: the program loads it and
    compiles nothing."""
    cache = tmp_path / "cache"
    assert run(COMPILED_DIAGONAL, cache)[0]["compiled"] > 0
    folder = key_folder(cache)
    saved = tmp_path / "saved"
    saved.mkdir()
    for path in folder.glob("provider.fill_diagonal-*.nb*"):
        path.rename(saved / path.name)
    assert len(list(saved.iterdir())) == 2
    (lock_path,) = folder.glob("provider.fill_diagonal-*.lock")
    with open(lock_path, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        program = subprocess.Popen([sys.executable, "-c", COMPILED_DIAGONAL], text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                                   env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
        deadline = time.monotonic() + 120
        while not waiting_on_a_lock(program.pid) and time.monotonic() < deadline:
            assert program.poll() is None, program.communicate()
            time.sleep(0.1)
        assert waiting_on_a_lock(program.pid)
        for path in saved.iterdir():
            shutil.copyfile(path, folder / path.name)
    out, err = program.communicate(timeout=120)
    assert program.returncode == 0, err
    assert json.loads(out.strip().splitlines()[-1])["compiled"] == 0


def test_two_processes_compiling_at_once_compile_each_function_once(tmp_path):
    """Two cold processes on one cache: both finish, and what one compiled the other loaded
    (a function and its argument types: numba's overloads share a name, e.g. a scalar's view
    from float64 to int64 and back)."""
    programs = [subprocess.Popen([sys.executable, "-c", COMPILED_DIAGONAL.replace(
        '"compiled": len(compiled)', '"compiled": signatures')], text=True, cwd=ROOT,
        stdout=subprocess.PIPE, env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
        for _ in range(2)]
    compiled = [json.loads(program.communicate(timeout=600)[0].strip().splitlines()[-1])[
        "compiled"] for program in programs]
    assert all(program.returncode == 0 for program in programs)
    both = compiled[0] + compiled[1]
    assert len(both) == len(set(both)) > 5


def test_pruning_keeps_the_most_recently_used_directories_and_any_locked_one(tmp_path):
    keys = []
    for age in range(6):
        key = tmp_path / f"key{age}"
        (key / "kernels").mkdir(parents=True)
        (key / ".lock").touch()
        os.utime(key / ".lock", (time.time() - 3600 * age, time.time() - 3600 * age))
        keys.append(key)
    with open(keys[5] / ".lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        prune(tmp_path, keep=2)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["key0", "key1", "key5"]


def compiled_functions():
    """Every numba dispatcher defined in svmbench: module globals, and the values of module-level
    dicts (the loops made per rule, smo.SOLVER_LOOPS, meb.RUNS)."""
    import svmbench.models  # noqa: F401 -- imports every solver

    values = [value for name, module in list(sys.modules.items()) if name.startswith("svmbench")
              for value in vars(module).values()]
    values += [item for value in values if isinstance(value, dict) for item in value.values()]
    return list({id(value): value for value in values if isinstance(value, Dispatcher)}.values())


def test_every_compiled_function_lives_in_the_hashed_sources_and_is_cached_by_content():
    from svmbench.solvers.meb import RUNS
    from svmbench.solvers.smo import SOLVER_LOOPS

    functions = compiled_functions()
    assert len(functions) > 100
    assert {*SOLVER_LOOPS.values(), *RUNS.values()} <= set(functions)
    for function in functions:
        folder = Path(function.py_func.__code__.co_filename).resolve().relative_to(PACKAGE)
        assert folder.parts[0] in JIT_SOURCES, function
        assert isinstance(function._cache._impl.locator, SourceKeyedLocator), function


def test_no_compiled_function_lets_the_compiler_reorder_its_arithmetic():
    """fastmath lets LLVM reassociate sums by the CPU's vector width: the bits would depend on the
    machine (tests/integration/test_same_bits_on_any_cpu.py)."""
    for function in compiled_functions():
        assert not function.targetoptions.get("fastmath"), function


def jit_decorator(node):
    """A decorator that makes compiled code (an overload's body hands compiled code the
    implementation numba types, and never calls it from Python)."""
    call = node.func if isinstance(node, ast.Call) else node
    return getattr(call, "id", getattr(call, "attr", None)) in ("njit", "jit", "jit_callee",
                                                                "overload")


def python_uses_and_callees(path):
    """(names that Python code of ``path`` calls or refers to, names it defines with
    jit_callee): code inside a compiled function (or a closure in one) is not Python code."""
    uses, callees = set(), set()

    def visit(node, compiled):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef):
                if any("jit_callee" in ast.unparse(d) for d in child.decorator_list):
                    callees.add(child.name)
                visit(child, compiled or any(jit_decorator(d) for d in child.decorator_list))
                continue
            if not compiled and isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                uses.add(child.id)
            if not compiled and isinstance(child, ast.Attribute):
                uses.add(child.attr)
            visit(child, compiled)

    visit(ast.parse(path.read_text()), False)
    return uses, callees


def test_no_python_code_calls_or_passes_a_compiled_callee():
    """A jit_callee has no entry point for Python: a call from Python would crash the process."""
    files = [*PACKAGE.rglob("*.py"), *(ROOT / "tests").rglob("*.py"),
             *(ROOT / "studies").rglob("*.py")]
    uses, callees = set(), set()
    for path in files:
        found = python_uses_and_callees(path)
        uses |= found[0]
        callees |= found[1]
    assert len(callees) > 50
    assert sorted(callees & uses) == []


@pytest.mark.parametrize("folder", JIT_SOURCES)
def test_the_key_covers_every_source_file_of_the_compiled_folders(folder):
    assert {path for path in compile_cache.source_files() if path.parent.name == folder} == \
        set((PACKAGE / folder).glob("*.py"))


FIRST_FITS = COUNT_COMPILES + """
import scipy.sparse as sp
from svmbench.algorithms import build_estimator
from svmbench.kernels.provider import make_provider
rng = np.random.default_rng(5)
dense = rng.normal(size=(90, 4))
binary = sp.csr_matrix((rng.random((90, 70)) < 0.15).astype(float))
kinds, compiled_by_kind = [], []
for X in (dense, binary):
    column = X[:, [0]].toarray().ravel() if sp.issparse(X) else X[:, 0]
    y = (column > 0).astype(int)
    kinds.append(type(make_provider(X)).__name__)
    build_estimator({"name": "gs_svm"}).fit(X, y).predict(X)
    compiled_by_kind.append(len(compiled))
from svmbench.tuning import grid_search
X = rng.normal(size=(50, 3))
y = np.where(X[:, 0] > 0, 1.0, -1.0)
halves = [(np.arange(25, 50), np.arange(25)), (np.arange(25), np.arange(25, 50))]
grid_search({"name": "gs_svm", "gamma": 1.0}, {"grid": {"gamma_log2": [-2, 1]}}, X, y, halves,
            scale=True)
compiled_by_kind.append(len(compiled))
print(json.dumps({"kinds": kinds, "compiled": compiled_by_kind}))
"""


def test_svmbench_compile_fills_the_cache_so_that_a_first_fit_compiles_nothing(tmp_path):
    """svmbench-compile (what make venv runs) for one solver, two kinds of points and its grid
    search in two processes: a fresh process's first fits of that solver on other problems of
    those kinds, and its first grid search on another problem and grid, load everything and say
    nothing."""
    done = subprocess.run([sys.executable, "-m", "svmbench.warm_up", "--solvers", "gs_svm",
                           "--kinds", "dense", "binary", "--jobs", "2"], capture_output=True,
                          text=True, check=True, cwd=ROOT,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    said = done.stdout.splitlines()
    assert said[0].startswith("svmbench-compile: 3 runs on toy problems (1 solvers x a fit on "
                              "dense, binary points and its grid search) in 2 processes")
    assert sorted(line.split(":")[0].strip() for line in said[1:4]) == [
        "gs_svm (40 binary points)", "gs_svm (40 dense points)", "gs_svm (grid search)"]
    assert said[4].startswith("svmbench-compile: done in") and "compiling" not in done.stderr
    first, told = run(FIRST_FITS, tmp_path)
    assert first == {"kinds": ["DenseProvider", "BinaryProvider"], "compiled": [0, 0, 0]}
    assert "compiling" not in told


def test_svmbench_compile_names_a_grid_search_a_solver_cannot_run():
    """A solver that no grid search can tune (the xi-alpha bound needs the points, not a
    precomputed kernel matrix) is a line saying why, not a failed install."""
    from svmbench.warm_up import GRID_SEARCH, compile_solver

    name, kind, *_, refused = compile_solver("csvm_xialpha", GRID_SEARCH)
    assert (name, kind) == ("csvm_xialpha", GRID_SEARCH)
    assert "needs kernel='rbf' (got 'precomputed')" in refused
