import argparse
import sys

from svmbench.deviations.page import PAGE, render
from svmbench.render import ROOT


def main(argv=None):
    parser = argparse.ArgumentParser(description="Write docs/deviations.md from the committed "
                                                 "tables, outputs and stores.")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when the committed page differs")
    args = parser.parse_args(argv)
    text = render()
    shown = PAGE.relative_to(ROOT)
    if args.check:
        if not PAGE.is_file() or PAGE.read_text() != text:
            sys.exit(f"{shown} is out of date: run python -m svmbench.deviations")
        print(f"{shown} is up to date")
        return
    PAGE.write_text(text)
    print(f"wrote {shown}")


main()
