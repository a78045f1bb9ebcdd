"""An experiment's cells: its sweep expanded by the sweeper Hydra runs, through public API only.

``experiment_config(artefact, scale)`` composes ``+experiment=<artefact> scale=<scale>`` (with the
``hydra`` node); ``sweep_jobs(config)`` asks the configured sweeper (parts of hydra-list-sweeper sweeps) for the
jobs it would hand to the launcher, each a list of overrides; ``cells(artefact, scale)`` gives
each job's resolved cell config and hash — what a table selects its records by.
"""

import contextlib
import copy
import io
import tempfile
from dataclasses import dataclass

from hydra import compose, initialize_config_dir
from hydra.utils import instantiate
from omegaconf import OmegaConf, open_dict

from hydra_plugins.svmbench_sweepers.parts_sweeper import RecordingLauncher
from svmbench.configs import CONF_DIR, cell_config, register
from svmbench.provenance import config_hash

SCALES = ("quick", "paper")


@dataclass(frozen=True)
class Cell:
    overrides: tuple  # the job's overrides, after +experiment=... scale=...
    config_hash: str

    def command(self, artefact, scale):
        """The shell command that runs this cell alone."""
        return " ".join(["svmbench", f"+experiment={artefact}", f"scale={scale}", *self.overrides])


def experiment_config(artefact, scale, overrides=()):
    register()
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        return compose("config", [f"+experiment={artefact}", f"scale={scale}", *overrides],
                       return_hydra_config=True)


def sweep_jobs(config):
    """The overrides of every job the sweep of ``config`` (a composed config with its ``hydra``
    node, e.g. a multirun's) launches, in launch order."""
    launcher = RecordingLauncher()
    sweeper = instantiate(config.hydra.sweeper)
    with tempfile.TemporaryDirectory() as scratch:  # the sweeper saves its config there
        scratch_config = copy.deepcopy(config)  # the caller's config keeps its sweep folder
        with open_dict(scratch_config):
            scratch_config.hydra.sweep.dir = scratch
        sweeper.config, sweeper.launcher = scratch_config, launcher
        with contextlib.redirect_stdout(io.StringIO()):  # it prints the sweep folder
            sweeper.sweep(arguments=list(config.hydra.overrides.task))
    return launcher.batch


def cells(artefact, scale, overrides=()):
    """Every cell of an artefact at a scale (with ``overrides``, as its sweep had them), in sweep
    order; a cell's ``overrides`` are its own, without those."""
    base = [f"+experiment={artefact}", f"scale={scale}"]
    jobs = sweep_jobs(experiment_config(artefact, scale, overrides))  # registers the configs
    found = []
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        for job in jobs:
            extra = [o for o in job if o not in (*base, *overrides)]
            config = compose("config", [*base, *overrides, *extra])
            found.append(Cell(tuple(extra), config_hash(cell_config(config))))
    return found


def artefact_settings(artefact, scale, overrides=()):
    """The experiment's ``artefact`` node (renderer, output) and its store folder, resolved."""
    config = experiment_config(artefact, scale, overrides)
    return OmegaConf.to_container(config.artefact, resolve=True), config.store.dir
