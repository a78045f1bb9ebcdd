"""svmbench's Hydra config tree: where its files are, what is put beside them in Hydra's
ConfigStore, and the part of a composed config that names a cell.

svmbench/conf/ (svmbench.conf, ``pkg://svmbench.conf``) and the artefact packages' experiment/
folders hold the groups written as files (protocol, scale, experiment, hydra/launcher, and the
algorithms that are no solver of ours: libsvm, onedal, optimum, target); :func:`register` adds
the generated ones: ``dataset=<key>`` from the data registry (svmbench.data.configs),
``algorithm=<name>`` for every built-in solver from its spec's declaration
(svmbench.specs.declared_configs) and for every solver of another package with the
``${plugin_solvers:}`` resolver (svmbench.solvers.plugins), the ``${builtin_solvers:}`` resolver
(the built-in solvers' names: an experiment listing "every other solver of ours" takes a new one by
itself) and ``${solvers_with:}`` / ``${solvers_without:}`` (the built-ins and plug-ins whose config
has, or has not, a setting such as C), and ``algorithm_keys``, every key some
algorithm config has, null (svmbench.algorithm_keys). It loads no solver unless another package
declares one: describing an experiment's cells (svmbench.sweep) and so rendering a table need no
engine. The command (svmbench.runner.main) registers once before Hydra composes and then widens
``algorithm_keys`` to the estimators' own parameters (svmbench.algorithm_keys.store_algorithm_keys);
rendering needs no more, as an experiment config gives a key outside the algorithm configs with
``++``.
"""

import functools
from importlib.metadata import entry_points

from hydra.core.config_store import ConfigStore
from omegaconf import OmegaConf

from svmbench.capabilities import PLUGIN_GROUP
from svmbench.conf import CONF_DIR
from svmbench.data.configs import store_dataset_configs
from svmbench.specs import declared_configs

CELL_KEYS = ("experiment_name", "dataset", "algorithm", "protocol", "seed")


def cell_config(cfg):
    """The part of the config that identifies a cell (what the hash is taken over). An algorithm
    key set to null is absent: an experiment's zipped sweep lists give ``++algorithm.C=null`` to
    the algorithms that have no C. Only those keys are resolved: resolving a whole experiment
    config (the leaderboard's solver lists through resolvers) took 100 times as long."""
    cell = {key: OmegaConf.to_container(cfg[key], resolve=True) if OmegaConf.is_config(cfg[key])
            else cfg[key] for key in CELL_KEYS}
    cell["algorithm"] = {key: value for key, value in cell["algorithm"].items()
                         if value is not None}
    return cell


def plugin_configs():
    """name -> algorithm config of every solver of another package (svmbench.algorithms.
    plugin_configs); {} without loading a solver when no package declares one."""
    if not entry_points(group=PLUGIN_GROUP):
        return {}
    from svmbench.algorithms import plugin_configs as loaded_plugin_configs

    return loaded_plugin_configs()


def configured_keys():
    """Every key of the algorithm configs: the files in svmbench/conf/algorithm, the built-in
    specs' and the plug-ins'."""
    files = (OmegaConf.load(path) for path in (CONF_DIR / "algorithm").glob("*.yaml"))
    configs = (*files, *declared_configs().values(), *plugin_configs().values())
    return sorted({key for config in configs for key in config} - {"name"})


def store_builtin_configs():
    """``algorithm=<name>`` for every built-in solver: its spec's declaration, read without
    importing it (svmbench.specs.declared_configs)."""
    for name, config in declared_configs().items():
        ConfigStore.instance().store(group="algorithm", name=name, node=config)


def store_plugin_configs():
    """``algorithm=<name>`` for every solver of another package (svmbench.solvers.plugins)."""
    for name, config in plugin_configs().items():
        ConfigStore.instance().store(group="algorithm", name=name, node=config)


def builtin_names(left_out):
    """The names of svmbench's solvers in the order their modules declare them, but those in any
    of the ``left_out`` lists (or mappings of name to the reason for leaving it out)."""
    names = list(declared_configs())
    excluded = {name for names_or_reasons in left_out for name in names_or_reasons}
    unknown = sorted(excluded - set(names))
    if unknown:
        raise ValueError(f"${{builtin_solvers:}} leaves out {unknown}, which are no solvers of "
                         f"svmbench; its solvers are {sorted(names)}")
    return [name for name in names if name not in excluded]


def builtin_solvers(peers=(), *left_out):
    """``${builtin_solvers:[peers],[left out],...}`` in a config: the configs of ``peers``
    (algorithms that are no solver of ours, e.g. libsvm), then the names of svmbench's solvers
    (:func:`builtin_names`)."""
    return OmegaConf.create([*peers, *builtin_names(left_out)])


def solvers_by_setting(has_setting):
    """The resolver ``${solvers_with:C,[peers],[left out],...}`` (``has_setting`` true) or
    ``${solvers_without:...}``: ``peers``, then the built-in solvers (:func:`builtin_names`) and
    the installed plug-ins whose algorithm config has (has not) the setting, e.g. the C of a
    soft margin: a board's grid that sets ``algorithm.C`` takes a new solver by itself."""
    def resolve(setting, peers=(), *left_out):
        configs = {**declared_configs(), **plugin_configs()}
        names = [*builtin_names(left_out), *sorted(plugin_configs())]
        return OmegaConf.create(
            [*peers, *(name for name in names if (setting in configs[name]) == has_setting)])
    return resolve


@functools.cache
def register():
    """Put the generated config groups and the resolver in place, once per process."""
    store_dataset_configs()
    store_builtin_configs()
    store_plugin_configs()
    # ${plugin_solvers:} in a config: the names of the installed solvers of other packages, then
    # those of a given list (${plugin_solvers:[mine]}: algorithm configs of one's own with a
    # _target_)
    OmegaConf.register_new_resolver(
        "plugin_solvers", lambda own=(): OmegaConf.create([*sorted(plugin_configs()), *own]),
        replace=True)
    OmegaConf.register_new_resolver("builtin_solvers", builtin_solvers, replace=True)
    OmegaConf.register_new_resolver("solvers_with", solvers_by_setting(True), replace=True)
    OmegaConf.register_new_resolver("solvers_without", solvers_by_setting(False), replace=True)
    ConfigStore.instance().store(name="algorithm_keys", node=dict.fromkeys(configured_keys()))
