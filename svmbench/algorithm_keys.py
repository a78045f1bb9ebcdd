"""Which keys each algorithm has, so that a sweep over algorithms takes plain key overrides.

In a multirun Hydra applies the plain overrides (``algorithm.C=4``) to the primary config, whose
default algorithm need not have the key; so the primary config's ``algorithm`` node declares every
key some algorithm has, as null (``store_algorithm_keys``: the ``algorithm_keys`` config, merged
before the chosen algorithm), and :func:`check_algorithm_keys` gives a cell whose algorithm does
not have a key it was given our error naming the key, the algorithm and the algorithms that have
it. A null key is absent (svmbench.configs.cell_config): config hashes do not change.

An algorithm has the keys of ``conf/algorithm/<name>.yaml`` and the parameters of its estimator
(svmbench.algorithms.ESTIMATORS, e.g. SMO's ``sample_order``); a solver of another package
(svmbench.solvers.plugins), or one an algorithm config's ``_target_`` names, the parameters of its
estimator.
"""

import functools
import inspect
from pathlib import Path

from hydra.core.config_store import ConfigStore
from omegaconf import OmegaConf

from svmbench.algorithms import (
    ESTIMATORS,
    PROBLEM,
    TARGET,
    plugin_configs,
    target_estimator,
)

CONF_DIR = Path(__file__).resolve().parent.parent / "conf"


class UnknownKeyError(ValueError):
    """An algorithm key the chosen algorithm does not have; the message names who has it."""


@functools.cache
def configured_keys():
    """{algorithm name: the keys it has (without ``name``)}, one entry per conf/algorithm file."""
    keys = {}
    for path in sorted((CONF_DIR / "algorithm").glob("*.yaml")):
        configured = set(OmegaConf.load(path)) - {"name"}
        estimator = ESTIMATORS.get(path.stem)
        accepted = set(inspect.signature(estimator).parameters) if estimator else set()
        keys[path.stem] = frozenset(configured | accepted)
    return keys


def configured_defaults(name):
    """The keys and defaults of algorithm config ``name``: conf/algorithm/<name>.yaml, or the
    defaults of a solver of another package; {} for neither."""
    path = CONF_DIR / "algorithm" / f"{name}.yaml"
    if path.exists():
        return {key: value for key, value in OmegaConf.to_container(OmegaConf.load(path)).items()
                if key != "name"}
    return {key: value for key, value in plugin_configs().get(name, {}).items() if key != "name"}


def algorithm_keys():
    """:func:`configured_keys` and those of every solver of another package installed now."""
    plugged = {name: frozenset(config) - {"name"} for name, config in plugin_configs().items()}
    return {**configured_keys(), **plugged}


def store_algorithm_keys():
    """Put ``algorithm_keys`` (every key some algorithm has, null) in Hydra's ConfigStore."""
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
            f"(conf/experiment/*.yaml), or drop algorithm.{key}")
