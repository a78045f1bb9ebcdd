"""The deviations page (docs/deviations.md), generated: every cell of the committed tables that
stays outside its tolerance by the report's rule, under the entry that explains it
(docs/deviations.yaml: prose keyed to cells, whose numbers are read from the tables, the
committed experiment outputs and the stores, never typed) or listed as unexplained.

    python -m svmbench.deviations          # write docs/deviations.md (make deviations)
    python -m svmbench.deviations --check  # exit 1 when the committed page is out of date

Modules: ``cells`` (the compared cells and their keys), ``values`` (placeholders: reading a
number from its source), ``entries`` (docs/deviations.yaml, checked), ``page`` (the Markdown,
and the anchors the report links each deviating cell to).
"""
