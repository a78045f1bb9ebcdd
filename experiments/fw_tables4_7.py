"""FW paper Tables 4-7 (frank-wolfe-svm §5.6) recomputed from its Tables 2-3.

Thin entry point; the work is in :mod:`svmbench.analysis.fw_tables`. Same as
``python -m svmbench.analysis.fw_tables --out results/fw/tables4-7.md``.
"""

from svmbench.analysis.fw_tables import main

if __name__ == "__main__":
    main()
