"""Shared fixtures: the repository's samples."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(os.environ.get("SSELINT_REPO", Path(__file__).resolve().parents[2]))


@pytest.fixture
def samples() -> Path:
    """The repository's samples/ folder."""
    p = ROOT / "samples"
    assert p.is_dir(), f"{p}: the tests read the repository's samples"
    return p
