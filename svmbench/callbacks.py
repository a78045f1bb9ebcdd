"""Hydra callbacks for sweeps (``svmbench -m ...``), whatever the launcher.

- :class:`FailedCells` ends every sweep with a count of its cells' outcomes (trained, reused from
  the store, failed, unsuitable, claimed by another process) and makes a sweep with a failed cell
  exit non-zero once every cell has run, after logging a summary: each failed cell, its error and
  the command that re-runs it. Jobs may run in other processes (joblib, submitit), so each job
  leaves a JSON file in ``<sweep dir>/.outcomes/`` and the parent reads them.
- :class:`WarmNumbaCache` compiles the sweep's solvers once in the parent process before the
  launcher fans out. numba's on-disk cache is not safe when several processes compile the same
  function for the first time at once (numba issues #4807, #10128); after this every worker only
  loads the cache.
- :class:`SweepProgress` shows cells done / total with an ETA on the terminal (stderr, off when
  stderr is not a terminal); each finished job leaves a marker file in ``<sweep dir>/.progress/``
  and the parent counts them.
- :class:`LikeWithLike` warns, before a sweep over algorithms of one's own (no experiment
  config) starts, when a key it leaves unset (kernel, gamma, C, tol) has different defaults in
  its algorithms, naming each algorithm's value: their cells would differ in it side by side.
"""

import json
import logging
import os
import sys
import threading
from collections import Counter
from pathlib import Path

from hydra.experimental.callback import Callback
from omegaconf import OmegaConf
from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm

from svmbench.algorithm_keys import configured_defaults
from svmbench.algorithms import capabilities, estimator_factories
from svmbench.analysis.settings import sweep_defaults_conflicts
from svmbench.capabilities import unsuitable_reason
from svmbench.outcomes import OUTCOME_LOG_ENV, OUTCOMES, describe_failures
from svmbench.sweep import sweep_jobs

POLL_SECONDS = 0.5
log = logging.getLogger("svmbench")


def swept_choices(config, jobs, group):
    """Config names of ``group`` (algorithm, protocol) the sweep's ``jobs`` use (the config's
    own when none is swept)."""
    names = {override.split("=", 1)[1] for job in jobs for override in job
             if override.split("=", 1)[0] in (group, f"+{group}")}
    return sorted(names) or [config[group].name]


def sweep_folder(config, name):
    return Path(config.hydra.sweep.dir) / name


class FailedCells(Callback):
    def on_job_end(self, config, job_return, **kwargs):
        if OmegaConf.select(config, "hydra.job.num") is None:  # a single run exits by itself
            return
        try:
            returned = job_return.return_value or {}
            outcome, summary = returned.get("outcome", "failed"), returned.get("failure")
        except Exception as error:  # noqa: BLE001 — the job raised: its cell failed as a whole
            outcome, summary = "failed", {
                "cell": " ".join(config.hydra.overrides.task), "folds": [],
                "error": [f"{type(error).__name__}: {error}"],
                "rerun": "svmbench " + " ".join(config.hydra.overrides.task)}
        folder = sweep_folder(config, ".outcomes")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{config.hydra.job.num}.json").write_text(
            json.dumps({"outcome": outcome, "failure": summary}))

    def on_multirun_end(self, config, **kwargs):
        folder = sweep_folder(config, ".outcomes")
        jobs = [json.loads(path.read_text()) for path in
                sorted(folder.glob("*.json"), key=lambda p: int(p.stem))] \
            if folder.is_dir() else []
        counts = Counter(job["outcome"] for job in jobs)
        log.info("sweep of %d cell(s): %s", len(jobs), ", ".join(
            f"{counts[outcome]} {outcome}" for outcome in OUTCOMES if counts[outcome]))
        if os.environ.get(OUTCOME_LOG_ENV):  # a timed artefact (svmbench.walltime) counts them
            with open(os.environ[OUTCOME_LOG_ENV], "a") as stream:
                stream.write(json.dumps(dict(counts)) + "\n")
        summaries = [job["failure"] for job in jobs if job["failure"]]
        if summaries:
            log.error(describe_failures(summaries))
            raise SystemExit(1)


class WarmNumbaCache(Callback):
    def on_multirun_start(self, config, **kwargs):
        from svmbench.protocols import TUNED
        from svmbench.warm_up import tuning_refusal, warm_up

        kernel = OmegaConf.select(config, "algorithm.kernel", default="rbf")
        known = estimator_factories()  # (a config with a _target_ warms up in its cell)
        jobs = sweep_jobs(config)
        tuned = any(name in TUNED for name in swept_choices(config, jobs, "protocol"))
        for name in swept_choices(config, jobs, "algorithm"):
            if name in known and unsuitable_reason(capabilities(name), kernel) is None:
                warm_up(name, kernel)  # (unsuitable: e.g. a missing package)
                refused = tuned and tuning_refusal(name, kernel)
                if refused:  # its cells compile, or fail, by themselves
                    log.info("no grid-search warm-up for %s: %s", name, refused)


class LikeWithLike(Callback):
    def on_multirun_start(self, config, **kwargs):
        if OmegaConf.select(config, "experiment_name") != "adhoc":
            return  # an experiment config sets and documents its cells' settings
        conflicts = sweep_defaults_conflicts(sweep_jobs(config), configured_defaults)
        for key, values in conflicts.items():
            named = ", ".join(f"{name} {value}" for name, value in values.items())
            log.warning("algorithm.%s is not set in this sweep and its algorithms' defaults "
                        "differ (%s): their cells would differ in %s side by side; set "
                        "algorithm.%s=<value> to compare like with like", key, named, key, key)


class SweepProgress(Callback):
    def on_multirun_start(self, config, **kwargs):
        folder = sweep_folder(config, ".progress")
        folder.mkdir(parents=True, exist_ok=True)
        self._stop = threading.Event()
        self._bar = tqdm(total=len(sweep_jobs(config)), desc="sweep", unit="cell",
                         file=sys.stderr, disable=None)
        self._logs_above_bar = logging_redirect_tqdm()  # log lines never overwrite the bar
        self._logs_above_bar.__enter__()
        self._watcher = threading.Thread(target=self._watch, args=(folder,), daemon=True)
        self._watcher.start()

    def __getstate__(self):  # launchers ship callbacks to workers; only the parent watches
        return {}

    def _watch(self, folder):
        while not self._stop.wait(POLL_SECONDS):
            self._show(folder)

    def _show(self, folder):
        self._bar.update(sum(1 for _ in folder.iterdir()) - self._bar.n)

    def on_job_end(self, config, job_return, **kwargs):
        folder = sweep_folder(config, ".progress")
        if OmegaConf.select(config, "hydra.job.num") is not None and folder.is_dir():
            (folder / str(config.hydra.job.num)).touch()

    def on_multirun_end(self, config, **kwargs):
        self._stop.set()
        self._watcher.join()
        self._show(sweep_folder(config, ".progress"))
        self._logs_above_bar.__exit__(None, None, None)
        self._bar.close()
