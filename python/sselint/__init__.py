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

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers read; at run time, see __getattr__
    from ._lint import lint, lint_arrow, lint_many, native_available
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
    from ._run import ENV_BIN, Error, Source, binary, check, check_many
    from .testing import assert_conforms

# Where each public name lives. The names are imported when first used
# (PEP 562), so the ``sselint`` command, which needs none of them, starts
# without importing dataclasses, json and the report types (about 45 ms of
# its start-up, measured in bench/scale.py's start-up run).
_HOME = {
    **dict.fromkeys(["lint", "lint_arrow", "lint_many", "native_available"], "_lint"),
    **dict.fromkeys(
        [
            "Choice",
            "FailOn",
            "FileReport",
            "Finding",
            "Http",
            "ProviderGuess",
            "Report",
            "Severity",
            "Stream",
            "Summary",
            "ToolCall",
            "Verdict",
        ],
        "_report",
    ),
    **dict.fromkeys(["ENV_BIN", "Error", "Source", "binary", "check", "check_many"], "_run"),
    "assert_conforms": "testing",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'sselint' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> "list[str]":
    return sorted(set(globals()) | set(__all__))


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
