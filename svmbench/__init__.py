"""svmbench: a reproducible experiment-benchmark harness for SVM training algorithms.

Public names are imported lazily so that ``import svmbench`` stays cheap (no numba compile).
"""

from importlib import import_module

__version__ = "0.1.0"

_PUBLIC = {
    "load_results": "svmbench.store",
    "GSSVC": "svmbench.models",
    "SMOSVC": "svmbench.models",
    "HardMarginSVC": "svmbench.models",
    "RSVC": "svmbench.models",
    "RosenSVC": "svmbench.models",
    "RhoSVC": "svmbench.models",
    "EGFixedSVC": "svmbench.models",
    "XiAlphaSVC": "svmbench.models",
    "MEBSVC": "svmbench.models",
}

__all__ = [
    "GSSVC",
    "MEBSVC",
    "RSVC",
    "SMOSVC",
    "EGFixedSVC",
    "HardMarginSVC",
    "RhoSVC",
    "RosenSVC",
    "XiAlphaSVC",
    "__version__",
    "load_results",
]


def __getattr__(name):
    if name in _PUBLIC:
        return getattr(import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'svmbench' has no attribute {name!r}")
