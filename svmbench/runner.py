"""The Hydra entry point: resolve a config, run one cell over its folds, write the records.

    svmbench dataset=a7a algorithm=gs_svm algorithm.gamma=0.05 protocol=holdout
    svmbench -m dataset=a1a,a4a algorithm=gs_svm,libsvm
    svmbench -m +experiment=gs2008_table2 scale=quick

A cell is identified by the hash of its resolved config (experiment, dataset, algorithm,
protocol, seed); each fold of it is one record. Records of the same code (fingerprint) are skipped
on a re-run, so a killed sweep resumes where it stopped; a cell is trained only under its claim in
the store, so two sweeps never train it twice. A failing fold is recorded as ``failed:<reason>``
and the sweep goes on; the cell's failure is logged once, at ERROR, and the command exits non-zero
when it ends (a sweep: after every cell, with a summary; svmbench.callbacks.FailedCells).
"""

import dataclasses
import functools
import logging
import numbers
import os
import socket
import time
from pathlib import Path

import hydra
import numba
import numpy as np
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig
from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm

from svmbench.algorithm_keys import (
    check_algorithm_keys,
    setting_defaults,
    store_algorithm_keys,
)
from svmbench.algorithms import TARGET, build_estimator, capabilities, with_target_defaults
from svmbench.capabilities import UNSUITABLE, Task, needs_data, unsuitable_reason
from svmbench.conf import CONF_PACKAGE
from svmbench.configs import cell_config, register
from svmbench.data import load_dataset
from svmbench.kernels.threads import limit_threads, threading_info
from svmbench.models import GAMMA_RULES
from svmbench.outcomes import CLAIMED, FAILED, REUSED, TRAINED, describe_failures
from svmbench.protocols import TUNED, fold_count, splits, tuning_budget
from svmbench.provenance import code_fingerprint, config_hash, provenance
from svmbench.referee import RefutedError, certify_scikit_learn
from svmbench.solvers.base import worst_status
from svmbench.store import FINISHED, ResultStore, StoreError
from svmbench.tuned_points import TunedPoints
from svmbench.tuning import REFERENCE, tuning_algorithm
from svmbench.warm_up import points_kind, toy_samples, warm_up, warm_up_tuning

# record fields that differ between two runs of one config (times aside, records are the same):
# clocks, when, which sweep, and whether this cell or another ran a shared search
CLOCKS = ("train_time_s", "cpu_time_s", "predict_time_s", "referee_time_s", "referee_cpu_time_s",
          "inner_train_time_s", "inner_tuning_time_s", "timestamp_utc", "run_id", "tuning_reused")
log = logging.getLogger("svmbench")


class ConfigError(ValueError):
    """A config value that cannot run; the message names the key, the value and the fix."""


def error_rate(estimator, X, y):
    return float(np.mean(estimator.predict(X) != y))


def measure(algorithm, split):
    """Train on one split and return the measured fields of its record, with the estimator's
    convergence checkpoints (its ``curve_``, when it has one) as ``curve``. The referee
    (svmbench.referee) certifies the fit outside its timed part: our estimators certify inside
    ``fit`` and say how long it took (taken out of the training time), external references
    (scikit-learn's SVC, oneDAL's) are certified here, after the timed fit."""
    estimator = build_estimator(algorithm)
    wall, cpu = time.perf_counter(), time.process_time()
    estimator.fit(split.X_train, split.y_train)
    train_time, cpu_time = time.perf_counter() - wall, time.process_time() - cpu
    if hasattr(estimator, "referee_time_s_"):
        train_time -= estimator.referee_time_s_
        cpu_time -= estimator.referee_cpu_time_s_
    else:
        certify_scikit_learn(estimator, split.X_train, split.y_train)
    wall = time.perf_counter()
    test_error = error_rate(estimator, split.X_test, split.y_test)
    predict_time = time.perf_counter() - wall
    kernel_predict = getattr(estimator, "kernel_predict_", None)  # counted by the test prediction
    objective = getattr(estimator, "objective_", None)
    return {
        "n_train": split.X_train.shape[0],
        "n_test": split.X_test.shape[0],
        "n_features": split.X_train.shape[1],
        "n_classes": len(estimator.classes_),
        "n_sv": len(estimator.support_),
        "iterations": int(np.sum(estimator.n_iter_)),
        "kernel_requested": getattr(estimator, "kernel_requested_", None),
        "kernel_computed": getattr(estimator, "kernel_computed_", None),
        "kernel_requested_working_set": getattr(estimator, "kernel_requested_working_set_",
                                                None),
        "kernel_predict": None if kernel_predict is None else int(kernel_predict),
        "iterations_by_threads": getattr(estimator, "iterations_by_threads_", None),
        "train_time_s": train_time,
        "cpu_time_s": cpu_time,
        "predict_time_s": predict_time,
        "objective": None if objective is None else float(np.sum(objective)),
        "train_error": error_rate(estimator, split.X_train, split.y_train),
        "test_error": test_error,
        **status_fields(estimator),
        **getattr(estimator, "record_fields_", {}),  # an estimator's own measurements
        **({"curve": estimator.curve_} if hasattr(estimator, "curve_") else {}),
    }


def base_record(cell, chash, fold):
    algorithm = {key: value for key, value in cell["algorithm"].items() if key != "name"}
    protocol = {f"protocol_{key}": value for key, value in cell["protocol"].items()
                if key != "name"}
    dataset = {f"dataset_{key}": value for key, value in cell["dataset"].items() if key != "name"}
    return {
        "experiment": cell["experiment_name"],
        "dataset": cell["dataset"]["name"],
        **dataset,
        "algorithm": cell["algorithm"]["name"],
        **algorithm,
        "protocol": cell["protocol"]["name"],
        **protocol,
        "fold": fold,
        "seed": cell["seed"],
        "config_hash": chash,
        "run_id": run_id(),
        **thread_settings(),
        **provenance(),
        "code_fingerprint": code_fingerprint(),
    }


def thread_settings():
    """``threads`` (numba's count), ``threading_layer``, the OpenMP wait policy in force and
    ``blas_threads``."""
    settings = threading_info()
    return {"threads": settings.pop("numba_threads"), **settings}


def status_fields(estimator):
    """The referee's word on a certified fit (svmbench.referee): ``status`` (the worst class
    pair's), ``stop`` (why that pair's solver stopped), ``kkt_holds`` (every pair within its
    tolerance plus rounding allowance), ``kkt_violation``, ``kkt_tolerance``, ``kkt_allowance``
    and ``referee_gap`` (largest over pairs), ``referee_objective`` (summed), the referee's time
    and kernel entries; beside them what the solvers claimed (``claimed_status``,
    ``claimed_kkt_violation``). svmbench.status reads them."""
    statuses = estimator.status_
    worst = worst_status(statuses)
    claimed = np.asarray(estimator.claimed_kkt_violation_, dtype=float)
    return {**referee_fields(vars(estimator)), "problem": getattr(estimator, "problem", "csvc"),
            "status": worst,
            "stop": estimator.stop_[statuses.index(worst)],
            "claimed_status": worst_status(estimator.claimed_status_),
            "claimed_kkt_violation": None if np.all(np.isnan(claimed))
            else float(np.nanmax(claimed))}


def referee_fields(attributes):
    """The record fields of the referee's measurements, from a certified estimator's attributes
    or a Verdict's (svmbench.referee.Verdict.attributes)."""
    violations = np.asarray(attributes["kkt_violation_"], dtype=float)
    tolerances = np.asarray(attributes["kkt_tolerance_"], dtype=float)
    allowances = np.asarray(attributes["kkt_allowance_"], dtype=float)
    return {"kkt_holds": bool(np.all(violations <= tolerances + allowances)),
            "kkt_violation": measured(np.max(violations)),
            "kkt_tolerance": float(np.max(tolerances)),
            "kkt_allowance": measured(np.max(allowances)),
            "referee_objective": measured(np.sum(attributes["referee_objective_"])),
            "referee_gap": measured(np.max(attributes["referee_gap_"])),
            "referee_time_s": attributes["referee_time_s_"],
            "referee_cpu_time_s": attributes["referee_cpu_time_s_"],
            "referee_kernel_evaluations": attributes["referee_kernel_evaluations_"]}


@functools.cache
def run_id():
    """The run a record belongs to: the Hydra sweep (or single run) folder, else this process."""
    if HydraConfig.initialized():
        hydra_config = HydraConfig.get()
        folder = hydra_config.sweep.dir if hydra_config.mode == RunMode.MULTIRUN \
            else hydra_config.run.dir
        return str(Path(folder).resolve())
    return f"{socket.gethostname()}:{os.getpid()}:{time.time():.0f}"


def measured(value):
    """A measurement for the record: None where it is not defined (NaN: a non-finite point, a
    gap the problem does not have), so that equal runs give equal records."""
    value = float(value)
    return None if np.isnan(value) else value


def failure(error):
    """The status of a record whose training raised ``error``; a fit the referee refuted is
    ``failed:refuted: ...``."""
    if isinstance(error, RefutedError):
        return f"failed:{error}"
    return f"failed:{type(error).__name__}: {error}"


def failure_fields(error):
    """The referee's measurements of a refuted fit (none for other failures)."""
    verdict = getattr(error, "verdict", None)
    return {} if verdict is None else referee_fields(verdict.attributes())


def check_algorithm(algorithm):
    """Raise ConfigError when an ``algorithm.<key>`` is not a key of the algorithm (the message
    names the algorithms that have it) or has a value of the wrong type for its default (its
    solver spec's, svmbench.algorithm_keys.setting_defaults; e.g. a string where a number
    belongs)."""
    try:
        check_algorithm_keys(algorithm)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    defaults = build_estimator(algorithm).get_params() if algorithm.get(TARGET) \
        else setting_defaults(algorithm["name"])
    for key, value in algorithm.items():
        default = defaults.get(key)
        numeric = isinstance(default, numbers.Real) and not isinstance(default, bool)
        named_width = key == "gamma" and value in GAMMA_RULES
        if numeric and not named_width and (isinstance(value, bool)
                                            or not isinstance(value, numbers.Real)):
            raise ConfigError(f"algorithm.{key}={value!r} is not a number; give a number, e.g. "
                              f"algorithm.{key}={default}" + (
                                  f", or one of {list(GAMMA_RULES)}" if key == "gamma" else ""))
        if isinstance(default, bool) and not isinstance(value, bool):
            raise ConfigError(f"algorithm.{key}={value!r} is not true/false; give "
                              f"algorithm.{key}=true or algorithm.{key}=false")


# the valid range of each numeric setting an algorithm may have, checked before any data is loaded
# (lower bound, whether it is included, whether the setting is a whole number)
SETTING_RANGES = {"C": (0.0, False, False), "tol": (0.0, False, False),
                  "gamma": (0.0, False, False), "eps": (0.0, False, False),
                  "eta": (0.0, False, False), "cache_mb": (0.0, True, False),
                  "max_iter": (-1, True, True), "rank": (0, True, True)}


def check_settings(algorithm):
    """Raise ConfigError naming the key, the value and the range when a numeric setting is out of
    its range (SETTING_RANGES): before the data set is loaded or anything trained."""
    for key, (low, included, whole) in SETTING_RANGES.items():
        value = algorithm.get(key)
        if not isinstance(value, numbers.Real) or isinstance(value, bool):
            continue
        inside = value >= low if included else value > low
        if whole and value != int(value) or not inside:
            kind = "a whole number " if whole else ""
            raise ConfigError(f"algorithm.{key}={value!r} is out of range: {key} must be "
                              f"{kind}{'>=' if included else '>'} {low}")


def check_folds(folds, protocol):
    """Raise ConfigError when ``folds`` names a fold the protocol does not have."""
    count = fold_count(protocol)
    outside = sorted(fold for fold in folds or () if not 0 <= fold < count)
    if outside:
        settings = "".join(f" protocol.{key}={protocol[key]}" for key in ("k", "count")
                           if key in protocol)
        raise ConfigError(f"folds={list(folds)}: fold(s) {outside} do not exist; protocol="
                          f"{protocol['name']}{settings} has folds 0..{count - 1}: give indices "
                          f"in that range, or folds=null for all")


def check_tuning_budget(protocol):
    """Raise ConfigError when ``protocol.tune_subsample`` is not a tuning budget (null or a whole
    number >= 1, svmbench.protocols.tuning_budget)."""
    try:
        tuning_budget(protocol)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def tuning_text(record):
    """What a tuned fold's grid search ran on and cost, for its log line ('' when untuned):
    samples used of the training part, the budget, grid points x inner folds, seconds, and who
    tuned when another solver did (its search read from the store when another cell ran it)."""
    if "tuned_on" not in record:
        return ""
    budget = record.get("protocol_tune_subsample")
    inner_k = int(record["protocol_inner_k"])
    tuner = record.get("tuned_with", record["algorithm"])
    return (f"; tuned on {record['tuned_on']} of {record.get('n_train', '?')} samples (budget "
            f"{'all' if budget is None else budget}), {record['inner_trainings'] // inner_k} "
            f"grid points x {inner_k} folds in {record['inner_tuning_time_s']:.1f} s"
            + (f" by {tuner}" if tuner != record["algorithm"] else "")
            + (" (another cell's search, read from the store)"
               if record.get("tuning_reused") else ""))


def check_threads(threads):
    """Raise ConfigError when ``threads`` is more than numba may start in this process."""
    most = numba.config.NUMBA_NUM_THREADS
    if threads is not None and not 1 <= int(threads) <= most:
        raise ConfigError(f"threads={threads}: this process may run 1..{most} numba threads "
                          f"(NUMBA_NUM_THREADS={most}; joblib's launcher gives each of its n_jobs "
                          f"workers cores // n_jobs): give threads=null or 1..{most}, or lower "
                          "hydra.launcher.n_jobs")


def run_cell(cfg):
    """Run every fold of the cell that is not stored yet; return the records written (none when
    another process holds the cell's claim)."""
    return train_cell(cfg)[0]


def train_cell(cfg):
    """(the records written, the cell's outcome: one of OUTCOMES) of :func:`run_cell`; a setting
    that cannot run raises ConfigError before anything is stored."""
    cell = cell_config(cfg)
    chash = config_hash(cell)
    store = ResultStore(cfg.store.dir, cfg.store.reuse, cfg.store.lease_hours)
    store.check_writable()
    fingerprint = code_fingerprint()
    folds = None if cfg.folds is None else set(cfg.folds)
    name = f"{cell['dataset']['name']} / {cell['algorithm']['name']} (cell {chash})"

    def wanted(fold):
        return (folds is None or fold in folds) and not store.has_finished(chash, fold, fingerprint)

    claim = store.claim(chash)
    if claim is None:
        log.warning("%s: another process holds its claim in %s; not trained here", name,
                    store.directory)
        return [], CLAIMED
    with claim, logging_redirect_tqdm():
        records = train_folds(cfg, cell, chash, store, wanted, name)
    return records, outcome_of(records)


def outcome_of(records):
    """A claimed cell's outcome from the records it wrote: none (every wanted fold was stored
    already) reused; unsuitable; a failed fold failed; else trained."""
    if not records:
        return REUSED
    if all(r["status"] == UNSUITABLE for r in records):
        return UNSUITABLE
    return FAILED if any(r["status"] not in FINISHED for r in records) else TRAINED


def unsuitable(cell, size_limits=True):
    """Why the cell's solver cannot take its data set (its declared capabilities; its cost cap
    only with ``size_limits``), or None; the data set is loaded only when a limit depends on it."""
    algorithm = cell["algorithm"]
    declared = capabilities(algorithm["name"], algorithm.get(TARGET))
    if not size_limits:
        declared = dataclasses.replace(declared, max_train=None)
    kernel = algorithm.get("kernel", "rbf")
    reason = unsuitable_reason(declared, kernel)
    if reason or not needs_data(declared):
        return reason
    data = load_dataset(cell["dataset"]["name"])
    task = Task(n_train=data.y_train.shape[0], n_classes=np.unique(data.y_train).shape[0],
                kernel=kernel)
    return unsuitable_reason(declared, kernel, task)


def train_folds(cfg, cell, chash, store, wanted, name):
    """Train the wanted folds of a claimed cell, store each record, log its failure once; a cell
    whose solver cannot take its data set gets one record saying why (fold -1), untrained."""
    written = []
    try:
        cell = {**cell, "algorithm": with_target_defaults(cell["algorithm"])}
        check_algorithm(cell["algorithm"])
        check_settings(cell["algorithm"])
        check_folds(cfg.folds, cell["protocol"])
        check_tuning_budget(cell["protocol"])
        check_threads(cfg.threads)
        if cfg.threads:
            limit_threads(int(cfg.threads))
        reason = unsuitable(cell, cfg.get("size_limits", True))
        if reason:
            record = {**base_record(cell, chash, -1), "status": UNSUITABLE,
                      "unsuitable_reason": reason}
            store.write(record)
            log.warning("%s not trained: %s", name, reason)
            return [record]
        target = sorted(cell["algorithm"].items()) if cell["algorithm"].get(TARGET) else ()
        if cell["protocol"]["name"] in TUNED:
            tuner = tuning_algorithm(cell["algorithm"], cell["protocol"])
            warm_up_tuning(tuner["name"], tuner.get("kernel", "rbf"),
                           *(target if tuner is cell["algorithm"] else ()))
        scale = bool(cfg.dataset.get("scale", False))
        cell_splits = splits(cell["dataset"]["name"], cell["protocol"], cell["seed"], scale,
                             wanted, cell["algorithm"], shared_searches(cfg, cell, scale, store))
        progress = tqdm(cell_splits, desc=f"{cell['dataset']['name']} {cell['algorithm']['name']}",
                        unit="fold", leave=False, disable=None)
        for split in progress:
            record = {**base_record(cell, chash, split.fold), **split.params, **split.tuning}
            try:
                name_and_kernel = cell["algorithm"]["name"], cell["algorithm"].get("kernel", "rbf")
                warm_up(*name_and_kernel, *target, kind=points_kind(split.X_train),
                        samples=toy_samples(*name_and_kernel, *target,
                                            n_train=split.X_train.shape[0]))
                record.update(measure({**cell["algorithm"], **split.params}, split))
                if not cfg.get("curves", False):  # kept only on request (their size)
                    record.pop("curve", None)
            except Exception as error:  # noqa: BLE001 — a failed fold is recorded, the sweep goes on
                record.update(failure_fields(error))
                record["status"] = failure(error)
            store.remove_failed(chash, -1)  # the cell starts now: an old "could not start" goes
            store.write(record)
            written.append(record)
            log.info("%s %s fold %s: %s, test error %s%s (cell %s)", record["dataset"],
                     record["algorithm"], split.fold, record["status"], record.get("test_error"),
                     tuning_text(record), chash)
    except ConfigError:
        raise  # a setting that cannot run: nothing is stored, the command reports it
    except Exception as error:  # noqa: BLE001 — the cell could not start (data missing, ...)
        record = {**base_record(cell, chash, -1), "status": failure(error)}
        store.write(record)
        written.append(record)
    failed = {r["fold"]: r["status"] for r in written if r["status"] not in FINISHED}
    if failed:
        reasons = sorted(set(failed.values()))
        log.error("%s failed in fold(s) %s: %s", name, sorted(failed), "; ".join(reasons))
    return written


def shared_searches(cfg, cell, scale, store):
    """Where a cell tuned by its problem's reference solver (``protocol.tune_with: reference``)
    reads and stores its searches (svmbench.tuned_points: once per search for all the cells that
    need it, under ``store``'s reuse policy), or None: every other cell runs its own."""
    if cell["protocol"].get("tune_with") != REFERENCE:
        return None
    context = {"dataset": cell["dataset"], "seed": cell["seed"], "scale": scale,
               "code": code_fingerprint()}
    return TunedPoints(cfg.store.dir, context, store.reuse, store.commit).search


def failed_cell(cfg, records):
    """A summary of the cell when one of its ``records`` failed, else None: what, why, re-run."""
    failed = [r for r in records if r["status"] not in (*FINISHED, UNSUITABLE)]
    if not failed:
        return None
    return {"cell": f"{failed[0]['dataset']} / {failed[0]['algorithm']}",
            "folds": sorted(r["fold"] for r in failed),
            "error": sorted({r["status"] for r in failed}),
            "rerun": rerun_command()}


def rerun_command():
    """The ``svmbench`` command that runs this cell again."""
    overrides = HydraConfig.get().overrides.task if HydraConfig.initialized() else []
    return "svmbench " + " ".join(overrides)


def setting_failure(cfg, error):
    """The summary of a cell whose settings cannot run (ConfigError, StoreError): nothing stored."""
    return {"cell": f"{cfg.dataset.name} / {cfg.algorithm.name}", "folds": [],
            "error": [f"{type(error).__name__}: {error}"], "rerun": rerun_command()}


def interrupted(cfg):
    """The one line a Ctrl-C ends with: what this process stored and that re-running resumes."""
    return (f"interrupted: this process stored {ResultStore.records_written} record(s) in "
            f"{cfg.store.dir} (finished folds are kept); run the same command again to resume "
            "where it stopped")


@functools.cache
def register_configs():
    """What the command puts in Hydra's ConfigStore before it composes, once per process: the
    generated config groups (svmbench.configs.register) and ``algorithm_keys`` widened to the
    estimators' own parameters, so that a sweep's plain overrides reach them."""
    register()
    store_algorithm_keys()


@hydra.main(version_base=None, config_path=f"pkg://{CONF_PACKAGE}", config_name="config")
def run(cfg: DictConfig):
    """Run one cell. A failed cell exits non-zero at once in a single run, with our message and no
    traceback; in a sweep its outcome (OUTCOMES) and failure summary are returned, and
    svmbench.callbacks.FailedCells counts the outcomes and exits non-zero after the last cell when
    one failed. Ctrl-C ends with one line saying what was stored. A launcher's worker process
    registers the configs here (Hydra hands it the ConfigStore, not OmegaConf's resolvers)."""
    register_configs()
    single = HydraConfig.get().mode == RunMode.RUN
    try:
        records, outcome = train_cell(cfg)
        summary = failed_cell(cfg, records)
    except (ConfigError, StoreError) as error:  # named errors: their message is the report
        outcome, summary = FAILED, setting_failure(cfg, error)
        if not single:
            log.error("%s / %s: %s", cfg.dataset.name, cfg.algorithm.name, error)
    except KeyboardInterrupt:
        raise SystemExit(interrupted(cfg)) from None
    if summary and single:
        raise SystemExit(describe_failures([summary]))
    return {"outcome": outcome, "failure": summary}


def main():
    """The ``svmbench`` command: register the configs, then Hydra composes and runs :func:`run`
    (one cell, or with ``-m`` a sweep's cells through its launcher)."""
    register_configs()
    run()


if __name__ == "__main__":  # python -m svmbench.runner: run the imported module's main, which
    from svmbench.runner import main as imported_main  # launchers can pickle by reference

    imported_main()
