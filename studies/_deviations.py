"""What the deviations experiments (studies/deviations_*.py, docs/deviations.md) share: the
text upstream LIBSVM prints while training, and writing a result table with its provenance."""

import os
import sys
import time

from svmbench.provenance import provenance

# the checkout when the experiment started (the scripts import this module first)
AT_START = provenance()


def libsvm_log(X, y, options):
    """What upstream LIBSVM (PyPI ``libsvm-official``) prints while training on (X, y)."""
    from libsvm.svm import PRINT_STRING_FUN, svm_parameter, svm_problem
    from libsvm.svmutil import svm_train

    printed = []
    param = svm_parameter(options)
    param.print_func = PRINT_STRING_FUN(lambda text: printed.append(text.decode()))
    svm_train(svm_problem(y, X), param)
    return "".join(printed)


def write_table(lines, setting, started, out):
    """Print the Markdown table ``lines`` and a footer (``setting``, the commit at the start and,
    when the checkout changed while it ran, at the end, wall time since
    ``started``, load, the command), and write both to ``out`` when given."""
    info = provenance()
    commit = f"Commit {info['git_commit']} (dirty: {info['git_dirty']})"
    if (info["git_commit"], info["git_dirty"]) != (AT_START["git_commit"], AT_START["git_dirty"]):
        commit = (f"Commit {AT_START['git_commit']} (dirty: {AT_START['git_dirty']}) at the start, "
                  f"{info['git_commit']} (dirty: {info['git_dirty']}) at the end")
    footer = (f"\n{setting} {commit}, "
              f"{time.time() - started:.0f} s wall, load average {os.getloadavg()[0]:.2f}. "
              f"Command: PYTHONPATH=. python {' '.join(sys.argv)}\n")
    text = "\n".join(lines) + "\n" + footer
    print(text)
    if out:
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
        with open(out, "w") as handle:
            handle.write(text)
