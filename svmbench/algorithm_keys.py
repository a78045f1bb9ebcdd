"""Which keys each algorithm has, so that a sweep over algorithms takes plain key overrides.

In a multirun Hydra applies the plain overrides (``algorithm.C=4``) to the primary config, whose
default algorithm need not have the key; so the primary config's ``algorithm`` node declares every
key some algorithm has, as null (``store_algorithm_keys``: the ``algorithm_keys`` config, merged
before the chosen algorithm), and :func:`check_algorithm_keys` gives a cell whose algorithm does
not have a key it was given our error naming the key, the algorithm and the algorithms that have
it. A null key is absent (svmbench.configs.cell_config): config hashes do not change.

A solver's keys and defaults are those its spec declares (svmbench.specs.SolverPlugin: the keys
of its algorithm config and its estimator's settings, e.g. SMO's ``sample_order``). An external
reference (svmbench.algorithms.EXTERNAL) has the keys of its svmbench/conf/algorithm file and its
estimator's parameters; one an algorithm config's ``_target_`` names, the parameters of its
estimator.
"""

import functools
import inspect

from hydra.core.config_store import ConfigStore
from omegaconf import OmegaConf

from svmbench.algorithms import EXTERNAL, PROBLEM, TARGET, target_estimator
from svmbench.conf import CONF_DIR
from svmbench.solvers.plugins import specs


class UnknownKeyError(ValueError):
    """An algorithm key the chosen algorithm does not have; the message names who has it."""


@functools.cache
def external_keys():
    """{external reference: its keys}, those of its svmbench/conf/algorithm file and its estimator's."""
    keys = {}
    for name, estimator in EXTERNAL.items():
        configured = set(OmegaConf.load(CONF_DIR / "algorithm" / f"{name}.yaml")) - {"name"}
        keys[name] = frozenset(configured | set(inspect.signature(estimator).parameters))
    return keys


def configured_defaults(name):
    """The keys and defaults of algorithm config ``name``: its spec's (SolverPlugin.config), or an
    external reference's svmbench/conf/algorithm file; {} for an unknown name."""
    spec = specs().get(name)
    if spec is not None:
        return {key: value for key, value in spec.config().items() if key != "name"}
    path = CONF_DIR / "algorithm" / f"{name}.yaml"
    if name in EXTERNAL and path.exists():
        return {key: value for key, value in OmegaConf.to_container(OmegaConf.load(path)).items()
                if key != "name"}
    return {}


def setting_defaults(name):
    """Every setting of algorithm ``name`` -> the default whose type its values must have: the
    config's, else its estimator's (the settings its config leaves out, e.g. SMO's
    ``warm_start``)."""
    spec = specs().get(name)
    return {**(spec.settings() if spec else {}), **configured_defaults(name)}


def algorithm_keys():
    """{algorithm name: the keys it has (without ``name``)}: every solver spec's (the built-in
    ones and those of other packages installed now) and the external references'."""
    declared = {name: (frozenset(spec.settings()) | frozenset(spec.config())) - {"name"}
                for name, spec in specs().items()}
    return {**external_keys(), **declared}


def store_algorithm_keys():
    """Put ``algorithm_keys`` (every key some algorithm has, null) in Hydra's ConfigStore (the
    algorithm configs are there already: svmbench.configs.register)."""
    every_key = sorted(set().union(*algorithm_keys().values()))
    ConfigStore.instance().store(name="algorithm_keys", node=dict.fromkeys(every_key))


def check_algorithm_keys(algorithm):
    """Raise UnknownKeyError when ``algorithm`` (a cell's algorithm node, nulls meaning absent)
    sets a key its algorithm does not have."""
    name = algorithm["name"]
    has = {TARGET, PROBLEM, *target_estimator(algorithm)[1]().get_params()} \
        if algorithm.get(TARGET) \
        else algorithm_keys().get(name)
    if has is None:
        raise UnknownKeyError(f"algorithm={name} is not an algorithm config; choose one of "
                              f"{sorted(algorithm_keys())}")
    for key, value in algorithm.items():
        if key == "name" or value is None or key in has:
            continue
        others = sorted(other for other, keys in algorithm_keys().items() if key in keys)
        raise UnknownKeyError(
            f"algorithm {name} has no key {key!r} (given algorithm.{key}={value!r}); the "
            f"algorithms with {key!r}: {', '.join(others)}. In a sweep over algorithms give "
            f"{key} only to those, e.g. with a zipped list and null for the others "
            f"(an experiment config), or drop algorithm.{key}")
