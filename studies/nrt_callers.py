"""Which compiled functions call numba's reference counting, and on what (gdb).

    python studies/nrt_callers.py [--calls N] [--per NAME] SOLVER SET:C:GAMMA

studies/profile_jit.py shows NRT_incref and NRT_decref as time of their own, but not who calls
them: numba's machine code keeps no frame pointers and registers no unwind tables, and a virtual
machine may offer no branch record. Both are leaf functions, so on entry the return address is
the word at the stack pointer. This fits SOLVER on the cell (loaded as studies/bench.py loads it,
one numba thread) in a child process that, once warm, writes perf's map of its compiled functions
(profile_jit.ObjectKeeper) and goes on fitting; gdb attaches, breaks on every copy of the two
functions (numba links one into each compiled object), reads the return address and whether the
meminfo pointer (the first argument) is null, for N calls, then kills the child. A null meminfo
is a borrowed array's (svmbench.kernels.borrowed): the call does nothing but costs its call.

gdb also counts the calls of every svmbench function in the window. Printed per calling function
(the map's function holding the return address): its reference-count calls, the share of them on
live arrays, their number per call of the caller itself, and, with ``--per NAME``, per call of
the compiled function NAME (e.g. ``refresh_thresholds``, once per iteration of Keerthi's rules).
The window is short (a few hundred iterations): it shows one phase of the fit, so per-iteration
counts vary between runs, and so do the per-call counts of a function whose work varies (Keerthi's
next_examined, a whole pass in one call); a kernel row's miss path makes the same calls each
time. Needs gdb and permission to attach (root, or ptrace_scope 0).
"""

import argparse
import bisect
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STUDIES = Path(__file__).resolve().parent
NRT = ("NRT_incref", "NRT_decref")
READY_TIMEOUT = 900  # s: a cold child compiles the solver first

CHILD = """
import os, sys
sys.path.insert(0, {studies!r})
import numba
from iteration_cost import cell_data, fit_once
from profile_jit import ObjectKeeper

keeper = ObjectKeeper()
numba.set_num_threads(1)
_, C, gamma, (X, y) = cell_data({cell!r}, None)
fit_once({solver!r}, C, gamma, X, y)
keeper.write_map({map_path!r})
open({ready!r}, "w").write(str(os.getpid()))
while True:
    fit_once({solver!r}, C, gamma, X, y)
"""

GDB = """
import collections, gdb
counts, marks, seen = collections.Counter(), collections.Counter(), [0]


class Counted(gdb.Breakpoint):
    def __init__(self, address, name):
        super().__init__(f"*{{address:#x}}", internal=True)
        self.name = name

    def stop(self):
        if self.name not in {nrt!r}:
            marks[self.name] += 1
            return False
        frame = gdb.selected_frame()
        back = int.from_bytes(bytes(gdb.selected_inferior().read_memory(
            int(frame.read_register("rsp")), 8)), "little")
        live = int(frame.read_register("rdi")) != 0
        counts[back, live] += 1
        seen[0] += 1
        return seen[0] >= {calls}


for address, name in {breakpoints!r}:
    Counted(address, name)
gdb.execute("continue")
with open({out!r}, "w") as out:
    for (back, live), count in counts.items():
        out.write(f"call {{back}} {{int(live)}} {{count}}\\n")
    for name, count in marks.items():
        out.write(f"mark {{name}} {{count}}\\n")
gdb.execute("kill")
"""


def caller_of(functions, address):
    """The name of the function of ``functions`` ((start, size, name), sorted) holding
    ``address``, else its address in hex."""
    at = bisect.bisect_right(functions, address, key=lambda function: function[0])
    if at > 0:
        start, size, name = functions[at - 1]
        if address < start + size:
            return name
    return f"{address:#x}"


def read_map(path):
    """(start, size, name) of every function in perf's map at ``path``, sorted by start."""
    functions = []
    for line in Path(path).read_text().splitlines():
        address, size, name = line.split(" ", 2)
        functions.append((int(address, 16), int(size, 16), name))
    return sorted(functions)


def breakpoints(functions):
    """(address, name) where gdb breaks: every copy of the two reference-count functions, and
    the entry of every svmbench function (its calls are counted)."""
    return [(start, name) for start, _, name in functions
            if name in NRT or name.startswith("svmbench.")]


def tally(functions, lines):
    """{caller: [calls, live calls]} and {function: its calls} from the gdb script's lines."""
    callers, marks = {}, {}
    for line in lines:
        kind, *fields = line.split()
        if kind == "call":
            back, live, count = (int(value) for value in fields)
            entry = callers.setdefault(caller_of(functions, back), [0, 0])
            entry[0] += count
            entry[1] += count * live
        else:
            marks[fields[0]] = int(fields[1])
    return callers, marks


def report(callers, entries, per):
    """One line per caller, most calls first: its calls, live share, calls per call of itself
    (``entries``: calls of each function) and per call of the functions named ``per``."""
    marks = sum(count for name, count in entries.items() if per and name.rsplit(".", 1)[-1] == per)
    lines = [f"window: {marks} calls of {per}" if per else "window: no mark",
             "| calls | live % | per own call | per mark | caller |", "| --- |" + " --- |" * 4]
    total = sum(calls for calls, _ in callers.values())
    for name, (calls, live) in sorted(callers.items(), key=lambda item: -item[1][0]):
        own = f"{calls / entries[name]:.1f}" if entries.get(name) else ""
        mark = f"{calls / marks:.1f}" if marks else ""
        lines.append(f"| {calls} | {100 * live / calls:.1f} | {own} | {mark} | {name} |")
    live = sum(value[1] for value in callers.values())
    mark = f"{total / marks:.1f}" if marks else ""
    lines.append(f"| {total} | {100 * live / max(total, 1):.1f} | | {mark} | all |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("solver")
    parser.add_argument("cell", help="set:C:gamma")
    parser.add_argument("--calls", type=int, default=300_000, help="reference-count calls seen")
    parser.add_argument("--per", help="a compiled function's last name: counts per call of it")
    args = parser.parse_args(argv)
    if shutil.which("gdb") is None:
        parser.error("gdb is not installed (Debian: apt-get install gdb)")
    with tempfile.TemporaryDirectory() as scratch:
        paths = {name: str(Path(scratch, name)) for name in ("map", "ready", "out")}
        child = subprocess.Popen([sys.executable, "-c", CHILD.format(
            studies=str(STUDIES), cell=args.cell, solver=args.solver, map_path=paths["map"],
            ready=paths["ready"])], env={**os.environ, "NUMBA_NUM_THREADS": "1"})
        try:
            started = time.monotonic()
            while not Path(paths["ready"]).exists():
                if child.poll() is not None or time.monotonic() - started > READY_TIMEOUT:
                    raise SystemExit("the fitting process ended or never got ready")
                time.sleep(0.5)
            functions = read_map(paths["map"])
            script = Path(scratch, "count.py")
            script.write_text(GDB.format(breakpoints=breakpoints(functions), nrt=NRT,
                                         calls=args.calls, out=paths["out"]))
            subprocess.run(["gdb", "-q", "-batch", "-p", str(child.pid), "-x", str(script)],
                           check=True, capture_output=True)
        finally:
            child.kill()
            child.wait()
        callers, marks = tally(functions, Path(paths["out"]).read_text().splitlines())
    print(f"{args.solver} on {args.cell}, one numba thread")
    print(report(callers, marks, args.per))
    return 0


if __name__ == "__main__":
    sys.exit(main())
