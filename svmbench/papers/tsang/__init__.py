"""multiplicative-rho-svm (docs/papers.md): Fig. 1, Tables 2-3; experiment configs, renderers,
reference values."""
