"""gs-svm-pakdd2005 (docs/papers.md): Tables 1-2; experiment configs, renderers, reference values."""
