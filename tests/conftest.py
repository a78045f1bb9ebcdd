"""Test-session settings. Under CI (CI=true) hypothesis draws the same examples every run, so a
red CI is reproducible and never a fresh draw's chance; locally it keeps exploring new ones. And
the fake machine of the thread governor's tests."""

import os
import time

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


class FakeMachine:
    """svmbench.kernels.threads.cpu_seconds_used of a machine where other processes keep
    ``loads[k]`` cores busy between reading k and k + 1 (cycling), beside this process's real
    CPU time; one thread running."""

    def __init__(self, loads):
        self.loads, self.reads, self.others = loads, 0, 0.0
        self.last = time.perf_counter()

    def __call__(self):
        now = time.perf_counter()
        self.others += self.loads[self.reads % len(self.loads)] * (now - self.last)
        self.reads, self.last = self.reads + 1, now
        return self.others + time.process_time(), 1


@pytest.fixture
def fake_machine():
    """FakeMachine, for the thread governor's tests."""
    return FakeMachine
