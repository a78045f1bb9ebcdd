"""The documentation site's reference, generated from the repository at every build.

One module, small functions, each reading one source of truth as it exists today, so that a move
of that source changes one function here:

- configuration: the YAML of every config group (``svmbench/conf/``, the papers' folders:
  values, and each key's meaning from its trailing comment), the ``algorithm`` group from the
  built-in solvers' specs (svmbench.specs: summary, harness config, estimator defaults and why
  they differ) and the external references' files, and the ``dataset`` group from the data
  registry (:func:`config_page`); an algorithm key takes its meaning from :data:`ALGORITHM_KEYS`;
- record fields: the record a real cell writes (:func:`probe_record`: scikit-learn's SVC on iris,
  one fold, through ``svmbench.runner.train_cell`` into a temporary store) and every field of the
  committed stores (``results/**/fold-*.json``), each with its meaning from
  :data:`RECORD_FIELDS` (:func:`record_page`);
- statuses and stop reasons: ``svmbench.solvers.base`` (:func:`status_page`);
- the command line: ``[project.scripts]`` of pyproject.toml and the package's ``python -m``
  modules (their docstrings, read without importing them), and the make targets as ``make help``
  prints them (:func:`cli_page`);
- the public estimators (``svmbench.__all__``) and the plug-in API, by autodoc (:func:`api_page`).

A field, key, status or stop reason without a meaning is a Sphinx warning, so the docs build
(warnings as errors, ``make docs``) fails until it is described. It lives beside the docs and not
in the package: it is the site's build tooling, not the library's API.

The Sphinx side: at ``builder-inited`` the pages are written into ``reference/_generated/``
(ignored by git), which the reference pages include; at ``doctree-read`` every link to a file or
folder of the repository outside the site (``../svmbench/referee.py``, ``../results/fw/runs``)
becomes a link to that path in the checkout (or under ``svmbench_repository_url`` when set), and
a link to a path that does not exist is a warning.
"""

import ast
import inspect
import json
import os
import re
import subprocess
import tempfile
from importlib.metadata import distribution
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.util import logging

ROOT = Path(__file__).resolve().parents[2]
GENERATED = "reference/_generated"
log = logging.getLogger(__name__)

# what an algorithm key means (the comment of a key in svmbench/conf/algorithm/*.yaml is why its
# value there is not the estimator's)
ALGORITHM_KEYS = {
    "_target_": "Python path of a solver of one's own (a SolverPlugin or a bare solve "
                "function), `algorithm=target` only",
    "bisection_tol": "RSVM: relative tolerance of the bisection on C that matches GS-SVM's "
                     "margin",
    "C": "box constraint of the soft-margin dual (L2-SVM: the 1/C on Q's diagonal)",
    "cache_mb": "kernel-row cache of the kernel provider, in MB (K1 counts what it computes)",
    "coef0": "kernel offset (poly), as scikit-learn's SVC",
    "degree": "polynomial kernel degree, as scikit-learn's SVC",
    "eps": "rho-SVM termination: stop when eps_t < eps (paper 0.005); MEB solvers: (1 + eps) "
           "ball radius",
    "eps_first": "rho-SVM's first eps_1 (paper 0.1)",
    "eta": "fixed learning rate of the exponentiated-gradient baseline (paper 0.005 .. 0.04)",
    "gamma": "kernel width, RBF exp(-gamma ||x - z||^2) (the papers' theta), a number or a rule "
             "by name (scale, spread, paper_default, libcvm_default)",
    "initial_points": "MEB solvers: p, the random initial MEB (core set)",
    "inner_solver": "RSVM: the C-SVM solver of its bisection",
    "kernel": "rbf, poly or linear (precomputed in the grid search)",
    "max_iter": "iteration limit; -1 none (scikit-learn's convention)",
    "output": "rho-SVM output: last (rho-SVM), ensemble, first (Parzen window)",
    "problem": "the dual the solver declares, checked by the referee (svmbench.referee.PROBLEMS)",
    "rank": "rho-SVM: 0 exact Q rows, r > 0 a pivoted incomplete Cholesky of rank r",
    "rows": "GS-SVM: full kernel rows (gs2008's K2) or rows over the unused set (gs2005's)",
    "sample_order": "SMO: order and label each class pair's samples as given or as LIBSVM 2.83",
    "sample_size": "MEB solvers: the furthest point among this many random points (59: "
                   "frank-wolfe-svm Theorem 1); 0 searches all points",
    "seed": "the solver's random draws (MEB solvers follow the cell's seed: the repetitions, "
            "seed=0,1,2,3,4)",
    "shrinking": "LIBSVM's shrinking heuristic on or off",
    "shrinking_rules": "smo_wss2: libsvm283 (LIBSVM 2.83's shrinking) or libsvm3 (LIBSVM 3.x's "
                       "shrinking, unshrink and gradient reconstruction)",
    "smo_eps": "CVM only: tolerance of the reduced QP when a point enters (libCVM's SMO_EPS)",
    "tol": "the solver's published stopping tolerance (a KKT violation for SMO)",
    "variant": "SMO working-set rule: platt, mod1, mod2, wss2",
    "verify_stop": "MEB solvers: true re-checks a sampled stop over all points (eq. 41 then "
                   "holds surely)",
    "warm_start": "warm-start from the previous solution in a C path",
}

# what a record field means; algorithm settings are the algorithm keys above
RECORD_FIELDS = {
    # the cell
    "experiment": "the experiment (`experiment_name`; `adhoc` from the shell)",
    "dataset": "data set name (the registry's key)",
    "dataset_paper_name": "the data set's name in the paper's tables",
    "dataset_scale": "features scaled to [-1, 1] on the training part",
    "algorithm": "algorithm name (`algorithm=<name>`: a solver spec's name, an external "
                 "reference's file, a plug-in's entry point name)",
    "protocol": "protocol name (`svmbench/conf/protocol/`)",
    "protocol_k": "outer folds", "protocol_inner_k": "inner folds of the grid search",
    "protocol_grid": "the grid's log2 axes", "protocol_count": "realizations used",
    "protocol_shared_kernel": "grid search with one kernel matrix per (inner fold, gamma)",
    "protocol_tune_with": "the algorithm whose validation error chose the parameters",
    "protocol_references": "per dual problem, its reference solver (tune_with: reference tunes "
                           "with the one of the dual the solver declares)",
    "protocol_tune_subsample": "the tuning budget: the grid search runs on min(n, it) "
                               "samples (seeded, stratified), null: all",
    "fold": "outer fold or realization index; -1: the cell could not start or is unsuitable",
    "seed": "the cell's seed (splits, and the solver's draws where it has any)",
    "config_hash": "hash of the resolved cell config (the store's folder name)",
    "run_id": "the sweep (Hydra's sweep folder) or single run that wrote the record",
    # sizes and counts
    "n_train": "training samples", "n_test": "test samples", "n_features": "features",
    "n_classes": "classes (one-vs-one above two)", "n_sv": "support vectors of the model",
    "iterations": "solver iterations, summed over class pairs",
    "kernel_requested": "K2: kernel entries the algorithm asked for (no cache)",
    "kernel_computed": "K1: kernel entries computed with the configured cache",
    "kernel_requested_working_set": "the papers' K2 of SMO: its working-set rows",
    "kernel_predict": "kernel entries of the test prediction",
    "iterations_by_threads": "smo_wss2: iterations run on 1 thread and on all `threads` "
                             "(one beside busy processes), summed over pairs",
    "referee_kernel_evaluations": "kernel entries the referee computed (apart from K1/K2)",
    # time
    "train_time_s": "wall time of the fit, compilation and the referee excluded",
    "cpu_time_s": "process CPU time of the fit", "predict_time_s": "wall time of the prediction",
    "referee_time_s": "wall time of the referee's check", "referee_cpu_time_s": "its CPU time",
    "inner_train_time_s": "the grid search's trainings, wall",
    "inner_tuning_time_s": "the whole grid search, wall",
    # outcome
    "train_error": "training error rate", "test_error": "test error rate",
    "status": "the referee's status (Statuses and stop reasons)",
    "stop": "why the solver stopped (Statuses and stop reasons)",
    "claimed_status": "the status the solver claimed", "claimed_kkt_violation": "and its KKT",
    "kkt_holds": "every class pair within its tolerance plus rounding allowance",
    "kkt_violation": "the referee's KKT violation (largest over pairs)",
    "kkt_tolerance": "the tolerance it is judged against",
    "kkt_allowance": "rounding allowance of the Q-matrix the solver read",
    "objective": "dual objective the solver reports (summed over pairs)",
    "referee_objective": "the dual objective recomputed by the referee",
    "referee_gap": "the duality gap, where the problem has one",
    "problem": "the dual the referee checked (svmbench.referee.PROBLEMS)",
    "unsuitable_reason": "why a solver cannot take the data set (status `unsuitable`)",
    # tuning
    "selected_gamma": "gamma chosen by the grid search", "selected_C": "C chosen by it",
    "inner_cv_error": "its mean validation error at the chosen point",
    "inner_trainings": "validation errors the grid search stands for (points x inner folds; "
                       "it fits fewer)",
    "tuned_on": "samples it ran on",
    "tuned_with": "the algorithm whose validation error chose",
    "tuning_key": "the search's key, shared by the cells that took its point",
    "tuning_reused": "true: the point of a search another cell ran, its fields copied",
    # a solver's own measurements (record_fields_)
    "gamma_value": "the numeric gamma a named rule resolved to",
    "loo_xi_alpha": "Joachims' xi-alpha leave-one-out error bound (csvm_xialpha)",
    "rho": "rho-SVM's final rho", "ensemble_members": "rho-SVM's hypotheses f_t",
    "lowrank_trace_error": "relative trace error of the low-rank Q",
    "objective_trace": "objective per iteration (first class pair)",
    "eta_trace": "eta_t per iteration", "rho_trace": "rho_t per iteration",
    "overshoot": "eg_fixed: first iteration the objective overshoots",
    "curve": "convergence checkpoints (`curves=true`): iteration, K2, K1, time, objective, gap",
    "reference_solver": "`algorithm=optimum`: the solver of the certified optimum",
    "optimum_objectives": "its objective per class pair",
    "optimum_gaps": "its duality gap per class pair (a bound on its error)",
    # provenance
    "git_commit": "commit of the checkout", "git_dirty": "tracked files changed outside results/",
    "code_fingerprint": "hash of the solver code (the store reuses records by it)",
    "svmbench_version": "package version", "python_version": "Python",
    "numpy_version": "numpy", "numba_version": "numba", "sklearn_version": "scikit-learn",
    "host": "host name", "cpu": "CPU model", "n_cpus": "logical CPUs",
    "cpu_target": "the CPU numba compiles for", "timestamp_utc": "when the record was written",
    "slurm_job_id": "SLURM job (the array's id)", "slurm_array_task_id": "SLURM array task",
    # threads
    "threads": "numba threads (the most a fit may use)",
    "threading_layer": "numba's threading layer",
    "blas_threads": "BLAS threads", "blas_core": "the BLAS's CPU kernel",
    "omp_wait_policy": "OMP_WAIT_POLICY in force", "kmp_blocktime": "KMP_BLOCKTIME in force",
    "gomp_spincount": "GOMP_SPINCOUNT in force",
}

STATUS_MEANINGS = {
    "converged": "KKT holds at the returned point to the solver's tolerance (the referee's "
                 "measurement)",
    "closed_form": "a closed form, no iterations (the Parzen window)",
    "own_rule": "a published rule that is no KKT test stopped the solver short of KKT "
                "(rho-SVM's eps_t < eps, the MEB stop tested on a sample)",
    "max_iter": "the iteration limit stopped it (a fault)",
    "stalled": "its optimality test passed but the measured KKT contradicts it (a fault)",
    "infeasible": "no solution exists (HM-SVM: no hard-margin separator; a fault)",
}
STOP_MEANINGS = {
    "own_rule": "its own published stopping rule (an optimality test counts as one)",
    "max_iter": "the iteration limit",
    "infeasible": "a proof that no solution exists",
    "no_progress": "no further progress possible",
    "closed_form": "a closed form",
}


def warn(message):
    log.warning(message, type="svmbench", subtype="reference")


def conf_dir():
    """The Hydra config folder, inside the package (svmbench.conf)."""
    from svmbench.conf import CONF_DIR

    return CONF_DIR


def cell(text):
    """Text for a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def code(value):
    return f"`{value}`" if value not in ("", None) else ""


KEY_LINE = re.compile(
    r"^(?P<indent>\s*)(?P<key>[\w@/+.-]+):(?P<value>[^#]*?)\s*(#\s?(?P<note>.*))?$")


def yaml_notes(path):
    """{dotted key: its comment}: the comment on a key's line and the comment-only lines below it
    indented deeper than the key (a continuation)."""
    notes, stack, last = {}, [], None
    for line in Path(path).read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            depth = len(line) - len(line.lstrip())
            if last and depth > last[1] and notes.get(last[0]):
                notes[last[0]] += " " + stripped.lstrip("# ")
            continue
        match = KEY_LINE.match(line)
        if not match or stripped.startswith("-"):
            last = None
            continue
        depth = len(match["indent"])
        stack = [(d, k) for d, k in stack if d < depth] + [(depth, match["key"])]
        dotted = ".".join(k for _, k in stack)
        notes[dotted] = (match["note"] or "").strip()
        last = (dotted, depth + 1)
    return notes


def header_comment(path):
    """The comment lines a YAML file opens with, joined (its description)."""
    lines = []
    for line in Path(path).read_text().splitlines():
        if not line.startswith("#"):
            break
        if not line.startswith("# @package"):
            lines.append(line.lstrip("# "))
    return " ".join(lines)


def flat(mapping, prefix=""):
    """(dotted key, value) of a nested mapping's leaves."""
    for key, value in mapping.items():
        if isinstance(value, dict) and value:
            yield from flat(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def load_yaml(path):
    from omegaconf import OmegaConf

    return OmegaConf.to_container(OmegaConf.load(path), resolve=False)


def primary_section(conf):
    path = conf / "config.yaml"
    notes, values = yaml_notes(path), load_yaml(path)
    rows = []
    for key, value in flat({k: v for k, v in values.items() if k not in ("defaults", "hydra")}):
        meaning = notes.get(key, "")
        if not meaning:
            warn(f"svmbench/conf/config.yaml: key {key} has no comment saying what it means")
        rows.append((code(key), code(json.dumps(value)), meaning))
    groups = [entry for entry in values["defaults"] if isinstance(entry, dict)]
    chosen = ", ".join(f"`{k}={v}`" for entry in groups for k, v in entry.items()
                       if "@" not in k and not k.startswith("override"))
    return ("## The primary config (`config.yaml`)\n\n"
            f"Default choices of the groups: {chosen}.\n\n"
            + table(("key", "default", "meaning"), rows))


def algorithm_options(conf):
    """name -> (what it is, its config, {key: why the config's default is not the estimator's}):
    every built-in solver's spec (svmbench/solvers/*.py ``SPECS``) and the algorithm files (the
    external references, ``target``: a key's comment is its reason)."""
    from svmbench.specs import declared_specs

    options = {name: (spec.summary, spec.config(), spec.harness_reasons())
               for name, spec in declared_specs().items()}
    for path in sorted((conf / "algorithm").glob("*.yaml")):
        notes = {key: note for key, note in yaml_notes(path).items() if note}
        options[path.stem] = (header_comment(path), load_yaml(path), notes)
    for name, (summary, _, _) in options.items():
        if not summary:
            warn(f"algorithm {name} says not what it is (its spec's summary, or the opening "
                 "comment of its svmbench/conf/algorithm file)")
    return dict(sorted(options.items()))


def algorithm_section(conf):
    from svmbench.algorithm_keys import algorithm_keys as configured_keys
    from svmbench.algorithms import estimator_factories

    options, keys = algorithm_options(conf), configured_keys()
    rows = []
    for key in sorted(set().union(*keys.values()), key=str.lower):
        meaning = ALGORITHM_KEYS.get(key)
        if not meaning:
            warn(f"algorithm key {key} has no meaning (ALGORITHM_KEYS in "
                 "docs/_ext/svmbench_reference.py)")
        having = sorted(name for name, names in keys.items() if key in names)
        rows.append((code(key), meaning or "", ", ".join(having)))
    text = ["## `algorithm`\n",
            ("One option per solver, made from its spec (the `SPECS` of its module, "
             "`svmbench/solvers/<module>.py`); the algorithms that are no solver of ours are "
             "files, `svmbench/conf/algorithm/<name>.yaml`; a plug-in adds its own (entry point "
             "name). Override any key: `algorithm.<key>=<value>`.\n"),
            table(("algorithm", "what it is"),
                  [(code(name), summary) for name, (summary, _, _) in options.items()]),
            "\n### Keys\n", table(("key", "meaning", "algorithms that have it"), rows),
            "\n### Defaults per algorithm\n",
            ("*config*: what a cell gets (`algorithm=<name>`); *estimator*: the default of the "
             "estimator class (`svmbench.algorithms.estimator_factories()`, made from its spec) "
             "when used from Python, where it has one; *why they differ*: the reason the spec "
             "gives for the harness's own default.\n")]
    for name, (_, config, reasons) in options.items():
        estimator = estimator_factories().get(name)
        signature = {} if estimator is None else {
            key: parameter.default
            for key, parameter in inspect.signature(estimator).parameters.items()}
        settings = sorted(keys.get(name, ()), key=str.lower)
        text.append(f"\n#### `{name}`\n\n" + table(
            ("key", "config", "estimator", "why they differ"),
            [(code(key), code(json.dumps(config[key])) if key in config else "(estimator's)",
              code(repr(signature[key])) if key in signature else "", reasons.get(key, ""))
             for key in settings]))
    return "\n".join(text)


def option_section(conf, group, intro):
    """A group whose options are YAML files: each option's description and its keys."""
    text = [f"## `{group}`\n", intro + "\n"]
    for path in sorted((conf / group).rglob("*.yaml")):
        name = path.relative_to(conf / group).with_suffix("").as_posix()
        notes, values = yaml_notes(path), load_yaml(path)
        text.append(f"\n### `{group}={name}`\n\n{header_comment(path)}\n")
        rows = [(code(key), code(json.dumps(value)), notes.get(key, ""))
                for key, value in flat(values) if key not in ("name", "defaults")]
        if rows:
            text.append(table(("key", "default", "meaning"), rows))
    return "\n".join(text)


def experiment_section():
    from svmbench.conf import experiment_files

    rows = [(code(name), code(path.parent.parent.relative_to(ROOT).as_posix()),
             header_comment(path)) for name, (_, path) in experiment_files().items()]
    return ("## `experiment`\n\n`+experiment=<artefact>`: one file per published table or figure "
            "and per board, in the `experiment/` folder of its paper's folder "
            "(`svmbench/papers/<paper>/`) or of `svmbench/boards/`; each sets its data sets, "
            "algorithms, protocol, the paper's settings and the sweep (`hydra.sweeper.parts`) at "
            "each `scale`.\n\n" + table(("experiment", "folder", "what it runs"), rows))


def dataset_section():
    from svmbench.data.configs import dataset_config
    from svmbench.data.registry import REGISTRY

    rows = []
    for name, spec in sorted(REGISTRY.items()):
        config = dataset_config(spec)
        rows.append((code(name), ", ".join(spec.paper_names), spec.reader, spec.n_features,
                     spec.n_realizations or "", "yes" if config["scale"] else "no"))
    return ("## `dataset`\n\nFrom the data registry (`svmbench/data/registry.py`, the only "
            "description of a data set; no YAML in `svmbench/conf/`): `dataset=<name>`. Keys: `name`, "
            "`paper_name`, `scale` (features scaled to [-1, 1] on the training part). Where the "
            "files are looked for: [Data sets](../howto/dataset.md).\n\n"
            + table(("name", "paper names", "reader", "features", "realizations", "scaled"), rows))


def config_page():
    conf = conf_dir()
    parts = ["# Configuration\n",
             ("Generated from the config files and the data registry at every docs build "
             f"(`{conf.relative_to(ROOT).as_posix()}/`). Every key is a command-line override: "
             "`svmbench key=value`, `svmbench group=option`.\n"),
             primary_section(conf), algorithm_section(conf),
             option_section(conf, "protocol", "How a cell's data is split, `protocol=<name>`."),
             option_section(conf, "scale", "`scale=quick` (minutes, subsets) or `scale=paper` "
                                           "(the published protocol)."),
             option_section(conf, "hydra/launcher", "svmbench's own launcher configs "
                                                    "(`hydra/launcher=<name>`)."),
             experiment_section(), dataset_section()]
    return "\n".join(parts)


def probe_record():
    """The record a real cell writes today: scikit-learn's SVC on iris, fold 0 of a 3-fold CV,
    through the runner into a temporary store (no numba compile, under a second once imported)."""
    from hydra import compose, initialize_config_dir

    from svmbench import runner

    runner.register_configs()  # what the command registers before it composes
    with tempfile.TemporaryDirectory() as store, \
            initialize_config_dir(config_dir=str(conf_dir()), version_base=None):
        cfg = compose("config", ["dataset=iris", "algorithm=libsvm", "protocol=kfold",
                                 "protocol.k=3", "folds=[0]", f"store.dir={store}"])
        records, _ = runner.train_cell(cfg)
    return records[0]


def committed_fields():
    """{field: how many committed records have it} over every store under results/ (the files
    git tracks: not a checkout's local sweeps)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--", "results/*fold-*.json"], cwd=ROOT,
                            capture_output=True, text=True, check=False).stdout
    files = [ROOT / name for name in listed.split("\0") if name]
    counts = {}
    for path in files:
        for key in json.loads(path.read_text()):
            counts[key] = counts.get(key, 0) + 1
    return counts, len(files)


def record_page():
    from svmbench.algorithm_keys import algorithm_keys as configured_keys

    probe = probe_record()
    committed, n_committed = committed_fields()
    algorithm_keys = set().union(*configured_keys().values())
    fields = sorted(set(probe) | set(committed) | set(RECORD_FIELDS), key=str.lower)
    rows = []
    for name in fields:
        meaning = RECORD_FIELDS.get(name)
        if meaning is None and name in algorithm_keys:
            meaning = f"algorithm setting: {ALGORITHM_KEYS.get(name, 'see Configuration')}"
        if meaning is None:
            warn(f"record field {name} has no meaning (RECORD_FIELDS in "
                 "docs/_ext/svmbench_reference.py)")
        seen = "probe" if name in probe else ""
        rows.append((code(name), meaning or "", seen, committed.get(name, "")))
    return ("# Record fields\n\n"
            "One record per (cell, fold) in the result store, `<store>/<config-hash>/"
            "fold-<k>.json`; `svmbench.load_results(store)` reads them into one DataFrame row "
            "each. Generated at every docs build from a record written by a real run "
            "(*probe*: `algorithm=libsvm dataset=iris protocol=kfold protocol.k=3 folds=[0]`, "
            f"through `svmbench.runner.train_cell`) and from the {n_committed} records of the "
            "committed stores (*committed*: how many have the field; solver- and "
            "protocol-specific fields appear only where those solvers and protocols ran, older "
            "records lack fields added since). Algorithm settings are their own columns "
            "(Configuration). Fields `slurm_*` appear only in jobs run under SLURM.\n\n"
            + table(("field", "meaning", "probe", "committed"), rows))


def status_page():
    from svmbench.capabilities import UNSUITABLE
    from svmbench.solvers.base import FAULTS, STATUSES, STOP_RECORDED

    rows = []
    for status in STATUSES:
        if status not in STATUS_MEANINGS:
            warn(f"status {status} has no meaning (STATUS_MEANINGS)")
        rows.append((code(status), "fault" if status in FAULTS else "sound",
                     STATUS_MEANINGS.get(status, "")))
    rows += [(code("failed:<reason>"), "failure", ("the fold raised, or the referee refuted the "
              "fit (`failed:refuted: <solver> ...`); the command exits 1")),
             (code(UNSUITABLE), "not trained", ("the solver cannot take the data set "
              "(`unsuitable_reason`); not a failure"))]
    stops = []
    for stop in dict.fromkeys(STOP_RECORDED.values()):
        if stop not in STOP_MEANINGS:
            warn(f"stop reason {stop} has no meaning (STOP_MEANINGS)")
        stops.append((code(stop), STOP_MEANINGS.get(stop, "")))
    return ("# Statuses and stop reasons\n\n"
            "From `svmbench.solvers.base` (`STATUSES`, `FAULTS`, `STOP_RECORDED`). A record's "
            "`status` is the referee's, measured at the returned point; `stop` is why the solver "
            "stopped. Only the faults raise scikit-learn's `ConvergenceWarning`. How the referee "
            "decides: [the design](../DESIGN.md).\n\n## `status`\n\n"
            + table(("status", "kind", "meaning"), rows)
            + "\n## `stop`\n\n" + table(("stop", "meaning"), stops))


def module_summary(path):
    """The first paragraph of a module's docstring, read without importing it."""
    docstring = ast.get_docstring(ast.parse(path.read_text())) or ""
    return " ".join(docstring.split("\n\n")[0].split())


def runnable_modules():
    """(module, path) of every package module that runs with ``python -m``."""
    package = ROOT / "svmbench"
    for path in sorted(package.rglob("*.py")):
        text = path.read_text()
        if path.name == "__main__.py":
            yield ".".join(path.parent.relative_to(ROOT).parts), path
        elif '__name__ == "__main__"' in text and path.name != "__init__.py":
            yield ".".join(path.with_suffix("").relative_to(ROOT).parts), path


ENTRY = re.compile(r"^([\w-]+(?:(?:, | \.\. | )[\w-]+)*):(?: |$)")


def make_targets():
    """(targets, description) of every ``## targets: text`` comment of the Makefile and mk/*.mk
    (what ``make help`` prints): a block of ``##`` lines holds one entry, or several when a line
    of it starts with target names and a colon once the entry before has its own."""
    entries, previous = [], False
    for path in [ROOT / "Makefile", *sorted(ROOT.glob("mk/*.mk"))]:
        for line in path.read_text().splitlines():
            comment = line.startswith("## ")
            text = line[3:].strip()
            complete = bool(entries) and re.search(r":( |$)", entries[-1])
            if comment and (not previous or (complete and ENTRY.match(text))):
                entries.append(text)
            elif comment:
                entries[-1] += " " + text
            previous = comment
    targets = []
    for entry in entries:
        names, _, text = re.split(r":( |$)", entry, maxsplit=1)
        targets.append((names, text.strip()))
    return targets


def cli_page():
    scripts = [point for point in distribution("svmbench").entry_points
               if point.group == "console_scripts"]
    script_rows = [(code(point.name), code(point.value)) for point in scripts]
    module_rows = []
    for module, path in runnable_modules():
        package_init = path.parent / "__init__.py"
        source = package_init if path.name == "__main__.py" else path
        module_rows.append((code(f"python -m {module}"), module_summary(source)))
    make_rows = [(" ".join(code(f"make {name}") if re.fullmatch(r"[\w-]+", name) else name
                          for name in re.split(r"(\s*,\s*|\s+)", names) if name.strip()),
                  text) for names, text in make_targets()]
    return ("# Command line and make targets\n\n"
            "Generated from the console scripts svmbench installs (`[project.scripts]`), "
            "the package's runnable "
            "modules (their docstrings) and the `## target: text` lines `make help` prints. Every make target creates the virtual "
            "environment `.venv` first.\n\n## Entry points\n\n"
            "`svmbench` is the Hydra app (any `key=value` of [Configuration](config.md), `-m` "
            "for a sweep, `--help` for Hydra's help).\n\n"
            + table(("command", "function"), script_rows)
            + "\n## `python -m` modules\n\n" + table(("command", "what it does"), module_rows)
            + "\n## make targets\n\n`make help` prints this list. `SCALE=quick|paper`, "
              "`LAUNCHER='hydra/launcher=...'` and `OWN=...` are the usual variables.\n\n"
            + table(("target", "what it does"), make_rows))


PLUGIN_API = ("svmbench.solvers.plugins.SolverPlugin", "svmbench.capabilities.Capabilities",
              "svmbench.solvers.base.SolverResult", "svmbench.solvers.base.finish",
              "svmbench.kernels.provider.kernel_row")


def autodoc_kind(path):
    """``class`` or ``function``: the autodoc directive of a dotted name."""
    return "class" if path.rsplit(".", 1)[-1][0].isupper() else "function"


def api_page():
    import svmbench

    public = [name for name in svmbench.__all__ if not name.startswith("_")]
    blocks = []
    for name in public:
        target = getattr(svmbench, name)
        kind = "autoclass" if isinstance(target, type) else "autofunction"
        options = "   :members: fit, decision_function\n" if kind == "autoclass" else ""
        blocks.append(f"```{{eval-rst}}\n.. {kind}:: {target.__module__}.{name}\n{options}```\n")
    plugin = [f"```{{eval-rst}}\n.. auto{autodoc_kind(path)}:: {path}\n```\n"
              for path in PLUGIN_API]
    return ("# Python API\n\nGenerated by autodoc from `svmbench.__all__` (the public names, "
            "imported lazily) and the plug-in API a solver of one's own uses "
            "([How to add a solver](../howto/plugin.md)). The estimators follow scikit-learn's "
            "[estimator API](https://scikit-learn.org/stable/developers/develop.html).\n\n"
            "## Public names\n\n" + "\n".join(blocks)
            + "\n## Plug-in API\n\n" + "\n".join(plugin))


PAGES = {"config.md": config_page, "records.md": record_page, "statuses.md": status_page,
         "cli.md": cli_page, "api.md": api_page}


def write_pages(app):
    if not app.config.svmbench_reference_pages:
        return
    folder = Path(app.srcdir) / GENERATED
    folder.mkdir(parents=True, exist_ok=True)
    for name, page in PAGES.items():
        text = page()
        path = folder / name
        if not path.is_file() or path.read_text() != text:  # unchanged: no rebuild
            path.write_text(text)


def repository_link(app, docname, target):
    """The URL of a repository path a page links to, or None when it is no repository path."""
    source, root = Path(app.srcdir), Path(app.config.svmbench_repository_root)
    path = (source / docname).parent / target
    resolved = Path(os.path.normpath(path))
    if not resolved.is_relative_to(root) or (resolved.is_relative_to(source)
                                             and app.env.path2doc(str(resolved))):
        return None
    if not resolved.exists():
        return None
    relative = resolved.relative_to(root).as_posix()
    base = app.config.svmbench_repository_url
    if base:
        return base.rstrip("/") + "/" + relative
    page_folder = (Path(app.outdir) / docname).parent
    return os.path.relpath(resolved, page_folder)


def link_repository_paths(app, doctree):
    """Links to repository files and folders outside the site's pages become links into the
    checkout (or svmbench_repository_url); a missing path is left to MyST, which warns."""
    docname = app.env.docname
    for node in list(doctree.findall(addnodes.pending_xref)) + list(
            doctree.findall(addnodes.download_reference)):
        if node.get("reftype") != "myst":
            continue
        if node.get("refdomain") == "doc":  # a Markdown file: a page, or one outside the site
            if node["reftarget"] in app.env.found_docs:
                continue
            # Sphinx names a Markdown file outside the site by its absolute path
            url = repository_link(app, docname, Path(app.srcdir, node["reftarget"] + ".md"))
        elif node.get("refdomain") in (None, ""):
            target = node["reftarget"].split("#")[0]
            if not target or "://" in target:
                continue
            url = repository_link(app, docname, target)
        else:
            continue
        if url is None:
            continue
        reference = nodes.reference("", "", *node.children, refuri=url, internal=False,
                                    classes=["repository"])
        node.replace_self(reference)


def setup(app):
    app.add_config_value("svmbench_repository_url", None, "env")
    app.add_config_value("svmbench_repository_root", str(ROOT), "env")
    app.add_config_value("svmbench_reference_pages", True, "env")
    app.connect("builder-inited", write_pages)
    app.connect("doctree-read", link_repository_paths, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
