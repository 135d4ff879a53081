"""The in-process API (sselint._native): lint, lint_many, lint_arrow, and
their agreement with the CLI's `check --input-format jsonl --format jsonl`
on the same rows."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Set

import pyarrow as pa  # type: ignore[import-untyped]
import pytest

import sselint
from sselint import lint, lint_arrow, lint_many

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-test-FAKE0123456789abcdef"


def test_the_native_module_is_installed_and_the_command_is_the_same() -> None:
    assert sselint.native_available()
    out = subprocess.run([str(sselint.binary()), "--version"], capture_output=True, text=True, check=True)
    from sselint import _native

    assert out.stdout.strip() == f"sselint {_native.VERSION}"


def test_lint_judges_a_body_with_its_http_facts_and_hides_keys(samples: Path) -> None:
    good = (samples / "good" / "openai-basic.sse").read_bytes()
    r = lint(good)
    assert r.ok and r.rules == [] and r.dialects == ["chat"] and r.files[0].path == "0"
    r = lint(
        b'{"error": {"message": "slow down"}}',
        id="row-1",
        status=429,
        headers={"content-type": "application/json", "authorization": f"Bearer {KEY}"},
        request_path="/v1/chat/completions",
    )
    assert r.verdict == "fail" and r.rules == ["http-status"] and r.files[0].path == "row-1"
    assert KEY not in json.dumps(r.raw)
    assert "path-dialect-mismatch" in lint(good, request_path="/v1/messages").rules
    assert "content-type" in lint(good, headers=[("Content-Type", "text/plain")]).rules
    assert lint(good.decode()).ok, "str is encoded as UTF-8"
    r = lint(None, id="gone")
    assert r.exit_code == 2 and r.verdict == "error" and r.read_errors == [("gone", "the record has no body (it is missing or null)")]
    with pytest.raises(ValueError, match="unknown profile"):
        lint(good, profile="nope")
    with pytest.raises(TypeError, match="unknown option"):
        lint(good, max_bytes=3)


def test_lint_many_keeps_order_and_per_row_profiles_and_bad_rows(samples: Path) -> None:
    good = (samples / "good" / "openai-basic.sse").read_bytes()
    cut = (samples / "bad" / "cut-off.sse").read_bytes()
    rows = lint_many(
        [good, None, cut, b"", bytearray(b"\x80\x81 noise"), good],
        ids=["a", "b", "c", "d", "e", "f"],
        profiles=[None, None, None, None, None, "vllm"],
        statuses=[200, 200, 200, 200, 200, 99],
        jobs=2,
    )
    assert [r.files[0].path for r in rows] == ["a", "b", "c", "d", "e", "f"]
    assert [r.verdict for r in rows] == ["pass", "error", "fail", "fail", "fail", "error"]
    assert rows[2].rules == ["cut-off"] and "empty-body" in rows[3].rules
    assert "not an HTTP status code" in rows[5].read_errors[0][1]
    # The profile differs per row: the same body under vllm reports its profile.
    p = lint_many([good, good], profiles=[None, "vllm"])
    assert [r.profile for r in p] == ["openai", "vllm"]
    with pytest.raises(ValueError, match="2 items for 1 bodies"):
        lint_many([good], ids=["x", "y"])


def _log_rows(n: int, tmp: Path) -> List[Dict[str, Any]]:
    sys.path.insert(0, str(ROOT / "examples" / "scale"))
    try:
        import gateway_log  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    return list(gateway_log.rows(n))


def test_lint_arrow_lint_many_lint_and_the_cli_agree_row_by_row(tmp_path: Path) -> None:
    rows = _log_rows(600, tmp_path)
    rows[5]["body"] = None
    rows[7]["headers"] = "not json"
    # The CLI on the same rows, as a JSON Lines log.
    log = tmp_path / "log.jsonl"
    with open(log, "w", encoding="utf-8") as f:
        for r in rows:
            rec: Dict[str, Any] = {"id": r["request_id"], "status": r["status"], "path": r["path"]}
            try:
                rec["headers"] = json.loads(str(r["headers"]))
            except ValueError:
                rec["headers"] = r["headers"]
            if r["body"] is not None:
                rec["body_base64"] = base64.b64encode(r["body"]).decode()
            f.write(json.dumps(rec) + "\n")
    proc = subprocess.run(
        [str(sselint.binary()), "check", "--input-format", "jsonl", "--format", "jsonl", str(log)],
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr  # rows 5 and 7 are unreadable
    assert KEY not in proc.stdout.decode() + proc.stderr.decode()
    cli = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(cli) == len(rows)
    table = pa.table(
        {
            "request_id": [r["request_id"] for r in rows],
            "provider": [r["provider"] for r in rows],
            "status": pa.array([r["status"] for r in rows], pa.int32()),
            "headers": [r["headers"] for r in rows],
            "path": [r["path"] for r in rows],
            "body": pa.array([r["body"] for r in rows], pa.binary()),
        }
    )
    out = lint_arrow(table, id="request_id", status="status", headers="headers", request_path="path", jobs=2)
    assert isinstance(out, pa.RecordBatch) and out.num_rows == len(rows)
    assert out.schema.names == list(cli[0].keys())
    arrow_rows = out.to_pylist()
    # Row 7's headers are no JSON object: an error row in both, with its own words.
    assert cli[7]["verdict"] == arrow_rows[7]["verdict"] == "error"
    assert "headers" in cli[7]["read_error"] and "headers" in arrow_rows[7]["read_error"]
    cli[7]["read_error"] = arrow_rows[7]["read_error"] = None
    assert arrow_rows == cli
    assert {r["dialect"] for r in cli} >= {"chat", "responses", "messages"}
    assert any(r["rules"] for r in cli) and any(r["verdict"] == "pass" for r in cli)
    # lint_many and lint on the same rows: the same counts and rules.
    many = lint_many(
        [r["body"] for r in rows],
        ids=[str(r["request_id"]) for r in rows],
        statuses=[int(r["status"]) for r in rows],
        headers=[None if i == 7 else str(r["headers"]) for i, r in enumerate(rows)],
        request_paths=[str(r["path"]) for r in rows],
        jobs=2,
    )
    for i, (m, c) in enumerate(zip(many, cli)):
        if i == 7:
            continue
        got = {
            "verdict": m.verdict,
            "errors": m.summary.errors,
            "warnings": m.summary.warnings,
            "infos": m.summary.infos,
            "rules": list(dict.fromkeys(m.rules)),
        }
        want = {k: c[k] for k in got}
        if any(s.omitted for s in m.streams):
            continue  # counts past a rule's cap are in the JSON's omitted
        assert got == want, (i, got, want)
    one = lint(rows[0]["body"], id=str(rows[0]["request_id"]), status=int(rows[0]["status"]),
               headers=str(rows[0]["headers"]), request_path=str(rows[0]["path"]))
    assert one.verdict == cli[0]["verdict"] and list(dict.fromkeys(one.rules)) == cli[0]["rules"]


def test_lint_arrow_full_findings_map_headers_and_a_profile_column(samples: Path) -> None:
    cut = (samples / "bad" / "cut-off.sse").read_bytes()
    good = (samples / "good" / "openai-basic.sse").read_bytes()
    batch = pa.RecordBatch.from_pydict(
        {
            "body": pa.array([cut, good, None], pa.large_binary()),
            "h": pa.array(
                [[("content-type", "text/event-stream")], [("content-type", "text/plain")], None],
                pa.map_(pa.string(), pa.string()),
            ),
            "prof": ["openai", "vllm", None],
        }
    )
    out = lint_arrow(batch, headers="h", profile="prof", findings="full").to_pylist()
    assert [r["id"] for r in out] == ["0", "1", "2"]
    assert out[0]["rules"] == ["cut-off"]
    f = out[0]["findings"][0]
    assert f["rule"] == "cut-off" and f["severity"] == "error" and f["byte_offset"] > 0
    assert "content-type" in out[1]["rules"]
    assert out[2]["read_error"] and out[2]["findings"] == []
    with pytest.raises(ValueError, match="no such column"):
        lint_arrow(batch, body="nope")
    with pytest.raises(TypeError, match="not a status column"):
        lint_arrow(batch, status="prof")
    with pytest.raises(ValueError, match="unknown profile"):
        lint_arrow(pa.RecordBatch.from_pydict({"body": [b"x"], "p": ["nope"]}), profile="p")


def test_the_native_reports_are_those_from_json_builds_from_their_document(samples: Path) -> None:
    # lint_many builds each Report in the native module; Report.from_json
    # over the same document (its `raw`) must give an equal one, field by
    # field, for every sample: findings, choices, tool calls, usage,
    # omitted counts, HTTP facts, provider guesses, HAR files, curl dumps.
    files = sorted(p for p in samples.rglob("*") if p.is_file() and p.suffix in (".sse", ".txt", ".har", ".bin"))
    assert len(files) > 50
    bodies = [p.read_bytes() for p in files]
    reports = lint_many(bodies, ids=[str(p) for p in files], input_format="auto", jobs=2)
    reports += lint_many(
        [bodies[0], None, b'{"error": {}}', b"data: {not json\n\n" * 300],
        statuses=[200, None, 503, None],
        headers=[{"content-type": "text/plain", "authorization": f"Bearer {KEY}"}, None, None, None],
        request_paths=["/v1/messages", None, "/v1/chat/completions", None],
    )
    kinds: Set[str] = set()
    for r in reports:
        again = sselint.Report.from_json(r.raw, r.exit_code)
        assert again == r, r.files[0].path
        assert again.files == r.files and again.summary == r.summary
        kinds.update(k for k, v in [
            ("finding", r.findings), ("tool_call", [c for s in r.streams for c in s.choices if c.tool_calls]),
            ("usage", [s for s in r.streams if s.usage]), ("omitted", [s for s in r.streams if s.omitted]),
            ("http", [s for s in r.streams if s.http]), ("guess", [s for s in r.streams if s.provider_guess]),
            ("error", r.read_errors),
        ] if v)
    assert kinds == {"finding", "tool_call", "usage", "omitted", "http", "guess", "error"}
    assert KEY not in json.dumps([r.raw for r in reports])
    # A report pickles (engines move them between processes) with its document.
    import pickle

    r = lint_many([bodies[0]])[0]
    assert pickle.loads(pickle.dumps(r)) == r and pickle.loads(pickle.dumps(r)).raw == r.raw


def test_bad_rows_get_their_error_and_never_fail_the_batch(samples: Path) -> None:
    import gzip

    good = (samples / "good" / "openai-basic.sse").read_bytes()
    bodies: List[Any] = [
        good,
        b"",
        None,
        bytes(range(256)) * 20_000,  # 5 MB of noise
        gzip.compress(b"data: " + b"x" * 20_000_000),  # decodes past max_decoded_bytes
        b"data: {\"a\": \"\xff\xfe\"}\n\n",
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n" + good,
        good,
    ]
    rows = lint_many(
        bodies,
        headers=[None, None, None, None, None, None, None, "not json"],
        statuses=[200, 200, 200, 200, 200, 200, 200, 200],
        max_decoded_bytes=1_000_000,
        jobs=2,
    )
    assert len(rows) == len(bodies)
    assert rows[0].ok
    assert "empty-body" in rows[1].rules
    assert rows[2].read_errors and rows[2].verdict == "error"
    assert "body-not-sse" in rows[3].rules
    assert "capture-truncated" in rows[4].rules
    assert "invalid-utf8" in rows[5].rules
    assert rows[6].verdict in ("pass", "fail") and not rows[6].read_errors
    assert rows[7].verdict == "error" and "headers" in rows[7].read_errors[0][1]
    out = lint_arrow(
        pa.table({"body": pa.array(bodies, pa.binary()), "h": [None] * 7 + ["not json"]}),
        headers="h",
        max_decoded_bytes=1_000_000,
    ).to_pylist()
    assert [o["verdict"] for o in out] == [r.verdict for r in rows]
    # The row's rules also name those past a rule's cap (counted in omitted).
    assert [o["rules"] for o in out] == [list(dict.fromkeys(r.rules + [k for s in r.streams for k in s.omitted])) for r in rows]


def test_a_time_out_is_that_row_s_read_error_and_the_batch_goes_on(samples: Path) -> None:
    good = (samples / "good" / "openai-basic.sse").read_bytes()
    cut = (samples / "bad" / "cut-off.sse").read_bytes()
    # timeout_ms=0: every body is past its time as soon as it is read.
    rows = lint_many([good, None, cut], ids=["a", "b", "c"], timeout_ms=0)
    assert [r.verdict for r in rows] == ["error"] * 3
    assert "time-out" in rows[0].read_errors[0][1] and "time-out" in rows[2].read_errors[0][1]
    assert "no body" in rows[1].read_errors[0][1]
    out = lint_arrow(pa.table({"body": [good, None]}), timeout_ms=0).to_pylist()
    assert "time-out" in out[0]["read_error"] and "no body" in out[1]["read_error"]
    # A long body runs out of time; the rows around it are judged as without
    # a time-out. (40 MB of chunks: about 0.4 s of lint on the project's
    # machine, ten times the time-out; a small body takes under 0.1 ms.)
    chunk = b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}\n\n'
    long = chunk * (40_000_000 // len(chunk))
    bodies = [good, long, cut]
    timed = lint_many(bodies, ids=["g", "long", "c"], timeout_ms=40, jobs=1)
    plain = lint_many([good, cut], ids=["g", "c"], jobs=1)
    assert [timed[0], timed[2]] == plain
    assert timed[1].verdict == "error" and "time-out" in timed[1].read_errors[0][1]
    with pytest.raises(TypeError, match="unknown option"):
        lint(good, timeout=3)
