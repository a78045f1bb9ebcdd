"""Where a Python command spends its CPU time, numba's compiled functions named (Linux perf).

    python studies/profile_jit.py [--frequency HZ] [--delay MS] [--top N] [--data FILE]
                                  -- SCRIPT [ARG ...]

perf sees the machine code numba compiled, or loaded from its cache, as anonymous memory and
names none of it. This runs SCRIPT (with its arguments, as ``python SCRIPT ARG ...`` would) under
``perf record`` in a process that keeps the object code of every library numba loads and, at its
exit, writes ``/tmp/perf-<pid>.map``, where perf looks up such addresses: each function of each
object (its ELF symbol table: offset and size in its section; numba links a copy of each callee
into every caller's object, and those are named too), placed at the address where the execution
engine loaded that section (read from one of the object's global functions). Then it prints
``perf report``'s self time by function, numba's mangled names shortened
(``svmbench.solvers.smo.requested_row``) and the copies of one function added up.

Compiling in the profiled process shows as LLVM's time: warm the cache first (run the command
once), or skip the start with ``--delay``. Needs perf (Debian: ``linux-perf``) and permission to
sample (``kernel.perf_event_paranoid`` <= 2, or root).
"""

import argparse
import atexit
import collections
import os
import re
import runpy
import shutil
import struct
import subprocess
import sys

ELF_FUNCTION = 2  # STT_FUNC
ELF_GLOBAL = 1  # STB_GLOBAL
ELF_SYMBOL_TABLE = 2  # SHT_SYMTAB
# numba's Itanium-style names: _ZN <length><part> ... then ABI tags (B<length>...) or E
PART = re.compile(r"(\d+)")
# numba writes a character that is not a letter, digit or _ as _ and its hex code: <locals>'s
# brackets; underscores stay, so only the codes of those are read back (_fill_dense_range)
ESCAPES = {"_3c": "<", "_3e": ">"}


def function_symbols(elf):
    """(name, section index, offset, size, is global) of every function in the ELF64 object
    ``elf`` (bytes), from its symbol table."""
    section_offset, = struct.unpack_from("<Q", elf, 0x28)
    entry_size, count = struct.unpack_from("<HH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, section_offset + k * entry_size)
                for k in range(count)]
    found = []
    for _, kind, _, _, offset, size, link, _, _, symbol_size in sections:
        if kind != ELF_SYMBOL_TABLE:
            continue
        strings = sections[link][4]
        for at in range(offset, offset + size, symbol_size):
            name_at, info, _, section, value, length = struct.unpack_from("<IBBHQQ", elf, at)
            if info & 0xF != ELF_FUNCTION or section == 0:
                continue
            end = elf.index(b"\0", strings + name_at)
            found.append((elf[strings + name_at:end].decode(), section, value, length,
                          info >> 4 == ELF_GLOBAL))
    return found


def placed(objects, address_of):
    """(address, size, name) of the functions of ``objects`` (ELF bytes each) as loaded: a
    section's load address is a global function's address (``address_of(name)``, 0 when
    unknown) less its offset, taken where the object's global functions agree on it."""
    functions = []
    for elf in objects:
        symbols = function_symbols(elf)
        bases = collections.defaultdict(collections.Counter)
        for name, section, offset, _, is_global in symbols:
            address = address_of(name) if is_global else 0
            if address:
                bases[section][address - offset] += 1
        for name, section, offset, size, _ in symbols:
            if bases[section] and size > 0:
                base, _ = bases[section].most_common(1)[0]
                functions.append((base + offset, size, name))
    return sorted(set(functions))


def short_name(symbol):
    """svmbench.solvers.smo.requested_row for numba's mangled name of it (the argument types
    and ABI tags dropped, the brackets of <locals> decoded); other names unchanged."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts, at = [], 3
    while at < len(symbol) and symbol[at].isdigit():
        length = PART.match(symbol, at).group(1)
        at += len(length)
        parts.append(symbol[at:at + int(length)])
        at += int(length)
    name = ".".join(parts)
    for code, character in ESCAPES.items():
        name = name.replace(code, character)
    return name or symbol


class ObjectKeeper:
    """Keeps the object code of every library numba's CPU execution engine compiles or loads
    (numba drops a cached library's object once it is loaded), for :func:`placed`."""

    def __init__(self):
        from numba.core.codegen import CPUCodeLibrary
        from numba.core.registry import cpu_target

        self.objects = []
        self.engine = cpu_target.target_context.codegen()._engine
        compiled, loaded = CPUCodeLibrary._object_compiled_hook, \
            CPUCodeLibrary._object_getbuffer_hook

        def on_compiled(module, buffer):
            self.objects.append(bytes(buffer))
            return compiled(module, buffer)

        def on_load(module):
            buffer = loaded(module)
            if buffer:
                self.objects.append(bytes(buffer))
            return buffer

        self.engine._ee.set_object_cache(on_compiled, on_load)

    def address_of(self, name):
        """Where the engine loaded function ``name`` (0: a name it does not know)."""
        return self.engine._ee.get_function_address(name)

    def write_map(self, path):
        """perf's map of this process's compiled functions; returns how many it names."""
        functions = placed(self.objects, self.address_of)
        with open(path, "w") as out:
            out.writelines(f"{address:x} {size:x} {short_name(name)}\n"
                           for address, size, name in functions)
        return len(functions)


def run_script(argv):
    """The profiled process: run ``argv`` (SCRIPT ARG ...) as __main__, write the map at exit."""
    keeper = ObjectKeeper()
    path = f"/tmp/perf-{os.getpid()}.map"
    atexit.register(lambda: print(f"profile_jit: {keeper.write_map(path)} compiled functions "
                                  f"named in {path}", file=sys.stderr))
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    runpy.run_path(argv[0], run_name="__main__")


def self_time(data, top):
    """The ``top`` functions by self time in perf's ``data``, copies of one function added up:
    [(percent, name)]."""
    report = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "sym",
                             "-g", "none", "--stdio"], check=True, capture_output=True,
                            text=True).stdout
    shares = collections.Counter()
    for line in report.splitlines():
        match = re.match(r"\s*([\d.]+)%\s+\[[.k]\]\s+(.*\S)", line)
        if match:
            shares[match.group(2)] += float(match.group(1))
    return [(percent, name) for name, percent in shares.most_common(top)]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--profiled"]:
        return run_script(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frequency", type=int, default=999, help="samples a second (perf -F)")
    parser.add_argument("--delay", type=int, default=0, help="ms before sampling starts (perf -D)")
    parser.add_argument("--top", type=int, default=30, help="functions to print")
    parser.add_argument("--data", default="/tmp/profile_jit.data", help="perf's data file")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- SCRIPT [ARG ...]")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("name the script to profile after --")
    if shutil.which("perf") is None:
        parser.error("perf is not installed (Debian: apt-get install linux-perf)")
    record = ["perf", "record", "-F", str(args.frequency), "-o", args.data]
    if args.delay:
        record += ["-D", str(args.delay)]
    subprocess.run(record + ["--", sys.executable, os.path.abspath(__file__), "--profiled",
                             *command], check=True)
    for percent, name in self_time(args.data, args.top):
        print(f"{percent:6.2f} %  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
