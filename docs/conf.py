"""Sphinx configuration of the documentation site (`make docs` -> docs/_build/html).

Pages are Markdown (MyST); the reference is generated from the repository at every build by
docs/_ext/svmbench_reference.py. Warnings are errors (`-W --keep-going`), and a link to a page,
heading or repository path that does not exist is a warning (MyST's cross-reference check and the
extension's repository links), so `make docs` fails on a broken internal link.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "svmbench"
author = "the svmbench authors"
copyright = "2026, the svmbench authors"
release = "0.1.0"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "numpydoc",
    "sphinx.ext.intersphinx",
    "svmbench_reference",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "examples", "reference/_generated", "**/README.md"]
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 4
suppress_warnings = []

html_theme = "alabaster"
html_title = "svmbench"
html_theme_options = {"description": "reproducible experiment-benchmark harness for SVM "
                                     "training algorithms", "show_relbars": True}

autodoc_default_options = {"show-inheritance": True}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_validation_checks = set()

# Intersphinx to scikit-learn, numpy and Python. The build machine may have no internet: the
# inventories are used only when SVMBENCH_DOCS_INTERSPHINX=1 (a machine that reaches them); by
# default the mapping is empty, so an offline `make docs` does not fail on an unreachable URL
# and references to those projects render as plain text.
intersphinx_mapping = {}
if os.environ.get("SVMBENCH_DOCS_INTERSPHINX") == "1":
    intersphinx_mapping = {
        "sklearn": ("https://scikit-learn.org/stable/", None),
        "numpy": ("https://numpy.org/doc/stable/", None),
        "python": ("https://docs.python.org/3/", None),
    }
intersphinx_disabled_reftypes = ["*"]

# links to repository files outside the site: into the checkout (relative to the built page), or
# under this URL when set (e.g. a forge's "blob/main/")
svmbench_repository_url = os.environ.get("SVMBENCH_REPOSITORY_URL")
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"
