"""What became of the cells of a run: one outcome per cell, counted at the end of a sweep, and the
text that lists the failed cells with how to re-run each (svmbench.runner returns them,
svmbench.callbacks.FailedCells counts and prints them)."""

from svmbench.capabilities import UNSUITABLE

# what became of a cell in a sweep (counted at its end, svmbench.callbacks.FailedCells)
TRAINED, REUSED, FAILED, CLAIMED = "trained", "reused", "failed", "claimed by another process"
OUTCOMES = (TRAINED, REUSED, FAILED, UNSUITABLE, CLAIMED)
# the environment variable naming a file each sweep's end appends its outcome counts to, one JSON
# object a line (svmbench.walltime sets it, so that a timed artefact says how many of its cells
# it trained and how many an earlier sweep had trained)
OUTCOME_LOG_ENV = "SVMBENCH_OUTCOME_LOG"


def describe_failures(summaries):
    """The text listing each failed cell, its error and how to re-run it."""
    lines = [f"{len(summaries)} cell(s) failed:"]
    for summary in summaries:
        lines += [f"- {summary['cell']} (folds {summary['folds']}): {'; '.join(summary['error'])}",
                  f"  re-run: {summary['rerun']}"]
    return "\n".join(lines)
