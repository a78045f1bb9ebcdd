"""The solver spec (:class:`SolverPlugin`), and the built-in specs read without the engine.

A spec declares a solver once: its algorithm name, its settings with their defaults (whose types
the config checks take from them), the dual it solves, the estimator that trains it, its
capabilities and size limits, and the harness's own defaults where they differ from the
estimator's (:class:`HarnessDefault`, each with its reason). svmbench.solvers.plugins registers
and finds the specs (a built-in module's ``SPECS``, another package's entry point),
svmbench.models makes the estimators from them, svmbench.algorithms the algorithm configs.

Composing a config (``algorithm=<name>``, an experiment's cells, a table's selection of records)
needs a built-in solver's algorithm config but not its solver: :func:`declared_specs` reads the
``SPECS`` of each module of svmbench.solvers from its source and evaluates that declaration alone,
its solve functions left as :class:`Unloaded` names, so that rendering loads neither numba nor
the solvers (tests/integration/test_layers.py). A declaration may use literals, its module's
constants and helper functions, and the names of DECLARATION_MODULES; it is the spec the module
makes when imported (tests/unit/test_solver_specs.py checks every field of every built-in).
"""

import ast
import functools
from dataclasses import dataclass, field
from pathlib import Path

from svmbench.capabilities import Capabilities

# the kernel's settings and the Q-row cache, which every estimator has; a spec's ``params`` that
# lacks one has these defaults (scikit-learn's SVC's, LIBSVM's cache in MB)
KERNEL_SETTINGS = {"kernel": "rbf", "gamma": "scale", "coef0": 0.0, "degree": 3, "cache_mb": 100.0}


@dataclass(frozen=True)
class HarnessDefault:
    """A setting's default in the harness's algorithm config (``algorithm=<name>``, every cell)
    where it differs from the estimator's default (a Python user's), and why: the spec's
    ``harness`` names it, the generated config reference shows both and the reason."""

    value: object
    reason: str


# the papers' theta (RBF exp(-theta ||x - z||^2); theta = 0.05 on Adult and Web in gs-svm-tnn2008
# Table I and gs-svm-pakdd2005) where the estimator has scikit-learn's "scale",
# 1 / (n_features var(X))
HARNESS_GAMMA = HarnessDefault(0.05, (
    "the papers' theta (gs-svm-tnn2008 Table I: 0.05 on Adult and Web); every committed sweep "
    "of these algorithms was composed with it. Not one value: 'scale' in the configs changes "
    "the config hash of cells that leave algorithm.gamma unset (the quick leaderboard's, "
    "studies/cell_hashes.py), and 0.05 in the estimator would change what a Python user's fit "
    "learns, where scikit-learn's 'scale' adapts to unscaled data"))


def harness_value(default):
    """The value of a spec's ``harness`` entry (a HarnessDefault or a plain value)."""
    return default.value if isinstance(default, HarnessDefault) else default


@dataclass(frozen=True)
class SolverPlugin:
    """A solver's spec, the one place it is declared (a built-in's in its module's ``SPECS``, a
    plug-in's at its entry point). ``problem`` names the dual it solves (svmbench.referee.PROBLEMS:
    "csvc" with bias, "csvc_nobias", "hard_margin", "stagewise", "rho_simplex", "meb"; None: the
    one of ``q_kind``), against which the harness's referee checks every point it returns;
    ``tolerance(params)`` is the violation up to which such a point counts as converged (None:
    the setting ``tol``, else LIBSVM's 1e-3), whatever the solver says of its own point.

    ``params``: its settings -> defaults, in the estimator's signature order; the types the
    config checks accept are those of the defaults. A plug-in lists its own settings only (the
    kernel's, KERNEL_SETTINGS, come first); ``reads``: the settings the solve function is given
    (None: all but the kernel's and the Q-row cache).

    ``name``: the algorithm name (``algorithm=<name>``); an entry point's is the entry point's.
    ``model``: the name of the estimator class in svmbench.models that trains it (None: a
    KernelSVC is made for it); ``selects``: the settings whose values in ``params`` pick this
    algorithm in its model (SMOSVC's ``variant``), fixed by the algorithm and left out of its
    config. ``summary``: what the algorithm is, one or two sentences with the paper and equation
    (the config reference's description of ``algorithm=<name>``).

    The harness's algorithm config is ``params`` but for ``unconfigured`` (settings the config
    does not spell out: the estimator's default applies) and ``selects``, with the harness's own
    default where ``harness`` names one (a :class:`HarnessDefault` with its reason, or a plain
    value): the second named default, e.g. gamma 0.05 (the papers' theta) where the estimator,
    for a Python user, has scikit-learn's "scale". Every committed record's config hash was taken
    over that config (tests/unit/test_solver_specs.py, studies/cell_hashes.py).

    A size limit (``capabilities.max_train``) is a cost cap that keeps a sweep's time bounded, not
    a property of the algorithm: its ``size_reason`` says whether it was measured (a fit at the
    cap that finishes, a larger one that did not in 10 minutes of CPU) or set, with the largest
    timed fit there is (docs/leaderboard.md "Size limits"); drop it from the spec to lift it."""

    solve: object  # solve(qmatrix, y, params) -> SolverResult
    params: dict = field(default_factory=dict)  # its settings -> defaults (e.g. C, tol)
    q_kind: str = "csvc"  # svmbench.kernels.qmatrix.Q_KINDS
    capabilities: Capabilities = field(default_factory=Capabilities)
    problem: str | None = None
    tolerance: object = None  # tolerance(params) -> float
    name: str | None = None
    model: str | None = None
    selects: tuple = ()
    reads: tuple | None = None
    harness: dict = field(default_factory=dict)
    unconfigured: tuple = ()
    doc: str = ""  # the docstring of the estimator made for it (model None or not in models)
    summary: str = ""
    # compiled_size(n_train) -> the fewest samples whose fit compiles what a fit of n_train
    # samples runs, for a solver that picks its compiled code by size (None: the same code at
    # any size); svmbench.warm_up sizes its toy fits by it
    compiled_size: object = None

    def settings(self):
        """Every setting of its estimator -> the estimator's default, in signature order."""
        kernel = {key: value for key, value in KERNEL_SETTINGS.items() if key not in self.params}
        return {**kernel, **self.params}

    def solver_settings(self):
        """The settings the solve function is given."""
        if self.reads is not None:
            return self.reads
        return tuple(key for key in self.params if key not in KERNEL_SETTINGS)

    def config(self, name=None):
        """The harness's algorithm config of it (``name``: the entry point's, else its own)."""
        left_out = {*self.unconfigured, *self.selects}
        return {"name": name or self.name,
                **{key: harness_value(self.harness.get(key, default))
                   for key, default in self.settings().items() if key not in left_out}}

    def harness_reasons(self):
        """{setting: why the harness's default differs from the estimator's}."""
        return {key: default.reason for key, default in self.harness.items()
                if isinstance(default, HarnessDefault)}


# the modules whose names a SPECS declaration may use (all else it names is its solve functions)
DECLARATION_MODULES = ("svmbench.specs", "svmbench.capabilities")
SOLVERS_DIR = Path(__file__).resolve().parent / "solvers"


@dataclass(frozen=True)
class Unloaded:
    """A name a declaration refers to but that is not evaluated without the engine: a solve
    function (``module.name``). Calling it is an error naming it."""

    path: str

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.path} is not loaded when specs are read from their declaration; "
                        f"a SPECS declaration may call only its module's helpers and the names of "
                        f"{', '.join(DECLARATION_MODULES)}")


def names_in(node):
    """(names read, names called) in an AST node."""
    read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    called = {n.func.id for n in ast.walk(node)
              if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return read, called


def top_level(tree):
    """{name: the module-level statement that binds it}: assignments, functions, imports."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            found.update({target.id: node for target in node.targets
                          if isinstance(target, ast.Name)})
        elif isinstance(node, ast.FunctionDef):
            found[node.name] = node
        elif isinstance(node, ast.ImportFrom):
            found.update({alias.asname or alias.name: node for alias in node.names})
    return found


def declaration(tree):
    """(the statements SPECS needs, in source order; the names left Unloaded): the assignments
    and called helper functions it reaches, the imports of DECLARATION_MODULES it uses."""
    bound = top_level(tree)
    needed, unloaded, pending, called = set(), set(), ["SPECS"], set()
    while pending:
        name = pending.pop()
        node = bound.get(name)
        if node is None or name in needed or name in unloaded:
            continue
        is_function = isinstance(node, ast.FunctionDef)
        if isinstance(node, ast.ImportFrom) and node.module not in DECLARATION_MODULES \
                or is_function and name not in called:
            unloaded.add(name)
            continue
        needed.add(name)
        read, calls = names_in(node if is_function else node.value) \
            if not isinstance(node, ast.ImportFrom) else (set(), set())
        called |= calls
        unloaded -= calls  # a function seen as a value first, then called: a helper
        pending.extend(read | calls)
    statements = [node for node in tree.body if any(bound.get(name) is node for name in needed)]
    return statements, unloaded


def declared_module_specs(path, module):
    """The specs module ``module`` (source file ``path``) declares in ``SPECS``, evaluated from
    its source alone."""
    tree = ast.parse(Path(path).read_text(), filename=str(path))
    statements, unloaded = declaration(tree)
    if not statements:
        return ()
    namespace = {"__name__": module, **{name: Unloaded(f"{module}.{name}") for name in unloaded}}
    code = compile(ast.Module(body=statements, type_ignores=[]), str(path), "exec")
    exec(code, namespace)  # noqa: S102 - our own source, its declaration alone
    return namespace["SPECS"]


@functools.cache
def declared_specs():
    """name -> SolverPlugin of every built-in solver, read from the ``SPECS`` declarations of
    svmbench/solvers/*.py without importing them (their solve functions Unloaded)."""
    found = {}
    for path in sorted(SOLVERS_DIR.glob("*.py")):
        for spec in declared_module_specs(path, f"svmbench.solvers.{path.stem}"):
            found[spec.name] = spec
    return found


def declared_configs():
    """name -> the harness's algorithm config of every built-in solver (SolverPlugin.config)."""
    return {name: spec.config() for name, spec in declared_specs().items()}
