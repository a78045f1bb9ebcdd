"""rosen-projection-svm (docs/papers.md): Tables 1-2 and their (C, gamma) choice; experiment configs,
renderers, reference values."""
