"""Test-session settings. Under CI (CI=true) hypothesis draws the same examples every run, so a
red CI is reproducible and never a fresh draw's chance; locally it keeps exploring new ones."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
