"""Running the bundled ``sselint`` binary."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from ._lint import native_available
from ._report import FailOn, Report

Source = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]"]
"""What :func:`check` lints: ``bytes`` (and ``bytearray``, ``memoryview``)
are the capture's contents; ``str`` and ``os.PathLike`` are a path."""

PathLike = Union[str, "os.PathLike[str]"]
Rules = Union[str, Sequence[str]]

ENV_BIN = "SSELINT_BIN"
"""Environment variable naming the binary to run instead of the bundled one."""


class Error(Exception):
    """``sselint`` could not lint: a usage error, a bad configuration, an
    input it could not read (exit code 2), or a binary that failed to run.

    ``str(error)`` is sselint's own message.
    """

    def __init__(self, message: str, exit_code: Optional[int] = None, report: Optional[Report] = None):
        super().__init__(message)
        self.message: str = message
        """sselint's message (its standard error), or why it did not run."""
        self.exit_code: Optional[int] = exit_code
        """The binary's exit code (None when it did not run)."""
        self.report: Optional[Report] = report
        """The report, when sselint wrote one (an unreadable input among
        readable ones)."""


def binary() -> Path:
    """The ``sselint`` executable this module runs.

    In order: ``$SSELINT_BIN``; ``sselint`` in this environment's scripts
    directory (where installing the wheel put it); in the user scripts
    directory (``pip install --user``); ``sselint`` on ``PATH``.
    Raises :class:`Error` when none exists.
    """
    env = os.environ.get(ENV_BIN)
    if env:
        p = Path(env)
        if not p.is_file():
            raise Error(f"{ENV_BIN}={env}: no such file")
        return p
    exe = "sselint.exe" if os.name == "nt" else "sselint"
    dirs: List[str] = []
    for scheme in (None, f"{os.name}_user"):
        try:
            d = sysconfig.get_path("scripts") if scheme is None else sysconfig.get_path("scripts", scheme)
        except KeyError:
            continue
        if d:
            dirs.append(d)
    for d in dirs:
        p = Path(d) / exe
        if p.is_file():
            return p
    found = shutil.which("sselint")
    if found:
        return Path(found)
    raise Error(
        "the sselint executable was not found in "
        + ", ".join(dirs)
        + f" or on PATH; install the wheel (pip install sselint) or set {ENV_BIN}"
    )


def _rules(v: Optional[Rules]) -> Optional[str]:
    if v is None:
        return None
    return v if isinstance(v, str) else ",".join(v)


def _options(
    profile: Optional[str],
    dialect: Optional[str],
    select: Optional[Rules],
    ignore: Optional[Rules],
    fail_on: Optional[FailOn],
    config: Optional[PathLike],
    input_format: Optional[str],
) -> List[str]:
    args: List[str] = []
    for flag, value in (
        ("--profile", profile),
        ("--dialect", dialect),
        ("--select", _rules(select)),
        ("--ignore", _rules(ignore)),
        ("--fail-on", fail_on),
        ("--input-format", input_format),
    ):
        if value is not None:
            args += [flag, value]
    if config is not None:
        args += ["--config", os.fspath(config)]
    return args


# How a line of an event stream starts (WHATWG HTML 9.2.6: a field name and
# a colon, or a colon for a comment): a str that starts so and names no file
# is capture text passed where a path goes.
_SSE_LINE_STARTS = ("data:", "event:", "id:", "retry:", ":")


def _path_arg(p: PathLike) -> str:
    """A path as an INPUT argument: never a URL (the Python API does not
    reach the network) and never `-` (stdin)."""
    if isinstance(p, (bytes, bytearray, memoryview)):
        raise TypeError("a path is a str or os.PathLike; bytes are a capture's contents")
    s = os.fspath(p)
    if not isinstance(s, str):
        raise TypeError(f"a path is a str or os.PathLike, not {type(s).__name__}")
    if "\n" in s or "\r" in s:
        raise TypeError(
            "a str is a path, and this one holds a line break: to lint capture text, "
            "pass bytes (text.encode()) instead"
        )
    if not os.path.exists(s) and s.lstrip().startswith(_SSE_LINE_STARTS):
        raise TypeError(
            f"a str is a path, and {s[:40]!r} is no file but reads like an SSE line: "
            "to lint capture text, pass bytes (text.encode()) instead"
        )
    low = s.lower()
    if low.startswith(("http://", "https://")):
        raise ValueError(
            f"{s}: the Python API lints captures, not live URLs; "
            "record one with `sselint record URL -o capture.har`"
        )
    if s == "-":
        return os.path.join(".", "-")
    return s


def _exec(args: List[str], stdin: Optional[bytes], timeout: Optional[float]) -> "subprocess.CompletedProcess[bytes]":
    exe = binary()
    try:
        return subprocess.run(
            [str(exe), *args],
            input=stdin if stdin is not None else None,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except OSError as e:
        raise Error(f"{exe}: could not run: {e}") from e


def _message(proc: "subprocess.CompletedProcess[bytes]") -> str:
    err = proc.stderr.decode("utf-8", "replace").strip()
    return err or f"sselint exited with code {proc.returncode} and said nothing"


def _parse(text: bytes, proc: "subprocess.CompletedProcess[bytes]") -> Dict[str, Any]:
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise Error(f"{_message(proc)}\n(no JSON report: {e})", proc.returncode) from None
    if not isinstance(doc, dict) or doc.get("version") != 1:
        raise Error(f"unexpected JSON report version: {doc.get('version') if isinstance(doc, dict) else doc!r}")
    return doc


def _run(
    inputs: List[str],
    stdin: Optional[bytes],
    options: List[str],
    human: bool,
    timeout: Optional[float],
) -> "tuple[Dict[str, Any], subprocess.CompletedProcess[bytes], Optional[str]]":
    if not human:
        proc = _exec(["check", "--format", "json", *options, "--", *inputs], stdin, timeout)
        if proc.returncode not in (0, 1, 2):
            raise Error(_message(proc), proc.returncode)
        if proc.returncode == 2 and not proc.stdout.strip():
            raise Error(_message(proc), 2)
        return _parse(proc.stdout, proc), proc, None
    with tempfile.TemporaryDirectory(prefix="sselint-") as tmp:
        out = Path(tmp) / "report.json"
        proc = _exec(
            ["check", "--color", "never", "--report", f"json={out}", *options, "--", *inputs],
            stdin,
            timeout,
        )
        if proc.returncode not in (0, 1, 2) or not out.is_file():
            raise Error(_message(proc), proc.returncode)
        doc = _parse(out.read_bytes(), proc)
    return doc, proc, proc.stdout.decode("utf-8", "replace")


def check(
    source: Source,
    *,
    profile: Optional[str] = None,
    dialect: Optional[str] = None,
    select: Optional[Rules] = None,
    ignore: Optional[Rules] = None,
    fail_on: Optional[FailOn] = None,
    config: Optional[PathLike] = None,
    input_format: Optional[str] = None,
    human: bool = False,
    timeout: Optional[float] = None,
) -> Report:
    """Lints one capture and returns the report.

    ``source`` is either the capture's **contents** as ``bytes`` (or
    ``bytearray``/``memoryview``), e.g. ``Path("x.sse").read_bytes()`` or
    ``text.encode()``, or a **path** as ``str`` or ``os.PathLike`` (a file,
    or a directory: every capture inside). A ``str`` is never read as
    capture text: one holding a line break raises :class:`TypeError`, and
    an ``http(s)://`` URL raises :class:`ValueError` (nothing here reaches
    the network). Contents are sent on standard input, so the report names
    the file ``"-"``.

    The options are ``sselint check``'s: ``profile`` (``--profile``),
    ``dialect`` (``chat``, ``responses``, ``messages``), ``select`` and
    ``ignore`` (rule names, codes or groups: a comma-separated ``str`` or a
    sequence), ``fail_on`` (default: ``sselint.toml``'s, else
    ``"error"``), ``config`` (a ``sselint.toml``; default: the one found
    upward from the current directory), ``input_format`` (``sse``,
    ``curl``, ``har``). ``human=True`` also keeps the human report in
    ``Report.human``. ``timeout`` (seconds) stops a run that takes longer
    (``subprocess.TimeoutExpired``).

    Raises :class:`Error` when sselint exits 2 (a usage error, a bad
    configuration, an input it cannot read).
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        inputs, stdin = ["-"], bytes(source)
    else:
        inputs, stdin = [_path_arg(source)], None
    if not human and timeout is None and native_available():
        report = _native_check(inputs, stdin, profile, dialect, select, ignore, fail_on, config, input_format)
        if report.exit_code == 2:
            raise Error(_read_error_message(report), 2, report)
        return report
    opts = _options(profile, dialect, select, ignore, fail_on, config, input_format)
    doc, proc, text = _run(inputs, stdin, opts, human, timeout)
    report = Report.from_json(doc, proc.returncode, human=text)
    if proc.returncode == 2:
        raise Error(_message(proc), 2, report)
    return report


def _native_check(
    inputs: List[str],
    stdin: Optional[bytes],
    profile: Optional[str],
    dialect: Optional[str],
    select: Optional[Rules],
    ignore: Optional[Rules],
    fail_on: Optional[FailOn],
    config: Optional[PathLike],
    input_format: Optional[str],
) -> Report:
    """``sselint check --format json`` in this process: the native module
    lints ``inputs`` (or ``stdin``, named ``-``) as the executable would,
    with the ``sselint.toml`` found upward unless ``config`` names one."""
    from . import _native

    opts: Dict[str, Any] = {
        "profile": profile,
        "dialect": dialect,
        "select": [] if select is None else _rules(select).split(","),  # type: ignore[union-attr]
        "ignore": [] if ignore is None else _rules(ignore).split(","),  # type: ignore[union-attr]
        "fail_on": fail_on,
        "config": None if config is None else os.fspath(config),
        "find_config": True,
        "input_format": input_format or "auto",
        "max_event_bytes": None,
        "max_decoded_bytes": None,
        "stall_ms": None,
        "timeout_ms": None,
    }
    try:
        if stdin is not None:
            (report,) = _native.lint_many([stdin], ["-"], None, None, None, None, 1, **opts)
            return report
        doc, code = _native.check_paths(inputs, None, **opts)
    except ValueError as e:
        raise Error(f"sselint: error: {e}", 2) from None
    return Report.from_json(json.loads(doc), int(code))


def _read_error_message(report: Report) -> str:
    return "\n".join(f"sselint: error: {'<stdin>' if p == '-' else p}: {m}" for p, m in report.read_errors)


def _belongs(file_path: str, directory: str) -> bool:
    """Whether sselint's report of ``file_path`` came from the input
    ``directory`` (it names the captures it found inside as
    ``DIRECTORY/NAME``, and an empty directory by its own name)."""
    base = directory.rstrip("/" + os.sep) or directory
    return file_path in (directory, base) or file_path.startswith((base + "/", base + os.sep))


def check_many(
    paths: Iterable[PathLike],
    *,
    profile: Optional[str] = None,
    dialect: Optional[str] = None,
    select: Optional[Rules] = None,
    ignore: Optional[Rules] = None,
    fail_on: FailOn = "error",
    config: Optional[PathLike] = None,
    input_format: Optional[str] = None,
    timeout: Optional[float] = None,
) -> List[Report]:
    """Lints many captures in one run of sselint and returns one
    :class:`Report` per path, in the order given.

    One process for all paths saves the start-up cost of one per capture
    (docs/performance.md). ``paths`` are files or directories (a
    directory's report holds every capture inside); glob patterns are not
    expanded here (use :mod:`glob`). Options are as for :func:`check`,
    except that ``fail_on`` defaults to ``"error"`` and is always passed
    (each report's ``exit_code`` is computed from its own findings under
    it: 0, 1, or 2 when one of its files could not be read). A path that
    cannot be read does not raise: its report has ``read_errors``.

    Raises :class:`Error` for a usage or configuration error (no report).
    """
    if isinstance(paths, (str, bytes, bytearray, memoryview, os.PathLike)):
        raise TypeError(
            "check_many takes an iterable of paths (a list), not one "
            f"{type(paths).__name__}; for one capture use check()"
        )
    inputs = [_path_arg(p) for p in paths]
    for inp in inputs:
        if not os.path.exists(inp) and any(c in inp for c in "*?["):
            raise ValueError(f"{inp}: check_many does not expand glob patterns; use glob.glob")
    if not inputs:
        return []
    if timeout is None and native_available():
        whole = _native_check(inputs, None, profile, dialect, select, ignore, fail_on, config, input_format)
        doc, proc_code = whole.raw, whole.exit_code
    else:
        opts = _options(profile, dialect, select, ignore, fail_on, config, input_format)
        doc, proc, _ = _run(inputs, None, opts, False, timeout)
        proc_code = proc.returncode
    files: List[Dict[str, Any]] = list(doc.get("files", []))
    reports: List[Report] = []
    i = 0
    for inp in inputs:
        is_dir = os.path.isdir(inp)
        mine: List[Dict[str, Any]] = []
        if is_dir:
            while i < len(files) and _belongs(files[i].get("path", ""), inp):
                mine.append(files[i])
                i += 1
        elif i < len(files):
            mine.append(files[i])
            i += 1
        r = Report.from_json(doc, 0, files=mine)
        code = 2 if r.read_errors else (1 if r.failing(fail_on) else 0)
        reports.append(Report.from_json(doc, code, files=mine))
    if i != len(files):
        raise Error(
            f"could not map sselint's {len(files)} file reports back to {len(inputs)} paths "
            f"(left over: {files[i].get('path')!r})",
            proc_code,
        )
    return reports
