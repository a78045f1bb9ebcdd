"""What data a solver can take: declared once per algorithm, checked before a cell trains.

A cell whose data set its solver cannot take (more than two classes for a binary-only solver, a
kernel the solver's theory excludes, a training set above a declared size limit, an optional
package missing) is not trained and not a failure: the runner records it with status
``unsuitable`` and the reason, and tables list it with that reason.
"""

import importlib.util
from dataclasses import dataclass

UNSUITABLE = "unsuitable"
# the entry-point group under which another package declares its solvers (svmbench.solvers.plugins)
PLUGIN_GROUP = "svmbench.solvers"
# kernels with k(x, x) equal for every x (frank-wolfe-svm §2: the MEB view of CVM needs one)
NORMALIZED_KERNELS = ("rbf",)


@dataclass(frozen=True)
class Capabilities:
    """A solver's declared limits; the defaults take every data set."""

    multiclass: bool = True  # False: binary problems only (no one-vs-one)
    kernels: tuple | None = None  # the kernels it accepts; None: every kernel
    kernel_reason: str = ""  # why only those
    max_train: int | None = None  # training sets above this size are declined
    size_reason: str = ""  # why (a measured cost, a memory bound)
    module: str | None = None  # an optional package it needs
    install: str = ""  # how to get that package


@dataclass(frozen=True)
class Task:
    """What the check needs to know about a cell's data."""

    n_train: int
    n_classes: int
    kernel: str


def needs_data(capabilities):
    """Whether checking ``capabilities`` needs the data set's size and classes."""
    return not capabilities.multiclass or capabilities.max_train is not None


def unsuitable_reason(capabilities, kernel, task=None):
    """Why a solver with ``capabilities`` cannot take ``kernel`` on the data of ``task`` (None:
    not loaded, see :func:`needs_data`), or None when it can."""
    if capabilities.module and importlib.util.find_spec(capabilities.module) is None:
        return f"needs the package {capabilities.module}, not installed ({capabilities.install})"
    if capabilities.kernels is not None and kernel not in capabilities.kernels:
        return (f"kernel {kernel!r} not accepted (only {', '.join(capabilities.kernels)}): "
                f"{capabilities.kernel_reason}")
    if task is None:
        return None
    if not capabilities.multiclass and task.n_classes > 2:
        return f"binary problems only; this data set has {task.n_classes} classes"
    if capabilities.max_train is not None and task.n_train > capabilities.max_train:
        return (f"training set of {task.n_train} samples above its limit of "
                f"{capabilities.max_train}: {capabilities.size_reason}")
    return None
