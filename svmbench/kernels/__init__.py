"""Kernel math, the cached kernel provider, the Q-matrix layer, numba's thread policy and where
numba keeps the compiled code."""

from svmbench.kernels.compile_cache import use_compile_cache
from svmbench.kernels.threads import use_passive_wait

use_passive_wait()  # before anything starts numba's threads
use_compile_cache()  # before the first compiled function is decorated
