"""Analysis layer: significance tests (``stats``), paper-style tables (``tables``), figures
(``plots``) and the papers' published values (``reference``). Reads run records only."""
