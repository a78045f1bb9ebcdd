"""gs-svm-tnn2008 (docs/papers.md): Tables II, III, VII and Figs. 2-3; experiment configs, renderers,
reference values."""
