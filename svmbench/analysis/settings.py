"""Side by side means same settings: which settings the cells shown together on one data set
differ in, so that a table, a report or a sweep says so by key and value.

The keys compared (:data:`COMPARED`) are those that change the problem or its stopping point:
the kernel, its width, C and the tolerance. A value tuned per fold (nested CV's ``selected_<key>``)
is the protocol's choice, not a setting, and an algorithm without the key (GS-SVM has no C) is
not compared on it.
"""

import math

COMPARED = ("kernel", "gamma", "C", "tol")


def differing_settings(records, label="algorithm", keys=COMPARED):
    """{dataset: {key: {label: value}}} for every data set and key whose configured value
    differs between the ``label``s shown side by side (a DataFrame of records, one column per
    setting)."""
    found = {}
    for dataset, group in records.groupby("dataset", sort=True):
        for key in keys:
            if key not in group or _tuned(group, key):
                continue
            values = {name: _shown(cells[key]) for name, cells in group.groupby(label, sort=True)
                      if cells[key].notna().any()}
            if len(set(values.values())) > 1:
                found.setdefault(dataset, {})[key] = values
    return found


def _tuned(group, key):
    selected = f"selected_{key}"
    return selected in group and group[selected].notna().any()


def _shown(values):
    """One cell's value of a setting (several, joined, where its folds differ)."""
    distinct = sorted({_text(value) for value in values.dropna()})
    return distinct[0] if len(distinct) == 1 else " / ".join(distinct)


def _text(value):
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return str(int(value)) if abs(value) >= 1 else repr(value)
    return str(value)


def differences_note(differences):
    """Markdown lines naming the differing settings by key and value, one line per distinct
    difference with the data sets it holds on."""
    grouped = {}
    for dataset, keys in differences.items():
        text = "; ".join(
            f"{key} differs ({', '.join(f'{name} {value}' for name, value in values.items())})"
            for key, values in keys.items())
        grouped.setdefault(text, []).append(dataset)
    return [f"- {', '.join(datasets)}"
            + (f" ({len(datasets)} data sets)" if len(datasets) > 1 else "") + f": {text}"
            for text, datasets in grouped.items()]


def pair_difference(differences, dataset, first, second):
    """' (settings differ: gamma 0.05 vs scale)' when ``first`` and ``second`` differ on
    ``dataset``, else ''."""
    keys = differences.get(dataset, {})
    parts = [f"{key} {values[first]} vs {values[second]}" for key, values in keys.items()
             if first in values and second in values and values[first] != values[second]]
    return f" (settings differ: {', '.join(parts)})" if parts else ""


def sweep_defaults_conflicts(jobs, defaults_of, keys=COMPARED):
    """{key: {algorithm: default}} for every key a sweep over algorithms leaves unset in some job
    while those jobs' algorithms default it differently. ``jobs``: each job's overrides (Hydra's
    ``key=value`` strings); ``defaults_of(name)``: an algorithm config's keys and defaults."""
    unset = {}
    for job in jobs:
        overrides = dict(override.lstrip("+").split("=", 1) for override in job if "=" in override)
        name = overrides.get("algorithm")
        if name is None:
            continue
        defaults = defaults_of(name)
        for key in keys:
            if key in defaults and f"algorithm.{key}" not in overrides:
                unset.setdefault(key, {})[name] = _text(defaults[key])
    return {key: values for key, values in unset.items() if len(set(values.values())) > 1}
