"""Where a cold first fit's compile time goes, per compiled function (issue 42, item 5).

    NUMBA_CACHE_DIR=$(mktemp -d) python studies/compile_profile.py smo_wss2 [--top 25]

Fits _cold_start.py's small problem with an empty compile cache (the directory must be empty
for a cold profile) and lists, from numba's "numba:compile" events, each function numba compiled:
its own CPU seconds (its compile less that of the functions compiled inside it, which numba
compiles while it types the caller), its CPU seconds with them, its signatures, and whether it is
a parallel one or has an entry point for Python; then the compiler passes that took the most CPU,
each without the compiles nested in it. numba links every callee's code into its caller's module
and optimizes that module again, so a function's own seconds include the optimization of every
function below it (its "native_lowering" pass). CPU seconds: wall time depends on the load.
"""

import argparse
import collections
import time

from _cold_start import problem, timed
from numba.core import event


class Nested(event.Listener):
    """CPU seconds of nested events, each without the events inside it, by ``name(event)``."""

    def __init__(self, name):
        self.name, self.open, self.own = name, [], collections.defaultdict(list)

    def on_start(self, event):
        self.open.append([time.process_time(), 0.0])

    def on_end(self, event):
        start, inside = self.open.pop()
        spent = time.process_time() - start
        if self.open:
            self.open[-1][1] += spent
        self.own[self.name(event)].append((spent - inside, spent))


def function_of(event):
    dispatcher = event.data["dispatcher"]
    options = dispatcher.targetoptions
    flags = ("parallel " if options.get("parallel") else "") + (
        "" if options.get("no_cpython_wrapper") else "python-entry")
    return f"{dispatcher.py_func.__module__}.{dispatcher.py_func.__qualname__}", flags


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("solver")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    functions, passes = Nested(function_of), Nested(lambda event: event.data["name"])
    event.register("numba:compile", functions)
    event.register("numba:run_pass", passes)
    from svmbench.algorithms import build_estimator

    X, y = problem()
    estimator = build_estimator({"name": args.solver})
    fit_wall, fit_cpu = timed(lambda: estimator.fit(X, y))
    ours = {key: runs for key, runs in functions.own.items() if key[0].startswith("svmbench.")}
    print(f"{args.solver}: first fit {fit_wall:.1f} s wall, {fit_cpu:.1f} s CPU; "
          f"{sum(map(len, ours.values()))} compiles of {len(ours)} svmbench functions, "
          f"{sum(map(len, functions.own.values()))} in all")
    print(f"{'own CPU s':>9} {'with inner':>10} {'sigs':>4}  function")
    ranked = sorted(functions.own.items(), key=lambda item: -sum(own for own, _ in item[1]))
    for (name, flags), runs in ranked[:args.top]:
        print(f"{sum(own for own, _ in runs):9.2f} {max(whole for _, whole in runs):10.2f} "
              f"{len(runs):4d}  {name} {flags}")
    print("passes (own CPU s):")
    ranked = sorted(passes.own.items(), key=lambda item: -sum(own for own, _ in item[1]))
    for name, runs in ranked[:args.top // 2]:
        print(f"{sum(own for own, _ in runs):9.2f}  {name}")


if __name__ == "__main__":
    main()
