"""One spec per solver (svmbench.specs.SolverPlugin): the estimators, the harness's algorithm
configs and the key checks are made from it, and what is committed (the public estimators'
signatures, the config hashes of the committed records) says what the specs say. A built-in
solver has no config file: Hydra's ``algorithm=<name>`` is its spec's declaration, read without
importing the solver (svmbench.specs.declared_specs)."""

import inspect
from dataclasses import fields

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

import svmbench
from svmbench import models
from svmbench.algorithm_keys import check_algorithm_keys, configured_defaults
from svmbench.algorithms import (
    EXTERNAL,
    build_estimator,
    capabilities,
    estimator_factories,
)
from svmbench.conf import CONF_DIR
from svmbench.provenance import config_hash
from svmbench.runner import ConfigError, cell_config, check_algorithm, register_configs
from svmbench.solvers.plugins import builtin_specs
from svmbench.specs import (
    HARNESS_GAMMA,
    HarnessDefault,
    Unloaded,
    declared_configs,
    declared_module_specs,
    declared_specs,
)


@pytest.fixture(autouse=True)
def registered():
    register_configs()  # what the svmbench command registers before composing

# the public estimators' signatures before they were made from the specs (cache_mb's default,
# 100.0 then, is 100 now: the value the harness configs hold, so that the JSON of a config and
# its hash stay those of the committed records; MEBSVC's is 200, the MEB configs' value, since
# the estimator and the harness were made to agree)
SIGNATURES = {
    "GSSVC": {"kernel": "rbf", "gamma": "scale", "coef0": 0.0, "degree": 3, "cache_mb": 100.0,
             "max_iter": -1, "rows": "full"},
    "SMOSVC": {"variant": "wss2", "C": 1.0, "kernel": "rbf", "gamma": "scale", "coef0": 0.0,
              "degree": 3, "tol": 0.001, "shrinking": True, "cache_mb": 100.0, "max_iter": -1,
              "warm_start": False, "shrinking_rules": "libsvm283", "sample_order": "given"},
    "HardMarginSVC": {"kernel": "rbf", "gamma": "scale", "coef0": 0.0, "degree": 3, "tol": 1e-06,
                     "cache_mb": 100.0, "max_iter": -1},
    "RSVC": {"kernel": "rbf", "gamma": "scale", "coef0": 0.0, "degree": 3, "cache_mb": 100.0,
            "bisection_tol": 0.001, "inner_solver": "smo_wss2", "tol": 0.001, "shrinking": True,
            "max_iter": -1},
    "RosenSVC": {"C": 1.0, "kernel": "rbf", "gamma": "scale", "coef0": 0.0, "degree": 3, "tol":
                0.001, "cache_mb": 100.0, "max_iter": -1},
    "RhoSVC": {"output": "last", "kernel": "rbf", "gamma": "spread", "coef0": 0.0, "degree": 3,
              "eps": 0.005, "eps_first": 0.1, "rank": 0, "cache_mb": 100.0, "max_iter": -1},
    "EGFixedSVC": {"eta": 0.01, "kernel": "rbf", "gamma": "spread", "coef0": 0.0, "degree": 3,
                  "rank": 0, "cache_mb": 100.0, "max_iter": 1000},
    "XiAlphaSVC": {"C": 1.0, "kernel": "rbf", "gamma": "spread", "coef0": 0.0, "degree": 3, "tol":
                  0.001, "shrinking": True, "cache_mb": 100.0, "max_iter": -1},
    "MEBSVC": {"variant": "mfw", "C": 1.0, "kernel": "rbf", "gamma": "paper_default", "coef0": 0.0,
              "degree": 3, "eps": 1e-06, "smo_eps": 0.001, "sample_size": 59, "verify_stop": False,
              "initial_points": 20, "seed": 0, "cache_mb": 200, "max_iter": -1},
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_the_public_estimators_keep_their_signatures(name):
    estimator = getattr(svmbench, name)
    made = [(key, parameter.default)
            for key, parameter in inspect.signature(estimator).parameters.items()]
    assert made == list(SIGNATURES[name].items())
    assert estimator(*[default for _, default in made]).get_params() == dict(made)
    with pytest.raises(TypeError, match="its parameters are"):
        estimator(no_such_setting=1)


@pytest.mark.parametrize("name", sorted(builtin_specs()))
def test_the_declaration_read_without_the_engine_is_the_spec_the_module_makes(name):
    """Every field, of the same values and types (100 and 100.0 hash apart); the solve functions
    (and Rosen's tolerance, smo_wss2's compiled_size) as the names of the imported ones."""
    declared, imported = declared_specs()[name], builtin_specs()[name]
    for spec_field in fields(imported):
        read, made = getattr(declared, spec_field.name), getattr(imported, spec_field.name)
        if callable(made) and spec_field.name in ("solve", "tolerance", "compiled_size"):
            assert read == Unloaded(f"{made.__module__}.{made.__name__}")
        else:
            assert (read, type(read)) == (made, type(made)), spec_field.name
    assert set(declared_specs()) == set(builtin_specs())


def test_a_declaration_that_runs_the_engine_is_refused_naming_the_call(tmp_path):
    module = tmp_path / "toy.py"
    module.write_text(
        "from numba import njit\n"
        "from svmbench.specs import SolverPlugin\n"
        "LIMIT = 10\n"
        "def solve(provider, y, params):\n"
        "    return njit(params)\n"
        "def toy_spec(limit):\n"
        "    return SolverPlugin(solve=solve, name='toy', params={'C': 1.0, 'limit': limit})\n"
        "BROKEN = (SolverPlugin(solve=solve, name='broken', params={'n': njit(1)}),)\n"
        "SPECS = (toy_spec(LIMIT),)\n")
    (spec,) = declared_module_specs(module, "toy")
    assert spec.config() == {"name": "toy", "kernel": "rbf", "gamma": "scale", "coef0": 0.0,
                             "degree": 3, "cache_mb": 100.0, "C": 1.0, "limit": 10}
    assert spec.solve == Unloaded("toy.solve")
    module.write_text(module.read_text().replace("SPECS = (toy_spec(LIMIT),)", "SPECS = BROKEN"))
    with pytest.raises(TypeError, match="toy.njit is not loaded"):
        declared_module_specs(module, "toy")


def test_algorithm_config_files_are_left_only_to_what_is_no_solver_of_ours():
    files = {path.stem for path in (CONF_DIR / "algorithm").glob("*.yaml")}
    assert files == {*EXTERNAL, "target"}
    for name in EXTERNAL:  # the external references' theta is the solvers' (a file's own copy)
        assert configured_defaults(name)["gamma"] == HARNESS_GAMMA.value


@pytest.mark.parametrize("name", sorted(builtin_specs()))
def test_a_harness_default_apart_from_the_estimator_s_says_why(name):
    spec = builtin_specs()[name]
    for key, default in spec.harness.items():
        assert isinstance(default, HarnessDefault) and default.reason, key
        assert default.value != spec.settings()[key]
    assert set(spec.harness_reasons()) == set(spec.harness)


@pytest.mark.parametrize("name", sorted(builtin_specs()))
def test_the_estimator_and_config_of_an_algorithm_come_from_its_spec(name):
    spec = builtin_specs()[name]
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        composed = OmegaConf.to_container(compose("config", [f"algorithm={name}", "seed=3"]),
                                          resolve=True)
    algorithm = {key: value for key, value in composed["algorithm"].items() if value is not None}
    harness = {key: 3 if value == "${seed}" else value for key, value in spec.config().items()}
    assert algorithm == harness
    estimator = build_estimator(algorithm)
    settings = {**spec.settings(), **harness}
    del settings["name"]
    assert estimator.get_params() == settings
    assert estimator.solver_params == spec.solver_settings()
    assert estimator.problem == models.plugin_problem(spec)
    assert capabilities(name) == spec.capabilities
    check_algorithm(algorithm)
    check_algorithm_keys({**algorithm, **dict.fromkeys(spec.settings())})


def test_a_setting_is_type_checked_against_its_spec_default():
    with pytest.raises(ConfigError, match="algorithm.warm_start=1 is not true/false"):
        check_algorithm({"name": "smo_wss2", "warm_start": 1})
    with pytest.raises(ConfigError, match="algorithm.eta='fast' is not a number"):
        check_algorithm({"name": "eg_fixed", "eta": "fast"})


def test_a_built_in_solver_is_its_module():
    """Rosen's is declared in svmbench/solvers/rosen.py alone: no class written in
    svmbench.models, no config file, yet every path reaches it (rendering composes its cells from
    the declaration without importing it: tests/integration/test_layers.py)."""
    assert not (CONF_DIR / "algorithm" / "rosen.yaml").exists()
    assert "RosenSVC" not in vars(models)
    assert estimator_factories()["rosen"] is models.RosenSVC is svmbench.RosenSVC
    assert configured_defaults("rosen")["gamma"] == 0.05


@pytest.mark.parametrize("overrides, expected", [  # composed from svmbench/conf/algorithm files
    # (48b9c88, b4143de; every experiment's cells: tests/integration/test_sweep.py)
    (["dataset=iris", "algorithm=rosen"], "9a7e7c97a8b35b55"),
    (["dataset=a1a", "algorithm=rosen", "algorithm.C=4", "protocol=holdout"], "780d2af83938cefd"),
    (["dataset=iris", "algorithm=rho_svm"], "8a28c73291a8e094"),
    (["dataset=iris", "algorithm=cvm", "seed=2"], "9d519623978a0a4c"),
    (["dataset=iris", "algorithm=smo_platt"], "06ee1448a1a9f927"),
    # every built-in on one data set (b4143de, the last commit with their files)
    (["dataset=heart", "algorithm=csvm_xialpha", "seed=2"], "df5d2910458f2dfd"),
    (["dataset=heart", "algorithm=cvm", "seed=2"], "32d4dd7d9bf442b9"),
    (["dataset=heart", "algorithm=eg_fixed", "seed=2"], "7839ad45bb5fadc0"),
    (["dataset=heart", "algorithm=fw", "seed=2"], "177ef2593156268e"),
    (["dataset=heart", "algorithm=gs_svm", "seed=2"], "ece283e5f211d6e8"),
    (["dataset=heart", "algorithm=hm_svm", "seed=2"], "75dcb71624cd8d80"),
    (["dataset=heart", "algorithm=mfw", "seed=2"], "2dc146fd3ce1af3a"),
    (["dataset=heart", "algorithm=parzen", "seed=2"], "3c6d83aa960fb192"),
    (["dataset=heart", "algorithm=rho_ensemble", "seed=2"], "34e9a7a59ab7f59f"),
    (["dataset=heart", "algorithm=rho_svm", "seed=2"], "8dbe89dbd5de7454"),
    (["dataset=heart", "algorithm=rosen", "seed=2"], "8aea53d9cc088962"),
    (["dataset=heart", "algorithm=rsvm", "seed=2"], "0b18225809103249"),
    (["dataset=heart", "algorithm=smo_mod1", "seed=2"], "a39d6a464a3449f9"),
    (["dataset=heart", "algorithm=smo_mod2", "seed=2"], "0b8722757942d1d8"),
    (["dataset=heart", "algorithm=smo_platt", "seed=2"], "9b30bc182bde4db0"),
    (["dataset=heart", "algorithm=smo_wss2", "seed=2"], "20d61cd76721bdca"),
])
def test_a_config_made_from_a_spec_hashes_as_its_file_did(overrides, expected):
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        assert config_hash(cell_config(compose("config", overrides))) == expected


def leaderboard_solvers(*overrides):
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        config = compose("config", ["+experiment=leaderboard", *overrides])
    return OmegaConf.to_container(config.leaderboard_solvers, resolve=True)


def test_a_new_built_in_solver_joins_the_leaderboard_by_itself():
    """Every built-in is in one part of the board or left out with its reason: `ours` is the
    rest, from the specs, so a solver added in its module is on the board with no list edited."""
    lists = leaderboard_solvers()
    parts = ("references", "meb_references", "meb", "tuned_by_gs_svm", "ours")
    placed = [name for part in parts for name in lists[part]]
    assert len(placed) == len(set(placed))
    assert set(placed) | set(lists["left_out"]) == set(declared_specs()) | {"libsvm", "onedal"}
    assert all(reason.strip() for reason in lists["left_out"].values())
    moved = leaderboard_solvers("leaderboard_solvers.tuned_by_gs_svm=[]")["ours"]
    assert sorted(moved) == sorted([*lists["ours"], "rsvm"])


def board_lists(experiment, key):
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        config = compose("config", [f"+experiment={experiment}"])
    return OmegaConf.to_container(config[key], resolve=True)


@pytest.mark.parametrize("experiment, key, peers", [
    ("solvers", "solvers_board", {"libsvm", "onedal"}), ("curves", "curve_solvers", {"libsvm"})])
def test_a_new_built_in_solver_joins_the_solvers_board_and_the_curves_by_itself(experiment, key,
                                                                               peers):
    """Every built-in is on the board, at C = 1 when its config has a C, or left out with its
    reason: the lists come from the specs, so a solver added in its module needs no list edited."""
    lists = board_lists(experiment, key)
    configs = declared_configs()
    assert set(lists["with_c"]).isdisjoint(lists["without_c"])
    assert set(lists["with_c"]) | set(lists["without_c"]) | set(lists["left_out"]) == \
        set(configs) | peers
    assert all("C" in configs[name] for name in set(lists["with_c"]) - peers)
    assert not any("C" in configs[name] for name in lists["without_c"])
    assert all(reason.strip() for reason in lists["left_out"].values())


def test_the_built_in_solvers_resolver_refuses_a_name_that_is_no_solver():
    with pytest.raises(Exception, match=r"leaves out \['smo_wss3'\], which are no solvers"):
        leaderboard_solvers("leaderboard_solvers.meb=[fw, mfw, smo_wss3]")
