"""What compiling each built-in solver costs, for the compile notice
(svmbench.kernels.compile_cache.CompileNotice): CPU seconds of its first fit of
studies/_cold_start.py's problem (300 samples, 5 features, dense) in a fresh process with an empty
numba cache, measured on the shared 2-core machine (branch cold, main 2d9d948d's compiled code,
load average 6-16 from other jobs: CPU seconds, not wall). A name not listed (a grid search, a
plug-in, nothing named) is said to take at most the most. Kept outside svmbench/kernels and
svmbench/solvers, whose content keys numba's cache: a new measurement compiles nothing anew.
"""

COMPILE_CPU_S = {
    "smo_wss2": 72, "smo_platt": 52, "smo_mod1": 68, "smo_mod2": 67, "gs_svm": 32, "hm_svm": 63,
    "rsvm": 114, "rosen": 38, "rho_svm": 53, "cvm": 74, "fw": 111, "mfw": 91,
}
