"""Tests of svmbench.data: registry, loaders, look-up order, downloads, checks and scaling.

Real data sets are only used when SVMBENCH_DATA_PATH points at a copy of shared/data; everything
else runs on scikit-learn's bundled sets and small generated files, with the network forbidden.
"""

from __future__ import annotations

import bz2
import dataclasses
import functools
import gzip
import hashlib
import http.server
import json
import lzma
import os
import threading
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from svmbench.data import (
    DataError,
    available_realizations,
    check_test_features,
    check_training_data,
    checksums,
    encode_labels,
    fetch,
    list_datasets,
    load_dataset,
    registry,
    resolve_name,
    scale_features,
)
from svmbench.data.fetch import COMPRESSIONS, data_path_dirs, find_local

REAL_DATA_DIRS = data_path_dirs()
PINNED_AT_IMPORT = dict(checksums.PINNED_SHA256)  # before any test unpins a stand-in
COMPRESSORS = {"": lambda b: b, ".bz2": bz2.compress, ".xz": lzma.compress, ".gz": gzip.compress}

# a tiny Adult-like svmlight pair (never uses index 123, like the real a1a)
TRAIN_SVMLIGHT = b"-1 1:1 5:1 40:1\n+1 2:1 7:0.5 119:1\n-1 3:1\n+1 1:1 100:1\r\n"
TEST_SVMLIGHT = b"+1 4:1 122:1\n-1 6:1\n"


@pytest.fixture(autouse=True)
def no_network_private_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("SVMBENCH_DOWNLOAD", "0")
    monkeypatch.setenv("SVMBENCH_DATA", str(tmp_path / "cache"))


@pytest.fixture(autouse=True)
def generated_files_are_not_the_staged_ones(monkeypatch):
    """Tests write small stand-ins for a5a and bupa.data, whose real hashes may be pinned."""
    for path in ("adult/a5a", "adult/a5a.t", "liver-disorders/bupa.data"):
        monkeypatch.delitem(checksums.PINNED_SHA256, path, raising=False)


def write(directory: Path, relpath: str, content: bytes, suffix: str = "") -> Path:
    path = directory / f"{relpath}{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(COMPRESSORS[suffix](content))
    return path


def use_data_path(monkeypatch, *dirs: Path) -> None:
    monkeypatch.setenv("SVMBENCH_DATA_PATH", os.pathsep.join(map(str, dirs)))


# ---------------------------------------------------------------- registry and names


def test_bundled_sets_load_without_files(monkeypatch):
    monkeypatch.delenv("SVMBENCH_DATA_PATH", raising=False)
    iris = load_dataset("IRIS")
    assert iris.X_train.shape == (150, 4) and iris.n_classes == 3 and iris.X_test is None
    assert iris.y_train.dtype == np.int64 and set(iris.y_train) == {0, 1, 2}
    cancer = load_dataset("breast_cancer")
    assert cancer.X_train.shape == (569, 30) and not cancer.is_sparse
    assert list(cancer.classes) == ["benign", "malignant"]
    assert set(cancer.y_train) == {-1.0, 1.0} and cancer.y_train.dtype == np.float64
    assert (cancer.y_train == 1).sum() == 212  # malignant is the positive class
    assert load_dataset("wine").n_classes == 3
    assert load_dataset("digits").X_train.shape == (1797, 64)


@pytest.mark.parametrize(
    "alias, key",
    [
        ("Adult-1", "a1a"),
        ("adult 7", "a7a"),
        ("WEB-7", "w7a"),
        ("adult", "a9a"),
        ("web2", "w2a"),
        ("Pima Indians Diabetes", "diabetes"),
        ("Heart", "heart"),
        ("cancer", "ida_breast_cancer"),
        ("Liver disorders", "liver_disorders"),
        ("page-blocks", "page_blocks"),
        ("astro", "svmguide1"),
        ("Flare", "ida_flare_solar"),
        ("wdbc_bundled", "breast_cancer"),
    ],
)
def test_aliases_resolve(alias, key):
    assert resolve_name(alias) == key


def test_every_paper_name_resolves_to_its_dataset_unless_it_is_another_key():
    keys = set(list_datasets())
    for key in keys:
        for alias in registry.REGISTRY[key].paper_names:
            resolved = resolve_name(alias)
            assert resolved == key or resolved in keys - {key}, (key, alias)


def test_unknown_name_lists_choices_and_close_matches():
    with pytest.raises(DataError) as err:
        load_dataset("a1b")
    message = str(err.value)
    assert "unknown dataset 'a1b'" in message and "Did you mean" in message
    assert all(key in message for key in ["a1a", "breast_cancer", "ida_heart", "zoo"])


def test_realization_only_for_ida_sets():
    with pytest.raises(DataError, match="no realizations"):
        load_dataset("iris", realization=1)
    with pytest.raises(DataError, match="choose 1..100"):
        load_dataset("ida_banana", realization=101)


def test_the_registry_is_the_only_description_of_a_dataset():
    from hydra import compose, initialize_config_dir

    from svmbench.conf import CONF_DIR
    from svmbench.configs import register

    register()  # stores the dataset group

    assert not (Path(CONF_DIR) / "dataset").exists(), "no copy of the registry in svmbench/conf/dataset"
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        for key in list_datasets():
            cfg = compose("config", [f"dataset={key}"])
            assert cfg.dataset.name == key
            assert cfg.dataset.scale is bool(registry.REGISTRY[key].scale)


# ---------------------------------------------------------------- generated files, look-up, download


@pytest.mark.parametrize("suffix", list(COMPRESSIONS))
def test_compressed_variants_load_identically(monkeypatch, tmp_path, suffix):
    write(tmp_path / "plain", "adult/a5a", TRAIN_SVMLIGHT)
    write(tmp_path / "plain", "adult/a5a.t", TEST_SVMLIGHT)
    use_data_path(monkeypatch, tmp_path / "plain")
    reference = load_dataset("a5a")
    write(tmp_path / "packed", "adult/a5a", TRAIN_SVMLIGHT, suffix)
    write(tmp_path / "packed", "adult/a5a.t", TEST_SVMLIGHT, suffix)
    use_data_path(monkeypatch, tmp_path / "packed")
    packed = load_dataset("a5a")
    assert packed.source["files"][0]["path"].endswith(f"a5a{suffix}")
    assert packed.X_train.shape == (4, 123) and packed.X_test.shape == (2, 123)
    assert sp.isspmatrix_csr(packed.X_train) and packed.is_sparse
    assert (packed.X_train != reference.X_train).nnz == 0
    assert (packed.X_test != reference.X_test).nnz == 0
    np.testing.assert_array_equal(packed.y_train, [-1, 1, -1, 1])
    assert packed.source["files"][0]["sha256"] == hashlib.sha256(TRAIN_SVMLIGHT).hexdigest()


def test_lookup_order_data_path_then_cache_then_download(monkeypatch, tmp_path):
    first, second, cache = tmp_path / "first", tmp_path / "second", tmp_path / "cache"
    monkeypatch.setenv("SVMBENCH_DATA", str(cache))
    rows = {first: TRAIN_SVMLIGHT, second: TRAIN_SVMLIGHT * 2, cache: TRAIN_SVMLIGHT * 3}
    for directory, content in rows.items():
        write(directory, "adult/a5a", content)
        write(directory, "adult/a5a.t", TEST_SVMLIGHT)
    use_data_path(monkeypatch, first, second)
    loaded = load_dataset("a5a")
    assert loaded.X_train.shape[0] == 4 and loaded.source["files"][0]["found_in"] == "data path"
    use_data_path(monkeypatch, tmp_path / "empty", second)
    assert load_dataset("a5a").X_train.shape[0] == 8
    use_data_path(monkeypatch, tmp_path / "empty")
    from_cache = load_dataset("a5a")
    assert (
        from_cache.X_train.shape[0] == 12 and from_cache.source["files"][0]["found_in"] == "cache"
    )


def test_not_found_lists_every_path_tried_and_how_to_get_it(monkeypatch, tmp_path):
    use_data_path(monkeypatch, tmp_path / "one", tmp_path / "two")
    with pytest.raises(DataError) as err:
        load_dataset("a5a")
    message = str(err.value)
    for directory in ["one", "two", "cache"]:
        for suffix in COMPRESSIONS:
            assert f"{tmp_path / directory / 'adult' / 'a5a'}{suffix}\n" in message + "\n"
    assert "SVMBENCH_DATA_PATH" in message and "SVMBENCH_DOWNLOAD" in message
    assert "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/a5a" in message


def test_without_data_path_the_cache_is_the_default(monkeypatch, tmp_path):
    """Without SVMBENCH_DATA_PATH the loader searches no directory of its own choosing (nothing
    beside the checkout): the cache SVMBENCH_DATA only, where downloads go."""
    write(tmp_path / "cache", "adult/a5a", TRAIN_SVMLIGHT)
    write(tmp_path / "cache", "adult/a5a.t", TEST_SVMLIGHT)
    monkeypatch.delenv("SVMBENCH_DATA_PATH", raising=False)
    assert fetch.data_path_dirs() == []
    loaded = load_dataset("a5a")
    assert loaded.source["files"][0]["found_in"] == "cache"
    assert loaded.source["files"][0]["path"] == str(tmp_path / "cache" / "adult" / "a5a")


def test_the_cache_defaults_to_the_users_cache_directory(monkeypatch):
    monkeypatch.delenv("SVMBENCH_DATA", raising=False)
    assert fetch.cache_dir() == Path("~/.cache/svmbench").expanduser()


def test_missing_file_without_data_path_says_what_to_set(monkeypatch, tmp_path):
    monkeypatch.delenv("SVMBENCH_DATA_PATH", raising=False)
    with pytest.raises(DataError) as err:
        load_dataset("a5a")
    message = str(err.value)
    assert (f"SVMBENCH_DATA_PATH is not set (default: no directory), so only the cache "
            f"{tmp_path / 'cache'} was searched (SVMBENCH_DATA, default ~/.cache/svmbench)") in (
        message)
    assert "export SVMBENCH_DATA_PATH=/path/to/data for a staged copy of the data sets" in message
    assert f"{tmp_path / 'cache' / 'adult' / 'a5a'}\n" in message + "\n"


def test_not_found_without_known_download_points_to_homepage(monkeypatch, tmp_path):
    use_data_path(monkeypatch, tmp_path)
    with pytest.raises(DataError, match="no direct download is known; get it from .*cvm"):
        load_dataset("reuters")


@pytest.fixture()
def http_root(tmp_path):
    """A local http.server on 127.0.0.1 serving tmp_path/'www' from a daemon thread."""
    root = tmp_path / "www"
    root.mkdir()

    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(root))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        thread.join(timeout=5)
        server.server_close()


def point_a5a_at(monkeypatch, train_url: str, test_url: str) -> None:
    spec = registry.REGISTRY["a5a"]
    monkeypatch.setitem(
        registry.REGISTRY,
        "a5a",
        dataclasses.replace(
            spec,
            train=dataclasses.replace(spec.train, url=train_url),
            test=dataclasses.replace(spec.test, url=test_url),
        ),
    )


def test_download_over_http_verifies_pinned_sha256_and_caches(monkeypatch, tmp_path, http_root):
    root, base = http_root
    (root / "a5a.bz2").write_bytes(bz2.compress(TRAIN_SVMLIGHT))
    (root / "a5a.t").write_bytes(TEST_SVMLIGHT)
    point_a5a_at(monkeypatch, f"{base}/a5a.bz2", f"{base}/a5a.t")
    monkeypatch.setitem(
        checksums.PINNED_SHA256, "adult/a5a", hashlib.sha256(TRAIN_SVMLIGHT).hexdigest()
    )
    use_data_path(monkeypatch, tmp_path / "empty")
    monkeypatch.setenv("SVMBENCH_DOWNLOAD", "1")
    downloaded = load_dataset("a5a")
    assert [f["found_in"] for f in downloaded.source["files"]] == ["download", "download"]
    cache = tmp_path / "cache" / "adult"
    assert sorted(p.name for p in cache.iterdir()) == ["a5a.bz2", "a5a.t"]
    assert downloaded.X_train.shape == (4, 123)
    monkeypatch.setenv("SVMBENCH_DOWNLOAD", "0")
    again = load_dataset("a5a")
    assert [f["found_in"] for f in again.source["files"]] == ["cache", "cache"]


def test_download_checksum_mismatch_raises_and_leaves_no_file(monkeypatch, tmp_path, http_root):
    root, base = http_root
    (root / "a5a").write_bytes(TRAIN_SVMLIGHT)
    (root / "a5a.t").write_bytes(TEST_SVMLIGHT)
    point_a5a_at(monkeypatch, f"{base}/a5a", f"{base}/a5a.t")
    monkeypatch.setitem(checksums.PINNED_SHA256, "adult/a5a", "0" * 64)
    use_data_path(monkeypatch, tmp_path / "empty")
    with pytest.raises(DataError) as err:
        load_dataset("a5a", download=True)
    message = str(err.value)
    assert "0" * 64 in message and hashlib.sha256(TRAIN_SVMLIGHT).hexdigest() in message
    assert "checksum mismatch" in message and "retry" in message
    assert not any(path.is_file() for path in (tmp_path / "cache").rglob("*"))


def test_download_from_file_url_prints_unknown_hash(monkeypatch, tmp_path, capsys):
    source = tmp_path / "mirror"
    write(source, "a5a", TRAIN_SVMLIGHT, ".xz")
    write(source, "a5a.t", TEST_SVMLIGHT, ".gz")
    point_a5a_at(monkeypatch, (source / "a5a.xz").as_uri(), (source / "a5a.t.gz").as_uri())
    use_data_path(monkeypatch, tmp_path / "empty")
    loaded = load_dataset("a5a", download=True)
    digest = hashlib.sha256(TRAIN_SVMLIGHT).hexdigest()
    assert f"content sha256 = {digest}" in capsys.readouterr().err
    record = loaded.source["files"][0]
    assert record["sha256"] == digest and record["pinned_sha256"] is None
    assert Path(record["path"]) == tmp_path / "cache" / "adult" / "a5a.xz"


def test_downloads_forbidden_by_environment(monkeypatch, tmp_path):
    source = tmp_path / "mirror"
    write(source, "a5a", TRAIN_SVMLIGHT)
    point_a5a_at(monkeypatch, (source / "a5a").as_uri(), (source / "a5a").as_uri())
    use_data_path(monkeypatch, tmp_path / "empty")
    with pytest.raises(DataError, match="allow downloads"):
        load_dataset("a5a")


def test_cached_file_with_wrong_checksum_says_delete_it(monkeypatch, tmp_path):
    write(tmp_path / "cache", "adult/a5a", TRAIN_SVMLIGHT + b"-1 9:1\n")
    write(tmp_path / "cache", "adult/a5a.t", TEST_SVMLIGHT)
    monkeypatch.setitem(
        checksums.PINNED_SHA256, "adult/a5a", hashlib.sha256(TRAIN_SVMLIGHT).hexdigest()
    )
    use_data_path(monkeypatch, tmp_path / "empty")
    with pytest.raises(DataError, match="checksum mismatch.*found in cache.*delete it"):
        load_dataset("a5a")


WDBC_ROWS = b"842302,M,17.99,10.38" + b",1.0" * 28 + b"\n842517,M,20.57,17.77" + b",1.0" * 28 + b"\n"


@pytest.mark.parametrize("path, key", [("wdbc/wdbc.data", "wdbc"), ("diabetes/diabetes", "diabetes"),
                                       ("adult/a4a", "a4a"), ("web/w7a", "w7a")])
def test_truncated_staged_file_is_refused(monkeypatch, tmp_path, path, key):
    """Files the audit found unpinned: a copy that is cut short must not load."""
    write(tmp_path, path, WDBC_ROWS if key == "wdbc" else b"-1 1:1\n+1 2:1\n")
    use_data_path(monkeypatch, tmp_path)
    expected = checksums.PINNED_SHA256[path]
    with pytest.raises(DataError) as err:
        load_dataset(key)
    message = str(err.value)
    assert f"checksum mismatch for {key!r} file {tmp_path / path} (found in data path)" in message
    assert f"expected {expected} (truncated, edited or another version)" in message
    assert "copy it again from a staged copy of the data sets (docs/data-manifest.md)" in message


def test_every_staged_file_is_pinned():
    if not MANIFEST:
        pytest.skip("no shared/data/manifest.json in the data path")
    for file, entry in MANIFEST.items():
        path = file.removesuffix(".bz2").removesuffix(".xz").removesuffix(".gz")
        assert PINNED_AT_IMPORT.get(path) == entry["sha256_uncompressed"], path


def test_file_that_differs_from_its_source_is_not_downloaded(monkeypatch, tmp_path):
    """w7a is staged with CRLF line endings: the LIBSVM file cannot match its pin, so no download
    is tried; the message says to use a staged copy."""
    monkeypatch.setenv("SVMBENCH_DOWNLOAD", "1")
    use_data_path(monkeypatch, tmp_path)
    with pytest.raises(DataError, match="would not match the pinned sha256: the staged copy has "
                                        "CRLF line endings.*use a staged copy of the data sets"):
        load_dataset("w7a")


def test_corrupt_compressed_file_is_a_data_error(monkeypatch, tmp_path):
    (tmp_path / "d" / "adult").mkdir(parents=True)
    (tmp_path / "d" / "adult" / "a5a.bz2").write_bytes(b"not bzip2 at all")
    use_data_path(monkeypatch, tmp_path / "d")
    with pytest.raises(DataError, match="cannot decompress .*truncated.*copy it again from a staged copy"):
        load_dataset("a5a")


BUPA_BODY = b"85,92,45,27,31,0.0,1\n85,64,59,32,23,0.0,2\n86,54,33,16,54,0.0,2\n"


@pytest.mark.parametrize(
    "header", [b"", b"MCV,ALKPHOS,SGPT,SGOT,GAMMAGT,ALCOHOL,DATASET\n", b"1,2,3,4,5,6,7\r\n"]
)
def test_uci_table_with_or_without_uploader_header(monkeypatch, tmp_path, header):
    write(tmp_path, "liver-disorders/bupa.data", header + BUPA_BODY)
    use_data_path(monkeypatch, tmp_path)
    liver = load_dataset("liver disorders")
    assert liver.X_train.shape == (3, 6) and list(liver.classes) == [1, 2]
    np.testing.assert_array_equal(liver.y_train, [-1, 1, 1])
    assert liver.X_train[0, 0] == 85


def test_table_with_missing_value_names_row_and_column(monkeypatch, tmp_path):
    write(tmp_path, "liver-disorders/bupa.data", BUPA_BODY.replace(b"64", b"?"))
    use_data_path(monkeypatch, tmp_path)
    with pytest.raises(DataError, match=r"'\?' at data row 1, column 1 is not a number"):
        load_dataset("liver_disorders")


def test_split_column_and_dropped_columns(monkeypatch, tmp_path):
    rows = [
        f"{flag} 3 1 " + " ".join(f"{flag + i / 10:.1f}" for i in range(10)) + f" {label}"
        for flag, label in [(0, 10), (0, 2), (1, 2), (0, 0), (1, 10)]
    ]
    write(tmp_path, "vowel/vowel-context.data", "\n".join(rows).encode())
    monkeypatch.delitem(checksums.PINNED_SHA256, "vowel/vowel-context.data")
    use_data_path(monkeypatch, tmp_path)
    vowel = load_dataset("Vowel")
    assert vowel.X_train.shape == (3, 10) and vowel.X_test.shape == (2, 10)
    assert list(vowel.classes) == [0, 2, 10]  # numeric order, not string order
    np.testing.assert_array_equal(vowel.y_train, [2, 1, 0])
    np.testing.assert_array_equal(vowel.y_test, [1, 2])


def test_sequences_are_one_hot_per_position_and_ambiguous_rows_dropped(monkeypatch, tmp_path):
    body = "EI, A-1, " + "ACGT" * 15 + "\nN, B-2, " + "T" * 60 + "\nIE, C-3, " + "N" + "A" * 59 + "\n"
    write(tmp_path, "splice/splice.data", body.encode())
    monkeypatch.delitem(checksums.PINNED_SHA256, "splice/splice.data")
    use_data_path(monkeypatch, tmp_path)
    splice = load_dataset("Splice")
    assert splice.X_train.shape == (2, 240) and list(splice.classes) == ["EI", "N"]
    np.testing.assert_array_equal(splice.X_train[0, :8], [1, 0, 0, 0, 0, 1, 0, 0])  # A, C
    assert np.all(splice.X_train.reshape(2, 60, 4).sum(axis=2) == 1)
    np.testing.assert_array_equal(splice.X_train[1].reshape(60, 4)[:, 3], np.ones(60))  # all T


def test_sequences_of_different_lengths_are_refused(monkeypatch, tmp_path):
    write(tmp_path, "splice/splice.data", b"EI, A-1, ACGT\nN, B-2, ACG\n")
    monkeypatch.delitem(checksums.PINNED_SHA256, "splice/splice.data")
    use_data_path(monkeypatch, tmp_path)
    with pytest.raises(DataError, match=r"sequences have lengths \[3, 4\]"):
        load_dataset("splice")


def test_ida_realizations_from_generated_files(monkeypatch, tmp_path):
    stem = tmp_path / "ida_raetsch" / "thyroid" / "thyroid"  # no staged copy, so no pinned hash
    stem.parent.mkdir(parents=True)
    for k in (1, 2):
        for role, n in (("train", 4), ("test", 3)):
            data = "\n".join(f"  {k}.0e+00  {i}.0e-01" + "  -1.0e+00" * 3 for i in range(n))
            labels = "\n".join(f"  {1 if i % 2 else -1}.0000000e+00" for i in range(n))
            Path(f"{stem}_{role}_data_{k}.asc").write_text(data + "\n")
            Path(f"{stem}_{role}_labels_{k}.asc").write_text(labels + "\n")
    use_data_path(monkeypatch, tmp_path)
    second = load_dataset("Thyroid", realization=2)
    assert second.realization == 2 and second.n_realizations == 100
    assert second.X_train.shape == (4, 5) and second.X_test.shape == (3, 5)
    assert np.all(second.X_train[:, 0] == 2.0) and list(second.classes) == [-1, 1]
    np.testing.assert_array_equal(second.y_test, [-1, 1, -1])
    assert load_dataset("ida_thyroid").realization == 1
    assert available_realizations("ida_thyroid") == [1, 2]


# ---------------------------------------------------------------- real data (shared/data)


def _manifest_entries() -> dict[str, dict]:
    for directory in REAL_DATA_DIRS:
        manifest = directory / "manifest.json"
        if manifest.is_file():
            return {entry["file"]: entry for entry in json.loads(manifest.read_text())["files"]}
    return {}


MANIFEST = _manifest_entries()
FILE_SETS = [key for key in list_datasets() if registry.REGISTRY[key].reader != "sklearn"]


def _require_local(key: str) -> dict:
    if not REAL_DATA_DIRS:
        pytest.skip(
            "SVMBENCH_DATA_PATH is not set (point it at shared/data to test real data sets)"
        )
    spec = registry.REGISTRY[key]
    files = spec.data_files(1 if spec.n_realizations else None)
    found = {role: find_local(file) for role, file in files.items()}
    missing = [files[role].path for role, hit in found.items() if hit is None]
    if missing:
        pytest.skip(f"{key}: {', '.join(missing)} not in SVMBENCH_DATA_PATH or the cache")
    return found


def _manifest_entry(path: Path) -> dict | None:
    for directory in REAL_DATA_DIRS:
        if directory in path.parents:
            return MANIFEST.get(path.relative_to(directory).as_posix())
    return None


@pytest.mark.data
@pytest.mark.parametrize("key", FILE_SETS)
def test_real_dataset_matches_manifest(key, monkeypatch):
    found = _require_local(key)
    monkeypatch.setenv("SVMBENCH_DATA", "/nonexistent-cache")  # real files come from the data path
    dataset = load_dataset(key)
    entries = {role: _manifest_entry(path) for role, (path, _) in found.items()}
    if not MANIFEST or None in entries.values():
        pytest.skip(f"{key}: no manifest.json entry next to the data files")
    train = entries.get("train") or entries["train_data"]
    test = entries.get("test") or entries.get("test_data")
    n_test = 0 if dataset.X_test is None else dataset.X_test.shape[0]
    layout = registry.REGISTRY[key].layout
    if layout is not None and layout.sequence_column is not None:  # one-hot, ambiguous rows out
        assert dataset.X_train.shape[0] <= train["rows"]
        width = train["expected"]["features"] * len(layout.alphabet)
        assert dataset.n_features == width == dataset.X_train.shape[1]
    elif test is None:
        assert dataset.X_train.shape[0] + n_test == train["rows"]
    else:
        assert (dataset.X_train.shape[0], n_test) == (train["rows"], test["rows"])
    if layout is None or layout.sequence_column is None:
        assert dataset.n_features == train["expected"]["features"] == dataset.X_train.shape[1]
    if "n_classes" in train:
        assert dataset.n_classes == train["n_classes"]
    assert dataset.is_sparse == registry.REGISTRY[key].sparse
    expected_y = {-1.0, 1.0} if dataset.n_classes == 2 else set(range(dataset.n_classes))
    assert set(np.unique(dataset.y_train)) <= expected_y
    for record in dataset.source["files"]:
        assert record["found_in"] == "data path"
        assert record["pinned_sha256"] in (None, record["sha256"])


@pytest.mark.data
def test_real_a4a_labels_are_mapped_to_plus_minus_one():
    _require_local("a4a")
    a4a = load_dataset("Adult-4")
    assert list(a4a.classes) == [0, 1]  # as stored by the uploader
    assert set(a4a.y_train) == {-1.0, 1.0} and set(a4a.y_test) == {-1.0, 1.0}


@pytest.mark.data
def test_real_a1a_train_and_test_have_123_features():
    _require_local("a1a")
    a1a = load_dataset("a1a")
    assert a1a.X_train.shape == (1605, 123) and a1a.X_test.shape == (30956, 123)
    assert sp.isspmatrix_csr(a1a.X_train) and a1a.X_train.dtype == np.float64


@pytest.mark.data
def test_real_splice_is_the_papers_three_class_set():
    _require_local("splice")
    splice = load_dataset("Splice")  # gs-svm-tnn2008 Table VI: 3175 samples, 3 classes, 240
    assert splice.X_train.shape == (3175, 240) and list(splice.classes) == ["EI", "IE", "N"]
    np.testing.assert_array_equal(np.bincount(splice.y_train.astype(int)), [762, 765, 1648])


@pytest.mark.data
def test_real_ida_realizations_differ():
    _require_local("ida_banana")
    first, second = load_dataset("ida_banana"), load_dataset("ida_banana", realization=2)
    assert first.X_train.shape == second.X_train.shape == (400, 2)
    assert not np.array_equal(first.X_train, second.X_train)
    assert available_realizations("ida_banana")[:2] == [1, 2]


# ---------------------------------------------------------------- scaling


def test_scale_features_uses_training_statistics_only():
    X_train = np.array([[0.0, 5.0, 1.0], [10.0, 5.0, 3.0], [5.0, 5.0, 2.0]])
    X_test = np.array([[20.0, 7.0, 2.0], [-10.0, 5.0, 1.0]])
    train, test = scale_features(X_train, X_test)
    np.testing.assert_allclose(train[:, 0], [-1, 1, 0])
    np.testing.assert_allclose(train[:, 1], 0)  # constant on the training set
    np.testing.assert_allclose(test[:, 0], [3, -3])  # outside [-1, 1]: test stats are never used
    np.testing.assert_allclose(test[:, 1], 0)
    np.testing.assert_allclose(test[:, 2], [0, -1])
    unit, _ = scale_features(X_train, lo=0.0, hi=1.0)
    np.testing.assert_allclose(unit[:, 0], [0, 1, 0.5])


def test_scale_features_on_bundled_data():
    wine = load_dataset("wine")
    train, test = scale_features(wine.X_train[:100], wine.X_train[100:])
    np.testing.assert_allclose(train.min(axis=0), -1)
    np.testing.assert_allclose(train.max(axis=0), 1)
    assert test.min() < -1 or test.max() > 1


def test_scale_features_sparse_uses_max_abs_and_keeps_zeros():
    X_train = sp.csr_matrix(np.array([[0.0, -4.0, 0.0], [2.0, 2.0, 0.0]]))
    X_test = sp.csr_matrix(np.array([[4.0, 0.0, 1.0]]))
    train, test = scale_features(X_train, X_test)
    assert sp.isspmatrix_csr(train) and train.nnz == X_train.nnz
    np.testing.assert_allclose(train.toarray(), [[0, -1, 0], [1, 0.5, 0]])
    np.testing.assert_allclose(test.toarray(), [[2, 0, 0]])
    with pytest.raises(DataError, match="symmetric range"):
        scale_features(X_train, lo=0.0, hi=1.0)
    with pytest.raises(DataError, match="both be dense or both sparse"):
        scale_features(X_train, X_test.toarray())


# ---------------------------------------------------------------- validation


def test_nan_and_inf_features_name_row_and_column():
    X = np.ones((3, 4))
    X[2, 1] = np.nan
    with pytest.raises(DataError, match="contains NaN at row 2, column 1; impute or drop"):
        check_training_data(X, [1, -1, 1])
    sparse = sp.csr_matrix(np.array([[0.0, 1.0], [0.0, np.inf]]))
    with pytest.raises(DataError, match="contains inf at row 1, column 1"):
        check_training_data(sparse, [1, -1])


def test_one_class_and_unmappable_labels():
    X = np.zeros((3, 2))
    with pytest.raises(DataError, match="only one class"):
        check_training_data(X, [1, 1, 1])
    with pytest.raises(DataError, match="cannot be mapped"):
        check_training_data(X, [0.5, 1.0, 0.0])
    with pytest.raises(DataError, match="3 rows but there are 2 labels"):
        check_training_data(X, [1, -1])
    with pytest.raises(DataError, match=r"test labels \['c'\] never occur"):
        encode_labels(np.array(["a", "b"]), np.array(["a", "c"]))


def test_test_features_wider_than_training():
    with pytest.raises(DataError, match="test features have 5 columns but training had 4"):
        check_test_features(np.zeros((2, 5)), 4)
    with pytest.raises(DataError, match="load with n_features"):
        check_test_features(sp.csr_matrix((2, 3)), 4)


def test_encode_labels_binary_and_multiclass():
    y, y_test, classes = encode_labels([0, 1, 1, 0], [1, 0])
    np.testing.assert_array_equal(y, [-1, 1, 1, -1])
    np.testing.assert_array_equal(y_test, [1, -1])
    assert y.dtype == np.float64 and list(classes) == [0, 1]
    y, _, classes = encode_labels(["b", "c", "a", "c"])
    np.testing.assert_array_equal(y, [1, 2, 0, 2])
    assert y.dtype == np.int64 and list(classes) == ["a", "b", "c"]
