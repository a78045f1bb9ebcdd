"""Where numba keeps svmbench's compiled code: one directory per content of the compiled sources.

numba's own cache sits in each source folder's ``__pycache__`` and checks each file against its
own source only, so a fresh clone compiles everything again (minutes), and a jitted caller keeps
serving the machine code of a callee in another file after that file changed. Here every function
of ``svmbench/kernels`` and ``svmbench/solvers`` (the folders holding compiled code, JIT_SOURCES)
is cached under ``<root>/<key>/``, the key being a hash of the bytes of every source file there and
of numba's version: a clone of the same commit, or any checkout with the same sources, loads
what another compiled; a changed source file (any of them) gives a new key, hence an empty
directory, never old machine code. The root is ``~/.cache/svmbench/numba`` (beside the data
cache), or ``$NUMBA_CACHE_DIR/svmbench`` when numba's own variable is set.

Several processes may share a directory (sweep workers, two clones, a test run beside a sweep,
``svmbench-compile``'s workers). numba writes each file to a temporary name and renames it, but a
function's index is read, changed and written back without a lock, so two processes compiling two
signatures of one function at once can give both the same data file (numba issues #4807, #10128:
segmentation faults). So a process that finds a function missing from the cache takes an
exclusive lock on that function (``flock`` on ``<index>.lock``, FunctionLocks), looks again (a
process that held the lock has just saved it: load it), and else compiles and saves it before
letting go. Loading takes no such lock: a process that only loads never waits for one that
compiles (it did, behind a lock on the whole directory: 320 s in one case), and two processes
compiling different functions do so at once. While a process holds numba's compiler lock it
holds a shared lock on the directory (``<key>/.lock``), which keeps pruning away from it.

A process's first lock prunes the root to the KEPT_KEYS most recently used keys (a removed key
that a process uses again is compiled anew). The first compilation in a process logs one line
(logger ``svmbench``, WARNING, so that a bare ``fit`` shows it on stderr): what is compiled and
about how long it takes; ``naming`` says what (the runner names the algorithm it warms up, an
estimator its solver). ``svmbench-compile`` (svmbench.warm_up.main, run by ``make venv``)
compiles every built-in solver ahead, so that a first fit loads.

What a fit compiles (docs/DESIGN.md, "Where the loop lives"): a function called from compiled
code only is decorated ``jit_callee`` (no entry point for Python), a variant chosen by a
compile-time constant (a closure's variable: smo.make_solver_loop's rule and parallel passes,
meb.make_run) compiles its own branches only, and a provider's class (provider.with_kind) its own
kind of points' row filler only.
"""

import contextlib
import contextvars
import fcntl
import functools
import hashlib
import logging
import os
import shutil
import threading
from pathlib import Path

import numba
from numba import njit
from numba.core import dispatcher, event
from numba.core.caching import CacheImpl, FunctionCache, _CacheLocator

PACKAGE = Path(__file__).resolve().parent.parent
# the package folders whose modules hold numba-compiled functions (tests/integration/test_compile_cache.py
# checks that no compiled function lives elsewhere)
JIT_SOURCES = ("kernels", "solvers")
DEFAULT_ROOT = "~/.cache/svmbench/numba"
# key directories kept under the root (one per version of the sources in use, e.g. several
# checkouts and edits: prune), a few tens of MB each
KEPT_KEYS = 12
log = logging.getLogger("svmbench")
# the decorator of a compiled function called from compiled code only: numba builds no entry
# point for calls from Python (unboxing the provider's ~40 arrays made that entry half the cost
# of compiling a function that takes the provider). A call from Python would crash the process:
# tests/integration/test_compile_cache.py checks that Python code calls none.
jit_callee = functools.partial(njit, cache=True, no_cpython_wrapper=True)
# what is being compiled, for the notice (set by the runner and the bench: an algorithm's name)
compiling_for = contextvars.ContextVar("compiling_for", default=None)


def source_files():
    """Every source file of JIT_SOURCES, in a fixed order."""
    return sorted(path for folder in JIT_SOURCES for path in (PACKAGE / folder).rglob("*.py"))


def source_key():
    """Short hash of numba's version and the path and bytes of every file of source_files()."""
    digest = hashlib.sha256(numba.__version__.encode() + b"\0")
    for path in source_files():
        digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_root():
    """``$NUMBA_CACHE_DIR/svmbench`` when that is set, else DEFAULT_ROOT."""
    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    return Path(numba_dir, "svmbench") if numba_dir else Path(DEFAULT_ROOT).expanduser()


class SourceKeyedLocator(_CacheLocator):
    """numba's cache locator for svmbench's compiled functions: ``<root>/<key>/<folder>`` (the
    folder of the module under the package, e.g. ``solvers``), the key standing for the content of
    every compiled source (see the module note). Functions elsewhere get numba's locators."""

    key = None  # source_key(), taken once per process, when the first function is decorated

    def __init__(self, py_func, py_file):
        if SourceKeyedLocator.key is None:
            SourceKeyedLocator.key = source_key()
        self._py_file, self._lineno = py_file, py_func.__code__.co_firstlineno
        folder = Path(py_file).resolve().parent.relative_to(PACKAGE)
        self._cache_path = str(cache_root() / self.key / folder)

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return self.key

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            inside = Path(py_file).resolve().relative_to(PACKAGE).parts[0] in JIT_SOURCES
        except ValueError:
            return None
        if not inside:
            return None
        locator = cls(py_func, py_file)
        try:
            locator.ensure_cache_path()
        except OSError:  # not writable: numba's own locators take it
            return None
        return locator


def key_directory():
    return cache_root() / (SourceKeyedLocator.key or source_key())


class DirectoryLock(event.Listener):
    """A shared ``flock`` on ``<key>/.lock`` held while this process holds numba's compiler lock
    ("numba:compiler_lock" events, counted over nesting and threads: numba sends the start before
    a thread waits for the lock and the end after it releases it): pruning leaves the directory
    alone meanwhile. The lock file's time says when the key was last used; the first lock of a
    process prunes the root (prune). At the end, the function locks a failed compilation left
    held are let go (FUNCTION_LOCKS)."""

    def __init__(self):
        self._depth = 0
        self._file = None
        self._pruned = False
        self._guard = threading.Lock()

    def on_start(self, event):
        with self._guard:
            self._depth += 1
            if self._depth == 1:
                self._file = _open_lock_file()
                if self._file is not None:
                    fcntl.flock(self._file, fcntl.LOCK_SH)
                if not self._pruned:
                    self._pruned = True
                    prune(cache_root(), KEPT_KEYS)

    def on_end(self, event):
        with self._guard:
            self._depth -= 1
            if self._depth == 0:
                FUNCTION_LOCKS.release_all()
                if self._file is not None:
                    fcntl.flock(self._file, fcntl.LOCK_UN)
                    self._file.close()
                    self._file = None


class FunctionLocks:
    """The exclusive ``flock``s this process holds on compiled functions' lock files, by path: one
    per function it is compiling (numba compiles a caller's callees while it types the caller, so
    several at once, taken along the call graph: no two processes can wait for each other)."""

    def __init__(self):
        self._held = {}

    def acquire(self, path):
        """Wait until no other process holds ``path``, then hold it (at once when this process
        holds it already: a function compiled for a second signature while the first compiles)."""
        if path in self._held:
            return
        lock = open(path, "a")  # noqa: SIM115 (closed by release)
        fcntl.flock(lock, fcntl.LOCK_EX)
        self._held[path] = lock

    def release(self, path):
        lock = self._held.pop(path, None)
        if lock is not None:
            fcntl.flock(lock, fcntl.LOCK_UN)
            lock.close()

    def release_all(self):
        for path in list(self._held):
            self.release(path)


FUNCTION_LOCKS = FunctionLocks()


class LockedFunctionCache(FunctionCache):
    """numba's per-function cache, for svmbench's functions (SourceKeyedLocator) locked per
    function when one is missing (see the module note): after a miss it holds the function's lock
    (FUNCTION_LOCKS) and looks again, and it saves under that lock, then lets go. Loading what is
    there takes no lock. Other functions are numba's plain FunctionCache."""

    def _lock_path(self):
        if not isinstance(self._impl.locator, SourceKeyedLocator):
            return None
        return os.path.join(self._cache_path, self._impl.filename_base + ".lock")

    def load_overload(self, sig, target_context):
        loaded = super().load_overload(sig, target_context)
        path = self._lock_path()
        if loaded is not None or path is None:
            return loaded
        try:
            self._impl.locator.ensure_cache_path()
            FUNCTION_LOCKS.acquire(path)
        except OSError:  # a directory we cannot write: nothing is saved there either
            return None
        loaded = super().load_overload(sig, target_context)
        if loaded is not None:  # another process compiled it while this one waited
            FUNCTION_LOCKS.release(path)
        return loaded

    def save_overload(self, sig, data):
        path = self._lock_path()
        if path is None:
            return super().save_overload(sig, data)
        try:
            FUNCTION_LOCKS.acquire(path)  # held since the miss, unless a nested compile let go
            super().save_overload(sig, data)
        finally:
            FUNCTION_LOCKS.release(path)


def _open_lock_file():
    try:
        directory = key_directory()
        directory.mkdir(parents=True, exist_ok=True)
        lock = open(directory / ".lock", "a")  # noqa: SIM115 (closed by on_end)
        os.utime(directory / ".lock")
        return lock
    except OSError:  # a directory we cannot write: SourceKeyedLocator does not use it either
        return None


def last_used(directory):
    lock = directory / ".lock"
    return (lock if lock.exists() else directory).stat().st_mtime


def prune(root, keep):
    """Remove the key directories of ``root`` beyond the ``keep`` most recently used, except
    those a process holds locked (it is compiling into them); a process that uses a removed key
    later compiles into it again."""
    try:
        keys = sorted((path for path in root.iterdir() if path.is_dir()), key=last_used,
                      reverse=True)
        for directory in keys[keep:]:
            with open(directory / ".lock", "a") as lock:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
                shutil.rmtree(directory, ignore_errors=True)
    except OSError:  # another process pruned the same directory first
        return


class ReleaseOnFailure(event.Listener):
    """Lets go of a function's lock when its compilation fails (numba may type a call again with
    other argument types): nothing is saved, and a lock held out of the call graph's order could
    make two processes wait for each other."""

    def on_start(self, event):
        pass

    def on_end(self, event):
        function = event.data["dispatcher"]
        failed = tuple(event.data["args"]) not in function.overloads  # (numba's is_failed says
        if failed and isinstance(function._cache, LockedFunctionCache):  # the opposite)
            FUNCTION_LOCKS.release(function._cache._lock_path())


class CompileNotice(event.Listener):
    """Logs one line when numba first compiles a function of svmbench (a cache miss: numba sends
    "numba:compile" only then) for what ``naming`` names (an algorithm), once per process each;
    a compilation nothing names only when nothing was told before (e.g. a prediction's kernel
    after its fit)."""

    def __init__(self):
        self.told = set()

    def on_start(self, event):
        function = event.data["dispatcher"].py_func
        label = compiling_for.get()
        if (label in self.told or (label is None and self.told)
                or not (function.__module__ or "").startswith("svmbench.")):
            return
        self.told.add(label)
        what = label or f"svmbench's code (first {function.__module__}.{function.__qualname__})"
        from svmbench.compile_costs import COMPILE_CPU_S  # (measured: outside the key's sources)

        cost = (f"about {COMPILE_CPU_S[label]:.0f} s" if label in COMPILE_CPU_S
                else f"up to about {max(COMPILE_CPU_S.values()):.0f} s")
        log.warning("svmbench: compiling %s once (%s of CPU, longer on a busy machine; "
                    "svmbench-compile, which make venv runs, compiles every solver ahead); later "
                    "runs load the cache (%s)", what, cost, key_directory())

    def on_end(self, event):
        pass


@contextlib.contextmanager
def naming(what):
    """Name what is being compiled in the notice, e.g. an algorithm: ``with naming("smo_wss2")``;
    inside another naming, the outer name stands (a fit inside a named warm-up)."""
    token = compiling_for.set(compiling_for.get() or what)
    try:
        yield
    finally:
        compiling_for.reset(token)


def use_compile_cache():
    """Cache svmbench's compiled functions by source content (SourceKeyedLocator), lock a missing
    function while compiling it (LockedFunctionCache), keep pruning away from a directory in use
    (DirectoryLock) and tell the user once (CompileNotice). Must run
    before the first svmbench function is decorated (svmbench.kernels does it on import)."""
    if SourceKeyedLocator in CacheImpl._locator_classes:
        return
    CacheImpl._locator_classes.insert(0, SourceKeyedLocator)
    dispatcher.FunctionCache = LockedFunctionCache  # what Dispatcher.enable_caching builds
    event.register("numba:compiler_lock", DirectoryLock())
    event.register("numba:compile", CompileNotice())
    event.register("numba:compile", ReleaseOnFailure())
