"""The seed papers, one folder each (docs/papers.md): gs2005 and gs2008 (GS-SVM, PAKDD'05 and
TNN'08), rosen (Rosen's projection), tsang (multiplicative rho-SVM) and fw (CVM / Frank-Wolfe).
A paper's folder holds its experiment configs (``experiment/<artefact>.yaml``, found by Hydra
through svmbench.conf's search path), its renderers (records in, the published table or figure
out; svmbench.render loads them) and its published values (``reference/<paper>_<table>.csv``,
svmbench.analysis.reference). ``_uci.py`` is what the two GS-SVM papers' UCI artefacts share.
Renderers read records and the analysis layer; nothing in the library imports them."""
