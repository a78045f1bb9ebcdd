"""A static, browsable report of every committed artefact (``make report``).

It reads, never trains: the artefacts' Markdown (written by ``svmbench.render``), their figures,
the result stores (which cells ran, their records and commands), ``results/bench/`` and the
leaderboard folders, and writes HTML pages from Jinja2 templates with the CSS and JavaScript
they need beside them (no network at view time).
"""
