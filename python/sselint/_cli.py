"""The ``sselint`` command of the wheel: the Rust command line, run in
this process by the native module (same arguments, output and exit codes
as a ``cargo build`` of the binary)."""

from __future__ import annotations

import sys
from typing import List, Optional


def main(argv: Optional[List[str]] = None) -> int:
    """Runs ``sselint`` with ``argv`` (default: ``sys.argv``); returns the
    exit code."""
    import signal

    from . import _native

    # The lint runs outside the interpreter's loop: Ctrl-C stops the
    # process, as it stops the binary (`record` sets its own handler).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    args = list(sys.argv if argv is None else ["sselint", *argv])
    args[0] = "sselint"
    sys.stdout.flush()
    return int(_native.main(args))


if __name__ == "__main__":
    sys.exit(main())
