"""The Hydra sweeper of svmbench/conf/config.yaml (a Hydra plugin, so under hydra_plugins/): the union of hydra-list-sweeper sweeps ("parts"),
launched as one batch, for artefacts whose cells are not one grid. No parts: one empty part, so
command-line sweeps (``svmbench -m dataset=a1a,w1a``) work as with hydra-list-sweeper.

    hydra:
      sweeper:
        parts:                 # each part: grid (cartesian) x list (zipped), as hydra-list-sweeper
          - {grid: {dataset: [a1a, w1a], algorithm: [parzen, rho_svm]}}
          - {grid: {dataset: a1a, algorithm: csvm_xialpha, algorithm.C: [0.25, 1, 4]}}
"""

from dataclasses import dataclass, field
from typing import Any

from hydra.core.config_store import ConfigStore
from hydra.core.plugins import Plugins
from hydra.plugins.sweeper import Sweeper
from hydra_plugins.list_sweeper_plugin.list_sweeper import ListSweeper


class RecordingLauncher:
    """Takes a sweeper's batch instead of running it."""

    batch = ()

    def launch(self, job_overrides, initial_job_idx):
        self.batch = [list(job) for job in job_overrides]
        return []


@dataclass
class PartsSweeperConfig:
    _target_: str = "hydra_plugins.svmbench_sweepers.parts_sweeper.PartsSweeper"
    parts: Any = field(default_factory=lambda: [{}])


ConfigStore.instance().store(group="hydra/sweeper", name="parts", node=PartsSweeperConfig)


class PartsSweeper(Sweeper):
    """Every part's jobs (hydra-list-sweeper's grid x zipped lists), in order, in one launch."""

    def __init__(self, parts):
        self.parts = parts
        self.config = self.launcher = None

    def setup(self, *, hydra_context, task_function, config):
        self.config = config
        self.launcher = Plugins.instance().instantiate_launcher(
            hydra_context=hydra_context, task_function=task_function, config=config)

    def sweep(self, arguments):
        batch = []
        for part in self.parts:
            part_sweeper = ListSweeper(list_params=part.get("list", {}),
                                       grid_params=part.get("grid", {}), ablative_params=[])
            part_sweeper.config, part_sweeper.launcher = self.config, RecordingLauncher()
            part_sweeper.sweep(arguments)
            batch += part_sweeper.launcher.batch
        return [self.launcher.launch(batch, initial_job_idx=0)]
