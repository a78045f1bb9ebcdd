"""An experiment's cells: its sweep expanded by the sweeper Hydra runs.

``experiment_config(artefact, scale)`` composes ``+experiment=<artefact> scale=<scale>`` (with the
``hydra`` node); ``sweep_jobs(config)`` asks the configured sweeper (parts of hydra-list-sweeper
sweeps) for the jobs it would hand to the launcher, each a list of overrides; ``cells(artefact,
scale)`` gives each job's resolved cell config and hash — what a table selects its records by.

Composing a config takes Hydra about half a second, and a paper-scale sweep has hundreds of cells
that differ mostly in values (``algorithm.C=4``). So ``cells`` composes once per choice of config
groups (``dataset=heart algorithm=smo_wss2``) and applies each job's value overrides as Hydra's
config loader applies them after composition (``OmegaConf.update``, ``+`` adds a key, ``++``
forces it), to a copy only where a later job needs the composed config too (a board has one
choice of groups per cell); a job whose overrides this cannot take (a deletion, an error) is
composed whole. tests/integration/test_sweep.py checks the hashes against composing every job
whole.
"""

import contextlib
import copy
import io
import tempfile
from collections import Counter
from dataclasses import dataclass

from hydra import compose, initialize_config_module
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.utils import instantiate
from omegaconf import OmegaConf, open_dict

from hydra_plugins.svmbench_sweepers.parts_sweeper import RecordingLauncher
from svmbench.conf import CONF_PACKAGE
from svmbench.configs import cell_config, register
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
    with initialize_config_module(config_module=CONF_PACKAGE, version_base=None):
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
    config = experiment_config(artefact, scale, overrides)  # registers the configs
    groups = set(config.hydra.runtime.choices)
    jobs = sweep_jobs(config)
    found, composed = [], {}
    extras = [[o for o in job if o not in (*base, *overrides)] for job in jobs]
    uses = Counter(group_choices(extra, groups) for extra in extras)
    with initialize_config_module(config_module=CONF_PACKAGE, version_base=None):
        for extra in extras:
            choices = group_choices(extra, groups)
            if choices not in composed:
                composed[choices] = compose("config", [*base, *overrides, *choices])
            uses[choices] -= 1
            config = with_values(composed[choices], [o for o in extra if o not in choices],
                                 copy_first=uses[choices] > 0)
            if config is None:
                config = compose("config", [*base, *overrides, *extra])
            found.append(Cell(tuple(extra), config_hash(cell_config(config))))
    return found


def group_choices(overrides, groups):
    """The ``overrides`` that choose a config group (``dataset=heart``), in their order."""
    return tuple(o for o in overrides if not is_value_override(o, groups))


def is_value_override(override, groups):
    """``key=value``, ``+key=value`` or ``++key=value`` for a key that names no config group."""
    key = override.split("=", 1)[0].lstrip("+")
    return "=" in override and not override.startswith("~") and key.split("@")[0] not in groups


def with_values(config, overrides, copy_first=True):
    """A composed ``config`` (a copy of it if ``copy_first``: a later job needs it as it is) with
    value ``overrides`` applied as Hydra applies them after composition, or None where they do not
    apply so (the caller composes the job whole)."""
    if copy_first:
        config = copy.deepcopy(config)
    try:
        for override in OverridesParser.create().parse_overrides(overrides):
            key, value = override.key_or_group, override.value()
            if override.is_add() and OmegaConf.select(config, key, throw_on_missing=False) \
                    is not None and not isinstance(value, (dict, list)):
                return None  # Hydra refuses to add a key that is there
            OmegaConf.update(config, key, value, merge=True,
                             force_add=override.is_add() or override.is_force_add())
    except Exception:  # noqa: BLE001 - whatever Hydra would say, composing whole says it
        return None
    return config


def artefact_settings(artefact, scale, overrides=()):
    """The experiment's ``artefact`` node (renderer, output) and its store folder, resolved."""
    config = experiment_config(artefact, scale, overrides)
    return OmegaConf.to_container(config.artefact, resolve=True), config.store.dir
