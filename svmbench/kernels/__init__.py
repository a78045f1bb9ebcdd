"""Kernel math, the cached kernel provider, the Q-matrix layer and numba's thread policy."""

from svmbench.kernels.threads import use_passive_wait

use_passive_wait()  # before anything starts numba's threads
