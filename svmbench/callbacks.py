"""Hydra callbacks for sweeps (``svmbench -m ...``), whatever the launcher.

- :class:`WarmNumbaCache` compiles the sweep's solvers once in the parent process before the
  launcher fans out. numba's on-disk cache is not safe when several processes compile the same
  function for the first time at once (numba issues #4807, #10128); after this every worker only
  loads the cache.
- :class:`SweepProgress` shows cells done / total with an ETA on the terminal (stderr, off when
  stderr is not a terminal). Jobs may run in other processes (joblib, submitit), so each finished
  job leaves a marker file in ``<sweep dir>/.progress/`` and the parent counts them.
"""

import sys
import threading
from pathlib import Path

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.experimental.callback import Callback
from omegaconf import OmegaConf
from tqdm import tqdm

POLL_SECONDS = 0.5


def sweep_overrides(config):
    """The sweep's parsed overrides: ``hydra.sweeper.params`` then the command line's."""
    params = OmegaConf.select(config, "hydra.sweeper.params") or {}
    arguments = [f"{key}={value}" for key, value in params.items()]
    return OverridesParser.create().parse_overrides([*arguments, *config.hydra.overrides.task])


def sweep_jobs(config):
    """Every job of the sweep as its list of overrides (the basic sweeper's expansion)."""
    return [job for batch in BasicSweeper.split_arguments(sweep_overrides(config), None)
            for job in batch]


def swept_algorithms(config):
    """Algorithm config names the sweep uses (the config's own when none is swept)."""
    names = {override.split("=", 1)[1] for job in sweep_jobs(config) for override in job
             if override.split("=", 1)[0] in ("algorithm", "+algorithm")}
    return sorted(names) or [config.algorithm.name]


class WarmNumbaCache(Callback):
    def on_multirun_start(self, config, **kwargs):
        from svmbench.runner import warm_up

        kernel = OmegaConf.select(config, "algorithm.kernel", default="rbf")
        for name in swept_algorithms(config):
            warm_up(name, kernel)


def markers(config):
    return Path(config.hydra.sweep.dir) / ".progress"


class SweepProgress(Callback):
    def on_multirun_start(self, config, **kwargs):
        markers(config).mkdir(parents=True, exist_ok=True)
        self._stop = threading.Event()
        self._bar = tqdm(total=len(sweep_jobs(config)), desc="sweep", unit="cell",
                         file=sys.stderr, disable=None)
        self._watcher = threading.Thread(target=self._watch, args=(markers(config),), daemon=True)
        self._watcher.start()

    def __getstate__(self):  # launchers ship callbacks to workers; only the parent watches
        return {}

    def _watch(self, folder):
        while not self._stop.wait(POLL_SECONDS):
            self._show(folder)

    def _show(self, folder):
        self._bar.update(sum(1 for _ in folder.iterdir()) - self._bar.n)

    def on_job_end(self, config, job_return, **kwargs):
        if OmegaConf.select(config, "hydra.job.num") is not None and markers(config).is_dir():
            (markers(config) / str(config.hydra.job.num)).touch()

    def on_multirun_end(self, config, **kwargs):
        self._stop.set()
        self._watcher.join()
        self._show(markers(config))
        self._bar.close()
