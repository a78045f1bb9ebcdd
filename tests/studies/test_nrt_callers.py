"""studies/nrt_callers.py: a return address is charged to the function whose code holds it, and
the report divides each caller's reference-count calls by its own calls and by the mark's."""

from hypothesis import given
from hypothesis import strategies as st
from study_modules import load_study

nrt_callers = load_study("nrt_callers")

FUNCTIONS = [(0x1000, 0x100, "svmbench.a"), (0x1100, 0x10, "NRT_incref"),
             (0x1200, 0x80, "svmbench.b")]


def test_caller_is_the_function_holding_the_address():
    assert nrt_callers.caller_of(FUNCTIONS, 0x1000) == "svmbench.a"
    assert nrt_callers.caller_of(FUNCTIONS, 0x10FF) == "svmbench.a"
    assert nrt_callers.caller_of(FUNCTIONS, 0x1100) == "NRT_incref"
    assert nrt_callers.caller_of(FUNCTIONS, 0x127F) == "svmbench.b"


def test_an_address_outside_every_function_is_shown_as_is():
    assert nrt_callers.caller_of(FUNCTIONS, 0x0FFF) == "0xfff"
    assert nrt_callers.caller_of(FUNCTIONS, 0x1110) == "0x1110"  # between functions
    assert nrt_callers.caller_of(FUNCTIONS, 0x1280) == "0x1280"  # past the last one


@given(st.lists(st.integers(0, 0x2000), max_size=50))
def test_caller_of_agrees_with_a_linear_search(addresses):
    for address in addresses:
        holders = [name for start, size, name in FUNCTIONS if start <= address < start + size]
        assert nrt_callers.caller_of(FUNCTIONS, address) == (holders[0] if holders
                                                             else f"{address:#x}")


def test_tally_adds_calls_and_live_calls_per_caller():
    lines = ["call 4096 0 30", "call 4200 1 10", "call 4608 0 5", "mark svmbench.b 5",
             "mark svmbench.a 2"]
    callers, entries = nrt_callers.tally(FUNCTIONS, lines)
    assert callers == {"svmbench.a": [40, 10], "svmbench.b": [5, 0]}
    assert entries == {"svmbench.b": 5, "svmbench.a": 2}


def test_report_divides_by_own_calls_and_by_the_mark():
    callers = {"svmbench.a": [40, 10], "svmbench.b": [5, 0]}
    text = nrt_callers.report(callers, {"svmbench.a": 2, "svmbench.b": 5}, "b")
    rows = [line for line in text.splitlines() if line.startswith("| ") and "calls |" not in line
            and "---" not in line]
    assert text.splitlines()[0] == "window: 5 calls of b"
    assert rows[0] == "| 40 | 25.0 | 20.0 | 8.0 | svmbench.a |"
    assert rows[1] == "| 5 | 0.0 | 1.0 | 1.0 | svmbench.b |"
    assert rows[2] == "| 45 | 22.2 | | 9.0 | all |"


def test_gdb_breaks_on_the_reference_counts_and_on_svmbench_entries_only():
    functions = FUNCTIONS + [(0x1300, 0x10, "NRT_decref"), (0x1400, 0x20, "cpython.svmbench.a"),
                             (0x1500, 0x20, "numba.np.other")]
    assert nrt_callers.breakpoints(functions) == [(0x1000, "svmbench.a"), (0x1100, "NRT_incref"),
                                                  (0x1200, "svmbench.b"), (0x1300, "NRT_decref")]
