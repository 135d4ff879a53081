"""Test helpers: assert that a capture conforms.

Works in any test runner (it raises :class:`AssertionError`); under pytest
the message is the human report, rustc-style, with the offending bytes
underlined.
"""

from __future__ import annotations

from typing import Any

from ._report import FailOn, Report
from ._run import Source, check


def assert_conforms(source: Source, fail_on: FailOn = "error", **options: Any) -> Report:
    """Lints ``source`` and raises :class:`AssertionError` when a finding
    reaches ``fail_on``; returns the report otherwise.

    ``source`` is as for :func:`sselint.check` (``bytes``: the capture's
    contents; ``str`` or ``os.PathLike``: a path). ``options`` are
    :func:`sselint.check`'s keyword arguments (``profile``, ``dialect``,
    ``select``, ``ignore``, ``config``, ``input_format``, ``timeout``).
    An input sselint cannot read raises :class:`sselint.Error`.
    """
    report = check(source, fail_on=fail_on, human=True, **options)
    if report.exit_code != 0:
        raise AssertionError(
            f"the capture does not conform (fail_on={fail_on!r}):\n{(report.human or '').rstrip()}"
        )
    return report


__all__ = ["assert_conforms"]
