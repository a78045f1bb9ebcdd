"""The other reading of a grid search's ties (docs/deviations.md, gs2008 Table VII).

svmbench.tuning.grid_search takes the FIRST minimum of the inner-CV error (smallest theta, then
smallest C); gs-svm-tnn2008 §V-C does not say which of several equal minima it takes, and on the
small sets (Zoo: 101 samples, 7 classes) many grid points tie. This runs the svmbench command
line unchanged except that the grid search takes the LAST minimum (largest theta, then largest
C), for the cells given on the command line; records go where ``store.dir=`` says (use a
separate store: the cell hash does not know the tie rule).

    PYTHONPATH=. python studies/deviations_grid_ties.py dataset=zoo algorithm=smo_wss2 \
        protocol=nested_cv threads=1 scale=paper store.dir=results/deviations/grid_last_minimum
"""

import numpy

import svmbench.tuning
from svmbench.runner import main


class LastMinimum:
    """numpy as svmbench.tuning sees it, but nanargmin (grid_search's choice among the points the
    search did not prune) returns the last of equal minima. Pruning keeps every tie with the best
    (a point leaves only with a mean above a complete point's), so the last minimum is complete."""

    def __getattr__(self, name):
        return getattr(numpy, name)

    @staticmethod
    def nanargmin(values):
        values = numpy.asarray(values)
        return values.shape[0] - 1 - int(numpy.nanargmin(values[::-1]))


if __name__ == "__main__":
    svmbench.tuning.np = LastMinimum()
    main()
