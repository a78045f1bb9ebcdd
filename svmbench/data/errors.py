"""The one exception type of the data layer."""


class DataError(ValueError):
    """A data problem; the message names the problem and how to fix it."""
