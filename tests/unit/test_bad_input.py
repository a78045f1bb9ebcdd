"""One test per bad input, through the public entry points (estimators and ``load_dataset``): each
fails early with a message that names the problem and the fix (docs/DESIGN.md "Errors")."""

import bz2
import dataclasses
import hashlib

import numpy as np
import pytest

from svmbench.data import DataError, checksums, load_dataset, registry
from svmbench.models import GSSVC, SMOSVC

X = np.random.default_rng(0).normal(size=(10, 4))
Y = np.array([0, 1] * 5)
HEART = b"+1 1:0.7 2:1 3:-0.3\n-1 1:-0.2 2:-1 3:0.1\n"


@pytest.fixture(autouse=True)
def isolated_data(monkeypatch, tmp_path):
    """No network, a private cache, no checkout data: the loader sees only what a test puts."""
    monkeypatch.setenv("SVMBENCH_DOWNLOAD", "0")
    monkeypatch.setenv("SVMBENCH_DATA", str(tmp_path / "cache"))
    monkeypatch.setenv("SVMBENCH_DATA_PATH", str(tmp_path / "data"))


def put(tmp_path, relpath, content):
    path = tmp_path / "data" / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


@pytest.mark.parametrize("value, name", [(np.nan, "NaN"), (np.inf, "infinity")])
def test_non_finite_features(value, name):
    bad = X.copy()
    bad[2, 1] = value
    with pytest.raises(ValueError, match=f"Input X contains {name}"):
        SMOSVC().fit(bad, Y)


def test_one_class():
    with pytest.raises(ValueError, match=r"needs samples of at least two classes; y has only one "
                                         r"class \(1\)\. Add samples of another class"):
        GSSVC().fit(X, np.ones(10, dtype=int))


def test_labels_that_cannot_be_mapped():
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        SMOSVC().fit(X, np.linspace(0.0, 1.0, 10))


def test_test_features_wider_than_training():
    model = SMOSVC().fit(X, Y)
    with pytest.raises(ValueError, match="X has 5 features, but SMOSVC is expecting 4 features"):
        model.predict(np.zeros((2, 5)))


def test_unknown_dataset_lists_the_choices():
    with pytest.raises(DataError, match=r"unknown dataset 'adult-99'\. Did you mean: a9a.*Choose "
                                        r"one of: a1a, a2a.*breast_cancer"):
        load_dataset("adult-99")


def test_missing_file_says_where_it_looked_and_how_to_get_it(tmp_path):
    with pytest.raises(DataError) as err:
        load_dataset("heart")
    message = str(err.value)
    for place in ("data", "cache"):
        assert str(tmp_path / place / "heart" / "heart_scale.bz2") in message
    assert "export SVMBENCH_DATA_PATH=/path/to/data for a staged copy of the data sets" in message
    assert "allow downloads (unset SVMBENCH_DOWNLOAD, now '0')" in message
    assert "libsvmtools/datasets/binary/heart_scale" in message


def test_checksum_mismatch_names_the_file_the_expected_hash_and_the_fix(tmp_path):
    path = put(tmp_path, "heart/heart_scale", HEART)
    expected = checksums.PINNED_SHA256["heart/heart_scale"]
    with pytest.raises(DataError) as err:
        load_dataset("heart")
    message = str(err.value)
    assert f"checksum mismatch for 'heart' file {path} (found in data path)" in message
    assert f"sha256 {hashlib.sha256(HEART).hexdigest()}, expected {expected}" in message
    assert "copy it again from a staged copy of the data sets (docs/data-manifest.md)" in message


def test_truncated_compressed_file(tmp_path):
    path = put(tmp_path, "heart/heart_scale.bz2", bz2.compress(HEART * 50)[:-20])
    with pytest.raises(DataError) as err:
        load_dataset("heart")
    message = str(err.value)
    assert f"cannot decompress {path}" in message and "truncated" in message
    assert checksums.PINNED_SHA256["heart/heart_scale"] in message


def test_download_is_announced(monkeypatch, tmp_path, capsys):
    """No silent download: the URL and the target are printed before the transfer."""
    source = tmp_path / "mirror" / "heart_scale"
    source.parent.mkdir()
    source.write_bytes(HEART)
    spec = registry.REGISTRY["heart"]
    monkeypatch.setitem(registry.REGISTRY, "heart", dataclasses.replace(
        spec, train=dataclasses.replace(spec.train, url=source.as_uri())))
    monkeypatch.delitem(checksums.PINNED_SHA256, "heart/heart_scale")  # the stand-in's hash
    monkeypatch.setenv("SVMBENCH_DOWNLOAD", "1")
    load_dataset("heart")
    target = tmp_path / "cache" / "heart" / "heart_scale"
    assert f"svmbench: downloading {source.as_uri()} -> {target}" in capsys.readouterr().err
