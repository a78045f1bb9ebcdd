"""Every data set svmbench knows: where its files live, how to read them, what the papers call it.

Files are named by a path relative to a data directory (``<group>/<file>``, the layout of a
staged copy, docs/data-manifest.md), always *without* a compression suffix: the loader also accepts ``.bz2``, ``.xz``
and ``.gz`` copies. ``url`` is the original public source; ``None`` means no direct download is
known, and the error message then points at ``homepage``.

Checksums: a file's sha256 (of the uncompressed content) is pinned in :mod:`checksums` only where
the canonical content is truly known (the staged copy's ``manifest.json``, files not altered
upstream).
For every other file the hash is unknown: on download it is computed, printed and recorded in
``Dataset.source``, so a run still documents exactly which bytes it used.

Keys that would collide are kept apart: ``breast_cancer`` is scikit-learn's bundled WDBC (``wdbc``
reads the UCI file), while the Raetsch/IDA benchmark realizations all carry an ``ida_`` prefix
(``ida_heart``, ``ida_german``, ``ida_breast_cancer``, ...). A name given to :func:`resolve_name`
matches a key first, then a paper name; so "Heart" is the LIBSVM/UCI ``heart`` of gs-svm-tnn2008,
and the Raetsch "Heart" of rosen-projection-svm must be asked for as ``ida_heart``.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from svmbench.data.checksums import PINNED_SHA256
from svmbench.data.errors import DataError

LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets"
UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
IDA_HOME = (
    "http://ida.first.fraunhofer.de/projects/bench/benchmarks.htm (offline; archived copies: "
    "https://github.com/tdiethe/gunnar_raetsch_benchmark_datasets)"
)
CVM_HOME = "http://www.cse.ust.hk/~ivor/cvm.html (Tsang et al., Core Vector Machines)"
IDA_PARTS = ("train_data", "train_labels", "test_data", "test_labels")

LIBSVM_NOTE = "LIBSVM data sets (Chang & Lin); cite the original source named on the LIBSVM page."
UCI_NOTE = "UCI Machine Learning Repository (Dua & Graff); CC BY 4.0; cite the donors."
IDA_NOTE = (
    "IDA benchmark repository (Raetsch, Onoda & Mueller 2001, Machine Learning 42:287-320). "
    "The repository is offline; realizations 1-10 come from the commit-pinned public copies listed "
    "in docs/data-manifest.md."
)


@dataclass(frozen=True)
class DataFile:
    path: str
    url: str | None = None

    @property
    def sha256(self) -> str | None:
        return PINNED_SHA256.get(self.path)

    def format(self, **fields) -> DataFile:
        url = self.url.format(**fields) if self.url else None
        return DataFile(self.path.format(**fields), url)


@dataclass(frozen=True)
class TableLayout:
    """Where the label sits in a delimited text table and which columns are not features."""

    label_column: int
    drop_columns: tuple[int, ...] = ()
    split_column: int | None = None  # 0 marks training rows, 1 test rows (vowel-context)
    train_rows: int | None = None  # the first rows train, the rest test (letter)
    # a column holding a symbol sequence, one-hot encoded over this alphabet (splice); rows with
    # any other symbol are dropped
    sequence_column: int | None = None
    alphabet: str = ""


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    reader: str  # "sklearn" | "libsvm" | "table" | "ida"
    n_features: int
    train: DataFile | None = None
    test: DataFile | None = None
    layout: TableLayout | None = None
    realization_files: DataFile | None = None  # IDA: path/url templates with {part} and {k}
    n_realizations: int | None = None
    sparse: bool = False
    scale: bool = True
    paper_names: tuple[str, ...] = ()
    homepage: str = ""
    note: str = ""

    def data_files(self, realization: int | None = None) -> dict[str, DataFile]:
        """The files to read, by role ("train", "test", or the IDA parts for one realization)."""
        if self.realization_files is not None:
            return {
                part: self.realization_files.format(part=part, k=realization) for part in IDA_PARTS
            }
        return {role: file for role, file in (("train", self.train), ("test", self.test)) if file}


def _libsvm(stem, group, remote, n_features, *, name=None, test=True, compressed="", **fields):
    """A LIBSVM-format set; ``remote`` is its folder on the LIBSVM page ("binary"/"multiclass")."""
    base = f"{LIBSVM}/{remote}"
    return DatasetSpec(
        name=name or stem,
        reader="libsvm",
        n_features=n_features,
        train=DataFile(f"{group}/{stem}", f"{base}/{stem}{compressed}"),
        test=DataFile(f"{group}/{stem}.t", f"{base}/{stem}.t{compressed}") if test else None,
        homepage=f"{LIBSVM}/{remote}.html#{stem}",
        **{"note": LIBSVM_NOTE, **fields},
    )


def _adult_web(prefix: str, k: int, paper: str, n_features: int, extra=()) -> DatasetSpec:
    name = f"{prefix}{k}a"
    group = "adult" if prefix == "a" else "web"
    return _libsvm(
        name,
        group,
        "binary",
        n_features,
        sparse=True,
        scale=False,
        paper_names=(f"{paper}-{k}", f"{paper} {name}", *extra),
    )


def _table(
    name, train, n_features, layout, *, test=None, paper_names=(), homepage="", note=UCI_NOTE
):
    return DatasetSpec(
        name=name,
        reader="table",
        n_features=n_features,
        train=train,
        test=test,
        layout=layout,
        paper_names=paper_names,
        homepage=homepage,
        note=note,
    )


def _cvm(name, group, n_features, paper_names) -> DatasetSpec:
    """A large set of frank-wolfe-svm Table 1 distributed (preprocessed) only on the CVM page."""
    return DatasetSpec(
        name=name,
        reader="libsvm",
        n_features=n_features,
        sparse=True,
        scale=False,
        train=DataFile(f"{group}/{name}"),
        test=DataFile(f"{group}/{name}.t"),
        paper_names=paper_names,
        homepage=CVM_HOME,
        note="Preprocessed by Tsang et al. for CVM experiments; LIBSVM format expected.",
    )


_IDA_SOURCES = {
    "fernando": (
        "fernando2393/Relevance-Vector-Machine",
        "b223cddea9e0563e3ccab6f1da16af917a6f2a95",
        "Classification/datasets/{stem}",
    ),
    "povelfk": (
        "povelfk/AdvML19-Project-RVM",
        "c572364c04d3130030dfae2478d2d56eaad2e879",
        "data/{stem}",
    ),
    "yzhang": ("yzhang00/Python-ML-Project-2", "3052697b406ebddce0f9c3032f7e1943e017b36e", "Data"),
}


def _ida(set_name, stem, n_features, n_realizations, source=None, paper_names=()) -> DatasetSpec:
    file = f"{stem}_{{part}}_{{k}}.asc"
    url = None
    if source:
        repo, commit, folder = _IDA_SOURCES[source]
        url = f"https://raw.githubusercontent.com/{repo}/{commit}/{folder.format(stem=stem)}/{file}"
    return DatasetSpec(
        name=f"ida_{set_name}",
        reader="ida",
        n_features=n_features,
        realization_files=DataFile(f"ida_raetsch/{set_name}/{file}", url),
        n_realizations=n_realizations,
        scale=False,  # the IDA sets come normalized; used as given
        paper_names=paper_names,
        homepage=IDA_HOME,
        note=IDA_NOTE,
    )


_SPECS = [
    # scikit-learn bundled sets: always available, used by tests and the quickstart.
    DatasetSpec(
        "breast_cancer",
        "sklearn",
        30,
        paper_names=("WDBC bundled", "wdbc_bundled"),
        homepage="https://scikit-learn.org/stable/datasets/toy_dataset.html",
        note="scikit-learn copy of UCI Breast Cancer Wisconsin (Diagnostic); labels by name.",
    ),
    DatasetSpec(
        "iris",
        "sklearn",
        4,
        paper_names=("Iris",),
        homepage="https://scikit-learn.org/stable/datasets/toy_dataset.html",
        note=UCI_NOTE,
    ),
    DatasetSpec(
        "wine",
        "sklearn",
        13,
        paper_names=("Wine",),
        homepage="https://scikit-learn.org/stable/datasets/toy_dataset.html",
        note=UCI_NOTE,
    ),
    DatasetSpec(
        "digits",
        "sklearn",
        64,
        homepage="https://scikit-learn.org/stable/datasets/toy_dataset.html",
        note=UCI_NOTE,
    ),
    # Adult and Web (gs-svm-tnn2008 Table I, frank-wolfe-svm Table 1, multiplicative-rho-svm Table 1).
    *(
        _adult_web("a", k, "Adult", 123, extra)
        for k, extra in [
            (1, ("adult1",)),
            (2, ("adult2",)),
            (3, ("adult3",)),
            (4, ()),
            (5, ()),
            (6, ()),
            (7, ()),
            (8, ()),
            (9, ("adult",)),
        ]
    ),
    *(
        _adult_web("w", k, "Web", 300, extra)
        for k, extra in [
            (1, ("web1",)),
            (2, ("web2",)),
            (3, ()),
            (4, ()),
            (5, ()),
            (6, ()),
            (7, ()),
            (8, ()),
        ]
    ),
    # Small benchmark sets of gs-svm-pakdd2005 Table 2 and gs-svm-tnn2008 Table VI/VII.
    _libsvm(
        "australian_scale",
        "australian",
        "binary",
        14,
        name="australian",
        test=False,
        paper_names=("Australian Credit", "Australian"),
    ),
    _libsvm("heart_scale", "heart", "binary", 13, name="heart", test=False, paper_names=("Heart",)),
    _libsvm(
        "diabetes",
        "diabetes",
        "binary",
        8,
        test=False,
        paper_names=("Pima Indians Diabetes", "Diabetes"),
    ),
    _libsvm(
        "glass.scale", "glass", "multiclass", 9, name="glass", test=False, paper_names=("Glass",)
    ),
    _libsvm(
        "segment.scale",
        "segment",
        "multiclass",
        19,
        name="segment",
        test=False,
        paper_names=("Segment",),
    ),
    _table(
        "german",
        DataFile("german/german.data-numeric", f"{UCI}/statlog/german/german.data-numeric"),
        24,
        TableLayout(label_column=-1),
        paper_names=("German",),
        homepage="https://archive.ics.uci.edu/dataset/144",
    ),
    _table(
        "ionosphere",
        DataFile("ionosphere/ionosphere.data", f"{UCI}/ionosphere/ionosphere.data"),
        34,
        TableLayout(label_column=-1),
        paper_names=("Ionosphere",),
        homepage="https://archive.ics.uci.edu/dataset/52",
    ),
    # bupa.data: the last column ("selector", 1/2) is the class used by LIBSVM and the papers.
    _table(
        "liver_disorders",
        DataFile("liver-disorders/bupa.data", f"{UCI}/liver-disorders/bupa.data"),
        6,
        TableLayout(label_column=-1),
        paper_names=("Liver disorders", "Liver"),
        homepage="https://archive.ics.uci.edu/dataset/60",
    ),
    _table(
        "wdbc",
        DataFile("wdbc/wdbc.data", f"{UCI}/breast-cancer-wisconsin/wdbc.data"),
        30,
        TableLayout(label_column=1, drop_columns=(0,)),
        paper_names=("Wdbc", "WDBC"),
        homepage="https://archive.ics.uci.edu/dataset/17",
    ),
    _table(
        "zoo",
        DataFile("zoo/zoo.data", f"{UCI}/zoo/zoo.data"),
        16,
        TableLayout(label_column=-1, drop_columns=(0,)),
        paper_names=("Zoo",),
        homepage="https://archive.ics.uci.edu/dataset/111",
    ),
    # UCI ships page-blocks.data.Z (Unix compress), which Python cannot read: no direct download.
    _table(
        "page_blocks",
        DataFile("page-blocks/page-blocks.data"),
        10,
        TableLayout(label_column=-1),
        paper_names=("Page",),
        homepage="https://archive.ics.uci.edu/dataset/78 (unpack page-blocks.data.Z)",
    ),
    # vowel-context.data: flag (0 train / 1 test), speaker, sex, 10 features, class (Deterding split).
    _table(
        "vowel",
        DataFile(
            "vowel/vowel-context.data",
            f"{UCI}/undocumented/connectionist-bench/vowel/vowel-context.data",
        ),
        10,
        TableLayout(label_column=-1, drop_columns=(1, 2), split_column=0),
        paper_names=("Vowel",),
        homepage="https://archive.ics.uci.edu/dataset/152",
    ),
    # splice.data: class, instance name, 60 nucleotides. gs-svm-tnn2008 Table VI: 3175 samples,
    # 240 features = the 3175 sequences of A/C/G/T only (15 hold N, D, R or S), one-hot per position.
    _table(
        "splice",
        DataFile(
            "splice/splice.data",
            f"{UCI}/molecular-biology/splice-junction-gene-sequences/splice.data",
        ),
        240,
        TableLayout(label_column=0, drop_columns=(1,), sequence_column=2, alphabet="ACGT"),
        paper_names=("Splice",),
        homepage="https://archive.ics.uci.edu/dataset/69",
    ),
    _libsvm(
        "splice",
        "splice",
        "binary",
        60,
        name="splice_binary",
        note=LIBSVM_NOTE + " LIBSVM's binary splice (1000 train / 2175 test), not the papers' "
        "3-class UCI set (``splice``).",
    ),
    # Larger sets with a given test set (gs-svm-tnn2008 Table VII, frank-wolfe-svm Table 1).
    _libsvm("dna.scale", "dna", "multiclass", 180, name="dna", paper_names=("Dna", "DNA")),
    _libsvm(
        "satimage.scale", "satimage", "multiclass", 36, name="satimage", paper_names=("Satimage",)
    ),
    _libsvm("pendigits", "pendigits", "multiclass", 16, paper_names=("Pendigits",)),
    # The first 15000 rows of the UCI file train, the last 5000 test. LIBSVM's letter.scale(.t) is a
    # different partition of the same rows (docs/data-manifest.md; docs/deviations.md, 4a).
    _table(
        "letter",
        DataFile(
            "letter/letter-recognition.data", f"{UCI}/letter-recognition/letter-recognition.data"
        ),
        16,
        TableLayout(label_column=0, train_rows=15000),
        paper_names=("Letter",),
        homepage="https://archive.ics.uci.edu/dataset/59",
    ),
    # UCI ships shuttle.trn as shuttle.trn.Z (Unix compress): no direct download for the training file.
    _table(
        "shuttle",
        DataFile("shuttle/shuttle.trn"),
        9,
        TableLayout(label_column=-1),
        test=DataFile("shuttle/shuttle.tst", f"{UCI}/statlog/shuttle/shuttle.tst"),
        paper_names=("Shuttle",),
        homepage="https://archive.ics.uci.edu/dataset/148 (unpack shuttle.trn.Z)",
    ),
    # astro-particles (multiplicative-rho-svm Table 1); the staged copy is a CSV conversion (label first).
    _table(
        "svmguide1",
        DataFile("svmguide1/svmguide1.csv"),
        4,
        TableLayout(label_column=0),
        test=DataFile("svmguide1/svmguide1.t.csv"),
        paper_names=("astro", "astro-particles"),
        homepage=f"{LIBSVM}/binary.html#svmguide1 (svmlight original: convert to CSV, label first)",
        note=LIBSVM_NOTE,
    ),
    _libsvm(
        "usps", "usps", "multiclass", 256, compressed=".bz2", scale=False, paper_names=("USPS",)
    ),
    _libsvm(
        "mnist",
        "mnist",
        "multiclass",
        780,
        compressed=".bz2",
        sparse=True,
        scale=False,
        paper_names=("MNIST",),
    ),
    _libsvm(
        "protein",
        "protein",
        "multiclass",
        357,
        compressed=".bz2",
        scale=False,
        paper_names=("Protein",),
    ),
    _libsvm(
        "ijcnn1", "ijcnn1", "binary", 22, compressed=".bz2", scale=False, paper_names=("IJCNN",)
    ),
    _libsvm(
        "covtype",
        "covtype",
        "multiclass",
        54,
        test=False,
        compressed=".bz2",
        paper_names=("Forest",),
    ),
    _cvm("usps_ext", "usps_ext", 676, ("USPS-Ext",)),
    _cvm("kdd99_10pc", "kdd99", 127, ("KDD99-10pc", "KDD10pc")),
    _cvm("kdd99_full", "kdd99", 127, ("KDD99-Full", "KDD-full")),
    _cvm("reuters", "reuters", 8315, ("Reuters",)),
    # Raetsch/IDA realizations (rosen-projection-svm Tables 1-2, multiplicative-rho-svm Table 1).
    _ida("banana", "banana", 2, 100, "fernando"),
    _ida(
        "breast_cancer",
        "breast-cancer",
        9,
        100,
        "fernando",
        paper_names=("Cancer", "breast cancer"),
    ),
    _ida("diabetis", "diabetis", 8, 100, paper_names=("diabetis", "Diabetes")),
    _ida("flare_solar", "flare-solar", 9, 100, paper_names=("Flare",)),
    _ida("german", "german", 20, 100, "fernando", paper_names=("german",)),
    _ida("heart", "heart", 13, 100, "povelfk", paper_names=("Heart",)),
    _ida("image", "image", 18, 20, "fernando"),
    _ida("ringnorm", "ringnorm", 20, 100, "povelfk"),
    _ida("splice", "splice", 60, 20),
    _ida("thyroid", "thyroid", 5, 100, paper_names=("Thyroid",)),
    _ida("titanic", "titanic", 3, 100, "fernando", paper_names=("Titanic",)),
    _ida("twonorm", "twonorm", 20, 100, "yzhang"),
    _ida("waveform", "waveform", 21, 100, "fernando", paper_names=("waveform",)),
]

REGISTRY: dict[str, DatasetSpec] = {spec.name: spec for spec in _SPECS}


def _normalize(name: str) -> str:
    return re.sub(r"[\s_-]+", "_", str(name).strip().lower())


def _alias_table() -> dict[str, set[str]]:
    aliases: dict[str, set[str]] = {}
    for spec in _SPECS:
        for alias in spec.paper_names:
            aliases.setdefault(_normalize(alias), set()).add(spec.name)
    return aliases


_KEYS = {_normalize(key): key for key in REGISTRY}
_ALIASES = _alias_table()


def list_datasets() -> list[str]:
    """Every registered canonical key, sorted."""
    return sorted(REGISTRY)


def resolve_name(name: str) -> str:
    """Canonical key for a key or paper name (case-, space-, '-'/'_'-insensitive)."""
    wanted = _normalize(name)
    if wanted in _KEYS:
        return _KEYS[wanted]
    matches = _ALIASES.get(wanted, set())
    if len(matches) == 1:
        return next(iter(matches))
    if matches:
        raise DataError(
            f"dataset name {name!r} is ambiguous: it is a paper name of {sorted(matches)}; "
            "use one of these keys"
        )
    close = difflib.get_close_matches(wanted, [*_KEYS, *_ALIASES], n=5, cutoff=0.6)
    keys = dict.fromkeys(
        key for c in close for key in ([_KEYS[c]] if c in _KEYS else sorted(_ALIASES[c]))
    )
    suggestion = f" Did you mean: {', '.join(keys)}?" if keys else ""
    raise DataError(
        f"unknown dataset {name!r}.{suggestion} Choose one of: {', '.join(list_datasets())} "
        "(paper names such as 'Adult-1' or 'Pima Indians Diabetes' work too)"
    )


def get_spec(name: str) -> DatasetSpec:
    return REGISTRY[resolve_name(name)]
