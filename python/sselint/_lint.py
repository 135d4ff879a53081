"""Linting in process: the native module ``sselint._native`` (Rust, built
into the wheel), with the GIL released while it runs.

Every row goes through the steps ``sselint check --input-format jsonl``
takes for a log record (docs/scale.md), so its result is the CLI's.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ._report import FailOn, Report

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow  # type: ignore[import-untyped]

Body = Union[bytes, bytearray, memoryview, str, None]
"""A body: its bytes (``str`` is encoded as UTF-8); ``None`` is a row with
no body (its report has a read error)."""

Headers = Union[Mapping[str, str], Sequence[Tuple[str, str]], str, None]
"""Response headers: a mapping, ``(name, value)`` pairs, or a JSON object
as text. Secret values (``authorization``, keys, cookies) are redacted on
reading and never appear in a report."""

Rules = Union[str, Sequence[str]]

_LIMITS = ("max_event_bytes", "max_decoded_bytes", "stall_ms", "timeout_ms")


def native_available() -> bool:
    """Whether the native module is installed (it is, in the wheel)."""
    try:
        from . import _native  # noqa: F401
    except ImportError:
        return False
    return True


def _native_mod() -> Any:
    from . import _native

    return _native


def _bytes(b: Body) -> Optional[bytes]:
    if b is None:
        return None
    if isinstance(b, bytes):
        return b
    if isinstance(b, str):
        return b.encode("utf-8")
    if isinstance(b, (bytearray, memoryview)):
        return bytes(b)
    raise TypeError(f"a body is bytes, str or None, not {type(b).__name__}")


def _pairs(h: Union[Mapping[str, str], Sequence[Tuple[str, str]]]) -> List[Tuple[str, str]]:
    if isinstance(h, Mapping):
        return [(str(k), str(v)) for k, v in h.items()]
    return [(str(k), str(v)) for k, v in h]


def _rules(v: Optional[Rules]) -> List[str]:
    if v is None:
        return []
    if isinstance(v, str):
        return [x for x in v.split(",") if x]
    return list(v)


def _opts(
    profile: Optional[str],
    dialect: Optional[str],
    select: Optional[Rules],
    ignore: Optional[Rules],
    fail_on: Optional[FailOn],
    config: Optional["os.PathLike[str] | str"],
    find_config: bool,
    limits: Dict[str, Any],
) -> Dict[str, Any]:
    unknown = set(limits) - set(_LIMITS)
    if unknown:
        raise TypeError(f"unknown option(s) {sorted(unknown)}; the limits are {', '.join(_LIMITS)}")
    return {
        "profile": profile,
        "dialect": dialect,
        "select": _rules(select),
        "ignore": _rules(ignore),
        "fail_on": fail_on,
        "config": None if config is None else os.fspath(config),
        "find_config": find_config,
        **{k: limits.get(k) for k in _LIMITS},
    }


def lint(
    body: Body,
    *,
    id: Optional[str] = None,
    status: Optional[int] = None,
    headers: Headers = None,
    request_path: Optional[str] = None,
    input_format: str = "sse",
    dialect: Optional[str] = None,
    profile: Optional[str] = None,
    fail_on: FailOn = "error",
    config: Optional["os.PathLike[str] | str"] = None,
    select: Optional[Rules] = None,
    ignore: Optional[Rules] = None,
    **limits: int,
) -> Report:
    """Lints one body in this process and returns its :class:`Report`.

    ``body`` is the streamed body (``bytes``; ``str`` is encoded as UTF-8;
    ``None`` gives a report whose ``read_errors`` say so). ``status``,
    ``headers`` and ``request_path`` are the HTTP facts a gateway kept:
    an error status is ``http-status``, the ``Content-Type`` header
    decides ``content-type``, the path tells the dialect. ``id`` names the
    report's file (default ``"0"``). ``input_format`` is how the body is
    read: ``"sse"`` (a raw body), ``"curl"``, ``"har"`` or ``"auto"``.
    ``config`` is a ``sselint.toml`` (none is looked for);
    ``max_event_bytes``, ``max_decoded_bytes`` and ``stall_ms`` are
    ``sselint check``'s limits. ``timeout_ms`` bounds the time one body
    may take (default: none): a body that takes longer gets a report
    whose ``read_errors`` say so (``exit_code`` 2) instead of its findings.

    The report's ``exit_code`` is 0, 1 (a finding reached ``fail_on``) or
    2 (the body could not be read); nothing is raised for a bad body.
    Raises ``ValueError`` for an unknown profile, rule, dialect or option.
    """
    extra: Dict[str, Any] = dict(limits)
    return lint_many(
        [body],
        ids=None if id is None else [id],
        statuses=None if status is None else [status],
        headers=None if headers is None else [headers],
        request_paths=None if request_path is None else [request_path],
        jobs=1,
        input_format=input_format,
        dialect=dialect,
        profile=profile,
        fail_on=fail_on,
        config=config,
        select=select,
        ignore=ignore,
        **extra,
    )[0]


def lint_many(
    bodies: Iterable[Body],
    *,
    ids: Optional[Sequence[str]] = None,
    statuses: Optional[Sequence[Optional[int]]] = None,
    headers: Optional[Sequence[Headers]] = None,
    request_paths: Optional[Sequence[Optional[str]]] = None,
    profiles: Optional[Sequence[Optional[str]]] = None,
    jobs: Optional[int] = None,
    input_format: str = "sse",
    dialect: Optional[str] = None,
    profile: Optional[str] = None,
    fail_on: FailOn = "error",
    config: Optional["os.PathLike[str] | str"] = None,
    select: Optional[Rules] = None,
    ignore: Optional[Rules] = None,
    **limits: int,
) -> List[Report]:
    """Lints many bodies in this process on ``jobs`` threads (default: all
    cores) and returns one :class:`Report` per body, in order.

    The per-row sequences, when given, have one item per body: ``ids``
    (default: the row's index), ``statuses``, ``headers``,
    ``request_paths``, ``profiles`` (a row's profile; ``None`` takes
    ``profile``). A ``None`` body, an unreadable fact or a body that
    takes longer than ``timeout_ms`` is that row's read error
    (``exit_code`` 2); it never fails the batch. Other options as for
    :func:`lint`.
    """
    native = _native_mod()
    data = [_bytes(b) for b in bodies]
    # JSON text is read by the native module: a bad one is the row's error.
    hs = None if headers is None else [h if h is None or isinstance(h, str) else _pairs(h) for h in headers]
    opts = _opts(profile, dialect, select, ignore, fail_on, config, False, limits)
    reports: List[Report] = native.lint_many(
        data,
        None if ids is None else [str(i) for i in ids],
        None if statuses is None else [None if s is None else int(s) for s in statuses],
        hs,
        None if request_paths is None else list(request_paths),
        None if profiles is None else list(profiles),
        jobs,
        input_format=input_format,
        **opts,
    )
    return reports


def lint_arrow(
    batch: "pyarrow.RecordBatch | pyarrow.Table",
    *,
    body: str = "body",
    id: Optional[str] = None,
    status: Optional[str] = None,
    headers: Optional[str] = None,
    request_path: Optional[str] = None,
    profile: Optional[str] = None,
    findings: str = "rules",
    jobs: Optional[int] = None,
    dialect: Optional[str] = None,
    fail_on: FailOn = "error",
    config: Optional["os.PathLike[str] | str"] = None,
    select: Optional[Rules] = None,
    ignore: Optional[Rules] = None,
    **limits: int,
) -> "pyarrow.RecordBatch":
    """Lints every row of a pyarrow ``RecordBatch`` (or ``Table``) in this
    process and returns a ``RecordBatch`` with one result row per input
    row, in order.

    The arguments name columns: ``body`` (binary or string), ``id``
    (string or integer; default: the row's index), ``status`` (integer),
    ``headers`` (``map<string, string>``, or JSON objects as text),
    ``request_path`` (string). ``profile`` is a column of profile names
    when the batch has a column of that name, else the profile of every
    row. The batch crosses by the Arrow C data interface: the bodies are
    read where pyarrow keeps them.

    The result's columns are ``id, verdict, errors, warnings, infos,
    dialect, ending, provider_guess, answer_chars, rules, read_error``
    (the fields of ``sselint check --format jsonl``), and with
    ``findings="full"`` also ``findings``: a list of structs ``rule,
    severity, message, event_index, byte_offset``. A null body, an
    unreadable fact or a row that takes longer than ``timeout_ms`` (a
    limit as for :func:`lint`) is that row's ``read_error``; it never
    fails the batch.
    """
    import pyarrow as pa

    if findings not in ("rules", "full"):
        raise ValueError(f'findings={findings!r}: use "rules" or "full"')
    if isinstance(batch, pa.Table):
        # Batch by batch: the bodies stay in the table's own buffers.
        batches = batch.to_batches() or [pa.RecordBatch.from_pylist([], schema=batch.schema)]
        parts = [
            lint_arrow(
                b, body=body, id=id, status=status, headers=headers, request_path=request_path,
                profile=profile, findings=findings, jobs=jobs, dialect=dialect, fail_on=fail_on,
                config=config, select=select, ignore=ignore, **limits,
            )
            for b in batches
        ]
        if len(parts) == 1:
            return parts[0]
        return pa.Table.from_batches(parts).combine_chunks().to_batches()[0]
    if not isinstance(batch, pa.RecordBatch):
        raise TypeError(f"lint_arrow takes a pyarrow RecordBatch or Table, not {type(batch).__name__}")
    names = batch.schema.names
    profile_column = profile if profile is not None and profile in names else None
    opts = _opts(None if profile_column else profile, dialect, select, ignore, fail_on, config, False, limits)
    return _native_mod().lint_arrow(
        batch, body, id, status, headers, request_path, profile_column,
        findings == "full", jobs, **opts,
    )
