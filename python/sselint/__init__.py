"""Lint captured LLM streaming responses from Python.

This package lints in this process, through the wheel's native module
``sselint._native`` (nothing here reaches the network), and returns the
report as typed Python data::

    import sselint

    report = sselint.check("captures/run1.sse")          # a path (str or Path)
    report = sselint.check(body_bytes)                   # a capture's contents (bytes)
    if not report.ok:
        for f in report.findings:
            print(f)

In tests, :func:`sselint.testing.assert_conforms` fails with the human
report as its message. :func:`check_many` lints many captures at once. At
scale, :func:`lint_many` lints many bodies with their HTTP facts and
:func:`lint_arrow` a pyarrow batch, one result row per row
(docs/scale.md).
"""

from ._report import (
    Choice,
    FailOn,
    FileReport,
    Finding,
    Http,
    ProviderGuess,
    Report,
    Severity,
    Stream,
    Summary,
    ToolCall,
    Verdict,
)
from ._lint import lint, lint_arrow, lint_many, native_available
from ._run import ENV_BIN, Error, Source, binary, check, check_many
from .testing import assert_conforms

__all__ = [
    "ENV_BIN",
    "Choice",
    "Error",
    "FailOn",
    "FileReport",
    "Finding",
    "Http",
    "ProviderGuess",
    "Report",
    "Severity",
    "Source",
    "Stream",
    "Summary",
    "ToolCall",
    "Verdict",
    "assert_conforms",
    "binary",
    "check",
    "check_many",
    "lint",
    "lint_arrow",
    "lint_many",
    "native_available",
]
