"""pytest plugin (entry point ``pytest11``): the ``sselint`` fixture.

Installing the wheel registers it; a test asks for it by name::

    def test_stream(sselint, tmp_path):
        sselint.assert_conforms(tmp_path / "capture.sse")

The fixture is the :mod:`sselint` module itself, so ``sselint.check``,
``sselint.check_many`` and ``sselint.assert_conforms`` are at hand without
an import. ``-p no:sselint`` turns the plugin off.
"""

from __future__ import annotations

import types

import pytest


@pytest.fixture(name="sselint")
def sselint_fixture() -> types.ModuleType:
    """The :mod:`sselint` module."""
    import sselint

    return sselint
