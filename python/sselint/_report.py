"""Typed view of ``sselint check --format json`` (report version 1).

Every class here is a frozen dataclass built from the JSON document that
the ``sselint`` binary prints; the document itself stays available as
``Report.raw``. Fields the binary adds in later versions are kept in
``raw`` and ignored here, so a newer binary does not break this module.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple

Severity = Literal["error", "warning", "info"]
"""A finding's severity."""

FailOn = Literal["error", "warning", "info", "never"]
"""The lowest severity that fails a run (``--fail-on``)."""

Verdict = Literal["pass", "fail", "error"]
"""``pass`` (exit 0), ``fail`` (exit 1: a finding at or above ``fail_on``),
``error`` (exit 2: an input could not be read)."""

_RANK: Dict[str, int] = {"info": 1, "warning": 2, "error": 3, "never": 4}


@dataclass(frozen=True)
class Finding:
    """One diagnostic: a rule that fired at a place in a capture.

    ``line``, ``column`` (Unicode scalar values, from 1) and
    ``byte_offset`` are positions in the file when the stream's
    ``positions`` is ``"file"``, else in the body (HAR entries, ``curl -v``
    dumps, decoded bodies).
    """

    rule: str
    """The rule's stable name, e.g. ``"cut-off"``."""
    code: str
    """The rule's code, e.g. ``"E401"``."""
    severity: Severity
    message: str
    line: Optional[int]
    column: Optional[int]
    byte_offset: Optional[int]
    byte_len: Optional[int]
    event_index: Optional[int]
    """Index of the SSE event it is about, or None for the stream as a whole."""
    pointer: Optional[str]
    """JSON pointer inside the event's data, e.g. ``"/choices/0/delta"``."""
    fingerprint: Optional[str]
    """Identifies the finding across runs (baselines, SARIF)."""
    suppressed: bool
    """True when a ``--baseline`` covers it (it then does not fail the run)."""
    path: str
    """The file it was found in (``"-"`` for bytes passed to :func:`check`)."""
    stream: str
    """The label of the stream it was found in."""

    @classmethod
    def _from_json(cls, d: Mapping[str, Any], path: str, stream: str) -> "Finding":
        return cls(
            rule=d["rule"],
            code=d.get("code", ""),
            severity=d["severity"],
            message=d.get("message", ""),
            line=d.get("line"),
            column=d.get("column"),
            byte_offset=d.get("byte_offset"),
            byte_len=d.get("byte_len"),
            event_index=d.get("event_index"),
            pointer=d.get("pointer"),
            fingerprint=d.get("fingerprint"),
            suppressed=bool(d.get("suppressed", False)),
            path=path,
            stream=stream,
        )

    def reaches(self, fail_on: FailOn) -> bool:
        """Whether this finding fails a run under ``fail_on`` (suppressed
        findings never do)."""
        return not self.suppressed and _RANK[self.severity] >= _RANK[fail_on]

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}:{self.column}"
        return f"{where}: {self.severity}[{self.code}] {self.message} [{self.rule}]"


@dataclass(frozen=True)
class ToolCall:
    """A tool call assembled from a stream's fragments."""

    index: int
    id: Optional[str]
    name: Optional[str]
    arguments: str
    """The arguments as streamed (concatenated): JSON text, maybe invalid."""


@dataclass(frozen=True)
class Choice:
    """The answer of one choice (Responses and Messages streams have only
    choice 0)."""

    index: int
    text: str
    """The answer text (kept up to 1 MiB; see ``text_omitted_bytes``)."""
    refusal: Optional[str]
    reasoning: Optional[str]
    """Reasoning or thinking text, kept apart from the answer."""
    finish_reason: Optional[str]
    """``stop``, ``tool_calls`` …; Responses: the terminal status;
    Messages: the stop_reason; None when none came."""
    tool_calls: Tuple[ToolCall, ...]
    transcript: Optional[str] = None
    """Audio models: the joined ``delta.audio.transcript``."""
    text_omitted_bytes: int = 0

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> "Choice":
        return cls(
            index=d["index"],
            text=d.get("text", ""),
            refusal=d.get("refusal"),
            reasoning=d.get("reasoning"),
            finish_reason=d.get("finish_reason"),
            tool_calls=tuple(
                ToolCall(
                    index=t.get("index", 0),
                    id=t.get("id"),
                    name=t.get("name"),
                    arguments=t.get("arguments", ""),
                )
                for t in d.get("tool_calls", [])
            ),
            transcript=d.get("transcript"),
            text_omitted_bytes=d.get("text_omitted_bytes", 0),
        )


@dataclass(frozen=True)
class Http:
    """The HTTP response a capture recorded (curl dumps, HAR)."""

    status: int
    content_type: Optional[str]


@dataclass(frozen=True)
class ProviderGuess:
    """The provider a stream looks like, and the profile that fits it."""

    profile: str
    provider: str
    evidence: Tuple[str, ...]


@dataclass(frozen=True)
class Stream:
    """One stream of a capture (a HAR file may hold several)."""

    label: str
    dialect: Optional[str]
    """``"chat"``, ``"responses"``, ``"messages"``, or None when the stream
    is of no known dialect."""
    http: Optional[Http]
    events: int
    ending: str
    """``complete``, ``no-done``, ``done-without-finish``, ``cut-off``,
    ``empty`` or ``failed``."""
    positions: str
    """``"file"`` or ``"body"``: what the findings' positions count in."""
    choices: Tuple[Choice, ...]
    usage: Optional[Dict[str, Any]]
    findings: Tuple[Finding, ...]
    """The stream's diagnostics (``diagnostics`` in the JSON)."""
    omitted: Dict[str, int]
    """Findings past the per-rule limit, counted by rule."""
    notes: Tuple[str, ...]
    empty_answer: Optional[str] = None
    """Why choice 0's answer is blank, when it is."""
    provider_guess: Optional[ProviderGuess] = None

    @classmethod
    def _from_json(cls, d: Mapping[str, Any], path: str) -> "Stream":
        label = d.get("label", path)
        http = d.get("http")
        guess = d.get("provider_guess")
        return cls(
            label=label,
            dialect=d.get("dialect"),
            http=Http(http["status"], http.get("content_type")) if http else None,
            events=d.get("events", 0),
            ending=d.get("ending", ""),
            positions=d.get("positions", "file"),
            choices=tuple(Choice._from_json(c) for c in d.get("choices", [])),
            usage=d.get("usage"),
            findings=tuple(
                Finding._from_json(x, path, label) for x in d.get("diagnostics", [])
            ),
            omitted=dict(d.get("omitted", {})),
            notes=tuple(d.get("notes", [])),
            empty_answer=d.get("empty_answer"),
            provider_guess=ProviderGuess(
                guess["profile"], guess["provider"], tuple(guess.get("evidence", []))
            )
            if guess
            else None,
        )

    @property
    def answer(self) -> str:
        """Choice 0's text ("" when the stream has no choice 0)."""
        for c in self.choices:
            if c.index == 0:
                return c.text
        return ""

    @property
    def finish_reason(self) -> Optional[str]:
        """Choice 0's finish reason."""
        for c in self.choices:
            if c.index == 0:
                return c.finish_reason
        return None


@dataclass(frozen=True)
class FileReport:
    """One file the run read (an input, or a capture found in a directory)."""

    path: str
    input_format: Optional[str]
    """``sse``, ``curl`` or ``har`` (None when it could not be read)."""
    error: Optional[str]
    """Why the file could not be read (it then has no streams), else None."""
    streams: Tuple[Stream, ...]

    @classmethod
    def _from_json(cls, d: Mapping[str, Any]) -> "FileReport":
        path = d.get("path", "")
        return cls(
            path=path,
            input_format=d.get("input_format"),
            error=d.get("error"),
            streams=tuple(Stream._from_json(s, path) for s in d.get("streams", [])),
        )


@dataclass(frozen=True)
class Summary:
    """Finding counts of a run (suppressed ones are counted in the three
    severities too)."""

    errors: int
    warnings: int
    infos: int
    suppressed: int


@dataclass(frozen=True)
class Report:
    """What ``sselint check`` found: the JSON report, typed, and how the
    run ended.

    ``exit_code`` is 0 (nothing at or above ``fail_on``), 1 (something
    reached it) or 2 (an input could not be read). :func:`sselint.check`
    raises :class:`sselint.Error` instead of returning a report with exit
    code 2; :func:`sselint.check_many` returns it, with ``read_errors``.
    """

    files: Tuple[FileReport, ...]
    summary: Summary
    exit_code: int
    profile: str
    tool_version: str
    raw: Dict[str, Any] = field(repr=False, compare=False)
    """The JSON document as parsed (for one input of :func:`check_many`:
    the whole run's document)."""
    human: Optional[str] = field(default=None, repr=False, compare=False)
    """The human report (rustc-style), when it was asked for."""

    @classmethod
    def from_json(
        cls,
        doc: Mapping[str, Any],
        exit_code: int,
        human: Optional[str] = None,
        files: Optional[Sequence[Mapping[str, Any]]] = None,
    ) -> "Report":
        """Builds a report from a parsed ``check --format json`` document.

        ``files`` restricts it to some of the document's files (the summary
        is then counted over them alone).
        """
        chosen = doc.get("files", []) if files is None else files
        fr = tuple(FileReport._from_json(f) for f in chosen)
        if files is None:
            s = doc.get("summary", {})
            summary = Summary(
                s.get("errors", 0),
                s.get("warnings", 0),
                s.get("infos", 0),
                s.get("suppressed", 0),
            )
        else:
            fs = [x for f in fr for st in f.streams for x in st.findings]
            summary = Summary(
                sum(x.severity == "error" for x in fs),
                sum(x.severity == "warning" for x in fs),
                sum(x.severity == "info" for x in fs),
                sum(x.suppressed for x in fs),
            )
        return cls(
            files=fr,
            summary=summary,
            exit_code=exit_code,
            profile=doc.get("profile", ""),
            tool_version=doc.get("tool", {}).get("version", ""),
            raw=dict(doc),
            human=human,
        )

    def __getattr__(self, name: str) -> Any:
        # A report the native module built keeps its JSON document as text
        # until ``raw`` is first read (most callers never read it).
        if name == "raw":
            text = self.__dict__.get("_raw_json")
            if text is not None:
                raw = json.loads(text)
                object.__setattr__(self, "raw", raw)
                return raw
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def ok(self) -> bool:
        """True when the run passed (exit code 0)."""
        return self.exit_code == 0

    @property
    def verdict(self) -> Verdict:
        """``pass``, ``fail`` or ``error``, from the exit code."""
        return {0: "pass", 1: "fail"}.get(self.exit_code, "error")  # type: ignore[return-value]

    @property
    def streams(self) -> List[Stream]:
        """Every stream of every file, in order."""
        return [s for f in self.files for s in f.streams]

    @property
    def findings(self) -> List[Finding]:
        """Every finding of every stream, in order."""
        return [x for s in self.streams for x in s.findings]

    @property
    def rules(self) -> List[str]:
        """The names of the rules that fired, in order, with repeats."""
        return [x.rule for x in self.findings]

    @property
    def errors(self) -> List[Finding]:
        """Findings of severity ``error``."""
        return [x for x in self.findings if x.severity == "error"]

    @property
    def warnings(self) -> List[Finding]:
        """Findings of severity ``warning``."""
        return [x for x in self.findings if x.severity == "warning"]

    @property
    def dialects(self) -> List[Optional[str]]:
        """Each stream's dialect, in order (None: no known dialect)."""
        return [s.dialect for s in self.streams]

    @property
    def answer(self) -> str:
        """The first stream's answer (choice 0's text); "" without streams."""
        streams = self.streams
        return streams[0].answer if streams else ""

    @property
    def read_errors(self) -> List[Tuple[str, str]]:
        """``(path, message)`` for each file that could not be read."""
        return [(f.path, f.error) for f in self.files if f.error is not None]

    def failing(self, fail_on: FailOn = "error") -> List[Finding]:
        """The findings that fail a run under ``fail_on``."""
        return [x for x in self.findings if x.reaches(fail_on)]

    def to_markdown(self) -> str:
        """A Markdown table: one row per stream with its verdict, dialect,
        ending and counts, then the read errors (a GitHub job summary)."""
        return _markdown(self)


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _markdown(r: Report) -> str:
    lines = [
        "### sselint",
        "",
        "| stream | dialect | ending | errors | warnings | infos | answer |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for s in r.streams:
        counts = [sum(x.severity == sev for x in s.findings) for sev in ("error", "warning", "info")]
        mark = "❌" if counts[0] else ("⚠️" if counts[1] else "✅")
        answer = s.answer if len(s.answer) <= 60 else s.answer[:57] + "…"
        lines.append(
            f"| {mark} `{_cell(s.label)}` | {s.dialect or 'unknown'} | {s.ending} "
            f"| {counts[0]} | {counts[1]} | {counts[2]} | {_cell(answer)} |"
        )
    for path, err in r.read_errors:
        lines.append(f"| ❌ `{_cell(path)}` | — | could not be read: {_cell(err)} | | | | |")
    t = r.summary
    lines += [
        "",
        f"**{r.verdict}** (exit {r.exit_code}): {len(r.streams)} stream(s), "
        f"{t.errors} error(s), {t.warnings} warning(s), {t.infos} info(s)"
        + (f", {t.suppressed} in the baseline" if t.suppressed else ""),
        "",
    ]
    return "\n".join(lines)
