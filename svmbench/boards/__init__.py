"""The cross-solver boards, artefacts of no one paper: the leaderboard (every solver, every data
set, with the seed papers' claims), the solvers board (cost to a certified optimum) and the
convergence curves. Like a paper's folder: experiment configs (``experiment/<artefact>.yaml``),
renderers and their private helpers (``_claims``, ``_models_board``, ``_ranks``)."""
