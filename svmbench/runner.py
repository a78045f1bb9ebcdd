"""The Hydra entry point: resolve a config, run one cell over its folds, write the records.

    svmbench dataset=a7a algorithm=gs_svm algorithm.gamma=0.05 protocol=holdout
    svmbench -m dataset=a1a,a4a algorithm=gs_svm,libsvm

A cell is identified by the hash of its resolved config (experiment, dataset, algorithm,
protocol, seed); each fold of it is one record. Finished records are skipped on a re-run, so a
killed sweep resumes where it stopped. A failing fold is recorded as ``failed:<reason>`` and the
sweep goes on.
"""

import functools
import logging
import time
from pathlib import Path

import hydra
import numba
import numpy as np
from omegaconf import DictConfig, OmegaConf
from tqdm import tqdm

from svmbench.algorithms import build_estimator
from svmbench.protocols import splits
from svmbench.provenance import config_hash, provenance
from svmbench.store import ResultStore

CONF_DIR = str(Path(__file__).resolve().parent.parent / "conf")
CELL_KEYS = ("experiment_name", "dataset", "algorithm", "protocol", "seed")
log = logging.getLogger("svmbench")


def cell_config(cfg):
    """The part of the config that identifies a cell (what the hash is taken over)."""
    resolved = OmegaConf.to_container(cfg, resolve=True)
    return {key: resolved[key] for key in CELL_KEYS}


@functools.cache
def warm_up(algorithm_name, kernel):
    """Compile (or load from numba's disk cache) once per process, outside every timing."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    estimator = build_estimator({"name": algorithm_name, "kernel": kernel})
    estimator.fit(X, y).predict(X)


def error_rate(estimator, X, y):
    return float(np.mean(estimator.predict(X) != y))


def measure(algorithm, split):
    """Train on one split and return the measured fields of its record."""
    estimator = build_estimator(algorithm)
    wall, cpu = time.perf_counter(), time.process_time()
    estimator.fit(split.X_train, split.y_train)
    train_time, cpu_time = time.perf_counter() - wall, time.process_time() - cpu
    wall = time.perf_counter()
    test_error = error_rate(estimator, split.X_test, split.y_test)
    predict_time = time.perf_counter() - wall
    statuses = getattr(estimator, "status_", None)
    if statuses is None:  # scikit-learn's SVC: fit_status_ 0 = converged
        statuses = ["converged" if estimator.fit_status_ == 0 else "max_iter"]
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
        "kernel_predict": split.X_test.shape[0] * len(estimator.support_),
        "train_time_s": train_time,
        "cpu_time_s": cpu_time,
        "predict_time_s": predict_time,
        "objective": None if objective is None else float(np.sum(objective)),
        "train_error": error_rate(estimator, split.X_train, split.y_train),
        "test_error": test_error,
        "status": "max_iter" if "max_iter" in statuses else "converged",
        **getattr(estimator, "record_fields_", {}),  # an estimator's own measurements
    }


def base_record(cell, chash, fold):
    algorithm = {key: value for key, value in cell["algorithm"].items() if key != "name"}
    protocol = {f"protocol_{key}": value for key, value in cell["protocol"].items()
                if key != "name"}
    return {
        "experiment": cell["experiment_name"],
        "dataset": cell["dataset"]["name"],
        "algorithm": cell["algorithm"]["name"],
        **algorithm,
        "protocol": cell["protocol"]["name"],
        **protocol,
        "fold": fold,
        "seed": cell["seed"],
        "config_hash": chash,
        "threads": numba.get_num_threads(),
        **provenance(),
    }


def failure(error):
    """The status of a record whose training raised ``error``."""
    return f"failed:{type(error).__name__}: {error}"


def run_cell(cfg):
    """Run every fold of the cell that is not stored yet; return the records written."""
    if cfg.threads:
        numba.set_num_threads(int(cfg.threads))
    cell = cell_config(cfg)
    chash = config_hash(cell)
    store = ResultStore(cfg.store.dir)
    folds = None if cfg.folds is None else set(cfg.folds)

    def wanted(fold):
        return (folds is None or fold in folds) and not store.has_finished(chash, fold)

    written = []
    try:
        warm_up(cell["algorithm"]["name"], cell["algorithm"].get("kernel", "rbf"))
        cell_splits = splits(cell["dataset"]["name"], cell["protocol"], cell["seed"],
                             bool(cfg.dataset.get("scale", False)), wanted, cell["algorithm"])
        progress = tqdm(cell_splits, desc=f"{cell['dataset']['name']} {cell['algorithm']['name']}",
                        unit="fold", leave=False, disable=None)
        for split in progress:
            record = {**base_record(cell, chash, split.fold), **split.params, **split.tuning}
            try:
                record.update(measure({**cell["algorithm"], **split.params}, split))
            except Exception as error:  # noqa: BLE001 — a failed fold is recorded, the sweep goes on
                record["status"] = failure(error)
            store.remove_failed(chash, -1)  # the cell starts now: an old "could not start" goes
            store.write(record)
            written.append(record)
            log.info("%s %s fold %s: %s, test error %s", record["dataset"], record["algorithm"],
                     split.fold, record["status"], record.get("test_error"))
    except Exception as error:  # noqa: BLE001 — the cell could not start (data missing, ...)
        record = {**base_record(cell, chash, -1), "status": failure(error)}
        store.write(record)
        written.append(record)
        log.error("%s %s failed: %s", record["dataset"], record["algorithm"], error)
    return written


@hydra.main(version_base=None, config_path=CONF_DIR, config_name="config")
def main(cfg: DictConfig):
    run_cell(cfg)


if __name__ == "__main__":  # python -m svmbench.runner: run the imported module's main, which
    from svmbench.runner import main as imported_main  # launchers can pickle by reference

    imported_main()
