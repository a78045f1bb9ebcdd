# The documentation site (docs/, Sphinx + MyST; docs/conf.py). The reference pages are generated
# from the code at every build (docs/_ext/svmbench_reference.py). Warnings are errors, and a link
# to a page, heading or repository path that does not exist is a warning.
.PHONY: docs

## docs: the documentation site -> docs/_build/html/index.html (warnings as errors, every
## internal link checked; offline: intersphinx only with SVMBENCH_DOCS_INTERSPHINX=1)
docs: venv
	$(PY) -m sphinx -b html -E -W --keep-going -q docs docs/_build/html
	@echo "docs/_build/html/index.html"
