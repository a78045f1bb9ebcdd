"""The (C, gamma) choice's settings (rosen_parameters runs it, rosen_tables' caption states it),
apart from the search so that the renderer loads no engine (tests/integration/test_pages.py)."""

REALIZATIONS = 5
FOLDS = 5
GRID = {"gamma_log2": [-10, 2], "C_log2": [-2, 10]}
