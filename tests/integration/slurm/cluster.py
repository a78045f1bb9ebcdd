"""A one-node SLURM cluster on this machine, for the tests and for a person (``make slurm-up``).

    python tests/integration/slurm/cluster.py up DIR     # munged, slurmctld, slurmd; waits until the node is idle
    python tests/integration/slurm/cluster.py down DIR   # cancels its jobs, stops the three daemons by pid

Everything lives in DIR: the munge key and socket, ``slurm.conf`` (from ``slurm.conf.in``), the
daemons' state, logs and pids. Clients find the cluster through ``SLURM_CONF=DIR/slurm.conf``.
It needs root and Debian's ``slurm-wlm`` and ``munge`` (``.ci/run`` installs them);
:func:`unavailable` says why a cluster cannot start here.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from string import Template

TEMPLATE = Path(__file__).resolve().parent / "slurm.conf.in"
PROGRAMS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel",
            "scontrol")
PIDS = "daemons.json"
READY_SECONDS = 60.0


class ClusterError(RuntimeError):
    """The cluster did not come up (the message names the daemon and its log)."""


def unavailable():
    """Why a SLURM cluster cannot start on this machine, or None when it can."""
    if os.geteuid() != 0:
        return "starting slurmctld/slurmd needs root (the tests run SLURM only as root, e.g. in CI)"
    missing = [name for name in PROGRAMS if shutil.which(name) is None]
    if missing:
        return (f"{', '.join(missing)} not found; install Debian's slurm-wlm and munge "
                "(apt-get install slurm-wlm munge; .ci/run does)")
    return None


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SlurmCluster:
    def __init__(self, directory):
        self.directory = Path(directory).resolve()
        self.conf = self.directory / "slurm.conf"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}

    def up(self):
        """Start munged, slurmctld and slurmd (each in the foreground, its pid kept) and wait until
        the node is idle."""
        self.directory.mkdir(parents=True, exist_ok=True)
        for folder in ("ctld", "slurmd"):
            (self.directory / folder).mkdir(exist_ok=True)
        self._write_conf()
        key = self.directory / "munge.key"
        subprocess.run(["mungekey", "--create", "--force", f"--keyfile={key}"], check=True)
        self.directory.chmod(0o700)  # munged refuses a key or socket in a folder others can write
        pids = {}
        try:
            pids["munged"] = self._start(
                "munged", "--foreground", "--force", f"--key-file={key}",
                f"--socket={self.directory / 'munge.socket'}",
                f"--pid-file={self.directory / 'munged.pid'}",
                f"--log-file={self.directory / 'munged.log'}",
                f"--seed-file={self.directory / 'munged.seed'}")
            self._wait_for(lambda: (self.directory / "munge.socket").exists(), "munged")
            pids["slurmctld"] = self._start("slurmctld", "-D", "-i", "-f", str(self.conf))
            pids["slurmd"] = self._start("slurmd", "-D", "-f", str(self.conf))
        finally:
            (self.directory / PIDS).write_text(json.dumps(pids))
        self._wait_for(self.idle, "the node (slurmctld.log, slurmd.log)")
        return self

    def _write_conf(self):
        node = subprocess.run(["slurmd", "-C"], capture_output=True, text=True,
                              check=True).stdout.splitlines()[0]
        host = node.split()[0].split("=", 1)[1]
        text = Template(TEMPLATE.read_text()).substitute(
            host=host, node=node, state=self.directory, ctld_port=free_port(),
            slurmd_port=free_port())
        self.conf.write_text(text)

    def _start(self, program, *arguments):
        with open(self.directory / f"{program}.out", "ab") as log:
            return subprocess.Popen([program, *arguments], stdout=log, stderr=subprocess.STDOUT,
                                    env=self.env, start_new_session=True).pid

    def _wait_for(self, ready, what):
        deadline = time.monotonic() + READY_SECONDS
        while not ready():
            if time.monotonic() > deadline:
                raise ClusterError(f"{what} not ready after {READY_SECONDS:.0f} s; see the logs "
                                   f"in {self.directory}")
            time.sleep(0.5)

    def idle(self):
        state = self.run("sinfo", "--noheader", "--Node", "--format=%T", check=False)
        return state.returncode == 0 and state.stdout.strip() == "idle"

    def run(self, *command, check=True):
        return subprocess.run(command, capture_output=True, text=True, env=self.env, check=check)

    def jobs(self):
        """{job id: state} of every job the controller still knows (finished ones for MinJobAge)."""
        out = self.run("squeue", "--noheader", "--states=all", "--array", "--format=%i %T").stdout
        return dict(line.split() for line in out.splitlines() if line.strip())

    def down(self):
        """Cancel every job of this cluster, wait until none runs, stop the daemons by pid."""
        pids = json.loads((self.directory / PIDS).read_text()) \
            if (self.directory / PIDS).exists() else {}
        if pids.get("slurmctld") and _alive(pids["slurmctld"]):
            self.run("scancel", "--full", "--user=root", check=False)
            deadline = time.monotonic() + READY_SECONDS
            while any(state in ("RUNNING", "COMPLETING", "PENDING")
                      for state in self.jobs().values()) and time.monotonic() < deadline:
                time.sleep(0.5)
        for name in ("slurmd", "slurmctld", "munged"):
            if pids.get(name):
                _stop(pids[name], name)
        (self.directory / PIDS).unlink(missing_ok=True)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _stop(pid, program, grace=10.0):
    """SIGTERM ``pid`` when it is still ``program`` (not a reused pid), SIGKILL it after ``grace``
    seconds, reap it when it is our child."""
    try:
        if Path(f"/proc/{pid}/comm").read_text().strip() != program:
            return
        os.kill(pid, signal.SIGTERM)
    except FileNotFoundError:
        return
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return
        except ChildProcessError:  # not our child (make slurm-down): poll until it is gone
            if not _alive(pid):
                return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    action, folder = sys.argv[1:3]
    reason = unavailable()
    if reason:
        sys.exit(f"SLURM cannot start here: {reason}")
    cluster = SlurmCluster(folder)
    if action == "up":
        cluster.up()
        print(f"SLURM is up (state in {cluster.directory}); for sbatch/squeue and "
              f"hydra/launcher=svmbench_slurm:\n  export SLURM_CONF={cluster.conf}")
    elif action == "down":
        cluster.down()
        print(f"SLURM is down ({cluster.directory} kept: logs)")
    else:
        sys.exit(f"unknown action {action!r}; use up or down")
