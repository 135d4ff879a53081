"""``python -m sselint markdown REPORT.json EXIT_CODE``: a Markdown
summary of a ``check --format json`` report (the GitHub Action writes it
to the job summary). Other commands are the ``sselint`` executable's."""

from __future__ import annotations

import json
import sys
from typing import List, Optional

from ._report import Report


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the command; returns the exit code."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3 or args[0] != "markdown" or not args[2].isdigit():
        sys.stderr.write("usage: python -m sselint markdown REPORT.json EXIT_CODE\n")
        return 2
    with open(args[1], encoding="utf-8") as f:
        doc = json.load(f)
    sys.stdout.write(Report.from_json(doc, int(args[2])).to_markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
