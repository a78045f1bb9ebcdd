"""Plain algorithm-key overrides in sweeps over algorithms (svmbench.algorithm_keys): every key
some algorithm has is declared (null) on the primary config, a key the chosen algorithm lacks is
our error naming who has it, and the config hashes of existing cells do not change."""

import subprocess
import sys

import pytest
from hydra import compose, initialize_config_dir

from svmbench.algorithm_keys import (
    UnknownKeyError,
    algorithm_keys,
    check_algorithm_keys,
    configured_defaults,
)
from svmbench.conf import CONF_DIR
from svmbench.configs import cell_config
from svmbench.provenance import config_hash
from svmbench.runner import register_configs
from svmbench.store import ResultStore


@pytest.fixture(autouse=True)
def registered():
    register_configs()  # what the svmbench command registers before composing


def sweep(tmp_path, *overrides):
    """Run ``svmbench -m dataset=iris protocol.k=2 folds=[0] <overrides>``: (result, records)."""
    result = subprocess.run(
        [sys.executable, "-m", "svmbench.runner", "-m", "dataset=iris", "protocol.k=2",
         "folds=[0]", *overrides, f"store.dir={tmp_path / 'store'}",
         f"hydra.sweep.dir={tmp_path / 'multirun'}"],
        check=False, capture_output=True, text=True)
    return result, list(ResultStore(tmp_path / "store").records())


@pytest.fixture(scope="module")
def c_svm_sweep(tmp_path_factory):
    """One sweep serving two tests: keys of the C-SVM solvers over those and GS-SVM, which has
    no C (nor tol)."""
    return sweep(tmp_path_factory.mktemp("c_svm"), "algorithm=gs_svm,libsvm,smo_wss2,rosen,smo_mod2",
                 "algorithm.C=4", "algorithm.tol=0.01", "algorithm.max_iter=100000")


def test_a_sweep_over_algorithms_takes_plain_overrides_of_their_shared_keys(c_svm_sweep):
    result, records = c_svm_sweep
    trained = [r for r in records if r["algorithm"] != "gs_svm"]
    assert sorted(r["algorithm"] for r in trained) == ["libsvm", "rosen", "smo_mod2", "smo_wss2"]
    for record in trained:
        assert {key: record[key] for key in ("C", "tol", "max_iter")} == \
            {"C": 4, "tol": 0.01, "max_iter": 100000}
        assert not record["status"].startswith("failed"), result.stderr[-2000:]


@pytest.mark.parametrize("algorithms, overrides, expected", [
    ("cvm,fw,mfw", ["algorithm.C=2", "algorithm.eps=0.001"], {"C": 2, "eps": 0.001}),
    ("rho_svm,rho_ensemble", ["algorithm.eps=0.01", "algorithm.gamma=0.5"], {"eps": 0.01}),
])
def test_a_sweep_over_other_algorithms_takes_plain_overrides_of_their_shared_keys(
        tmp_path, algorithms, overrides, expected):
    result, records = sweep(tmp_path, f"algorithm={algorithms}", *overrides)
    assert result.returncode == 0, result.stderr[-2000:]
    assert sorted(r["algorithm"] for r in records) == sorted(algorithms.split(","))
    for record in records:
        assert {key: record[key] for key in expected} == expected
        assert not record["status"].startswith("failed")


def test_a_key_the_algorithm_lacks_is_our_error_naming_who_has_it(c_svm_sweep):
    result, records = c_svm_sweep
    output = result.stdout + result.stderr
    assert result.returncode == 1
    assert "algorithm gs_svm has no key 'C'" in output and "libsvm, mfw, onedal, optimum, rosen" \
        in output
    assert "not in struct" not in output
    assert sorted(r["status"] for r in records) == ["converged"] * 4  # gs_svm's cell not stored


def test_every_key_of_every_algorithm_is_declared_and_checked():
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        declared = set(compose("config", ["algorithm=gs_svm"]).algorithm)
    for name, keys in algorithm_keys().items():
        configured = set(configured_defaults(name))
        assert configured and configured <= keys <= declared
    assert "sample_order" in algorithm_keys()["smo_wss2"]  # an estimator parameter, not in yaml
    check_algorithm_keys({"name": "gs_svm", "C": None, "rows": "unused"})  # null: absent
    with pytest.raises(UnknownKeyError, match=r"algorithm rho_svm has no key 'C'.*smo_wss2"):
        check_algorithm_keys({"name": "rho_svm", "C": 4.0})


@pytest.mark.parametrize("overrides, expected", [  # hashes composed before the keys existed
    (["dataset=iris", "algorithm=gs_svm"], "7d90be63a5a42bdc"),
    (["dataset=a1a", "algorithm=smo_wss2", "algorithm.C=4", "protocol=holdout"],
     "065478a6145ab547"),
    (["dataset=iris", "algorithm=cvm"], "03156e2c919deaec"),
])
def test_declared_keys_leave_the_config_hash_of_a_cell_unchanged(overrides, expected):
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        assert config_hash(cell_config(compose("config", overrides))) == expected
