"""frank-wolfe-svm (docs/papers.md): Tables 2-8, Figs. 3-8 and the stopping study; experiment configs,
renderers, reference values."""
