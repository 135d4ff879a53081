"""The Python API against the installed wheel's sselint executable."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import sselint
from sselint import Error, Report, check, check_many


def test_the_binary_is_the_one_the_wheel_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSELINT_BIN", raising=False)
    exe = sselint.binary()
    assert exe.parent == Path(sysconfig.get_path("scripts")), exe
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("sselint "), out.stdout


def test_sselint_bin_overrides_and_a_missing_one_is_an_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SSELINT_BIN", str(tmp_path / "nope"))
    with pytest.raises(Error, match="SSELINT_BIN"):
        sselint.binary()


def test_a_clean_capture_passes(samples: Path) -> None:
    r = check(samples / "good" / "openai-basic.sse")
    assert isinstance(r, Report)
    assert r.ok and r.verdict == "pass" and r.exit_code == 0
    assert r.findings == [] and r.summary.errors == 0
    assert r.dialects == ["chat"]
    assert r.answer != ""
    s = r.streams[0]
    assert s.ending == "complete" and s.finish_reason == "stop"
    assert r.files[0].path.endswith("openai-basic.sse") and r.files[0].input_format == "sse"
    assert r.tool_version and r.profile == "openai"


def test_a_cut_off_capture_fails_with_the_finding(samples: Path) -> None:
    r = check(str(samples / "bad" / "cut-off.sse"))
    assert not r.ok and r.verdict == "fail" and r.exit_code == 1
    assert r.rules == ["cut-off"]
    f = r.findings[0]
    assert (f.code, f.severity, f.line, f.column) == ("E401", "error", 17, 295)
    assert f.path.endswith("cut-off.sse") and f.stream == f.path
    assert f.reaches("error") and not f.suppressed
    assert r.errors == [f] and r.warnings == []
    assert r.answer == "To install the package, run `pip install"
    assert r.streams[0].ending == "cut-off" and r.streams[0].finish_reason is None
    assert "cut-off.sse:17:295: error[E401]" in str(f)


def test_bytes_are_the_capture_contents(samples: Path) -> None:
    data = (samples / "bad" / "cut-off.sse").read_bytes()
    for source in (data, bytearray(data), memoryview(data)):
        r = check(source)
        assert r.rules == ["cut-off"] and r.files[0].path == "-"


def test_a_str_is_a_path_never_capture_text(samples: Path) -> None:
    text = (samples / "good" / "openai-basic.sse").read_text()
    with pytest.raises(TypeError, match="pass bytes"):
        check(text)
    with pytest.raises(ValueError, match="not live URLs"):
        check("https://api.example.com/v1/chat/completions")
    with pytest.raises(Error) as e:
        check("-")  # a file named "-", not standard input
    assert e.value.exit_code == 2 and "no such file" in e.value.message
    # One line of capture text (no line break) is not a path either, nor a
    # glob pattern: the same hint as for several lines.
    for one_line in ('data: {"choices":[]}', "event: message_start", ": keep-alive"):
        with pytest.raises(TypeError, match="pass bytes"):
            check(one_line)


def test_an_unreadable_input_raises_error_with_sselints_message(tmp_path: Path) -> None:
    with pytest.raises(Error) as e:
        check(tmp_path / "missing.sse")
    assert e.value.exit_code == 2
    assert "missing.sse: no such file" in str(e.value)
    assert e.value.report is not None and e.value.report.verdict == "error"
    assert e.value.report.read_errors[0][1] == "no such file"


def test_a_usage_error_raises_error_without_a_report(samples: Path) -> None:
    with pytest.raises(Error, match='unknown profile "nope"') as e:
        check(samples / "good" / "openai-basic.sse", profile="nope")
    assert e.value.report is None and e.value.exit_code == 2


def test_options_reach_sselint(samples: Path) -> None:
    cut = samples / "bad" / "cut-off.sse"
    assert check(cut, ignore="cut-off").ok
    assert check(cut, ignore=["cut-off", "framing"]).ok
    assert check(cut, select=["data-no-space"]).findings == []
    assert check(cut, fail_on="never").exit_code == 0
    dns = samples / "bad" / "data-no-space.sse"
    assert check(dns).exit_code == 0 and "data-no-space" in check(dns).rules
    assert check(dns, fail_on="warning").exit_code == 1
    assert check(samples / "good" / "openai-basic.sse", dialect="messages").dialects == ["messages"]


def test_each_dialect_is_named(samples: Path) -> None:
    assert check(samples / "good" / "responses-basic.sse").dialects == ["responses"]
    m = check(samples / "good" / "messages-text.sse")
    assert m.dialects == ["messages"] and m.ok and m.answer


def test_a_har_and_a_curl_dump(samples: Path) -> None:
    har = check(samples / "har" / "chrome.har")
    assert har.files[0].input_format == "har"
    assert har.streams[0].label.startswith("#")
    curl = check(samples / "curl" / "curl-404.txt")
    http = curl.streams[0].http
    assert http is not None and http.status == 404
    assert "http-status" in curl.rules and not curl.ok


def test_tool_calls_are_typed(samples: Path) -> None:
    r = check(samples / "good" / "openai-tool-calls.sse")
    calls = r.streams[0].choices[0].tool_calls
    assert calls and calls[0].name == "get_weather"
    assert json.loads(calls[0].arguments)["location"] == "Paris, France"


def test_human_report_on_request(samples: Path) -> None:
    r = check(samples / "bad" / "cut-off.sse", human=True)
    assert r.human is not None and "error[E401]" in r.human and "\x1b[" not in r.human
    assert r.rules == ["cut-off"]
    assert check(samples / "bad" / "cut-off.sse").human is None


def test_check_many_maps_reports_back_to_each_path(samples: Path, tmp_path: Path) -> None:
    paths: list[str | Path] = [
        samples / "good" / "openai-basic.sse",
        str(samples / "bad" / "cut-off.sse"),
        samples / "har",
        tmp_path / "missing.sse",
        samples / "bad" / "data-no-space.sse",
        samples / "good" / "openai-basic.sse",
    ]
    reports = check_many(paths)
    assert [r.verdict for r in reports] == ["pass", "fail", "error", "error", "pass", "pass"]
    assert reports[1].rules == ["cut-off"] and reports[1].summary.errors == 1
    assert len(reports[2].files) == len(list((samples / "har").iterdir()))
    assert reports[3].read_errors == [(str(tmp_path / "missing.sse"), "no such file")]
    assert reports[4].summary.warnings >= 1
    # Each report matches what check() says of that path alone.
    for p, r in zip(paths, reports):
        if not (isinstance(p, Path) and p.is_dir()) and r.verdict != "error":
            assert check(p, fail_on="error").findings == r.findings
    assert [r.verdict for r in check_many(paths[:2], fail_on="never")] == ["pass", "pass"]
    assert check_many([]) == []
    with pytest.raises(ValueError, match="glob"):
        check_many([str(samples / "good" / "*.sse")])
    # One path instead of a list of them: a str would be iterated one
    # character at a time ("/" is the whole file system).
    for one in (str(samples / "good" / "openai-basic.sse"), samples / "good", b"data: x"):
        with pytest.raises(TypeError, match="iterable of paths"):
            check_many(one)  # type: ignore[arg-type]


def test_assert_conforms(samples: Path) -> None:
    r = sselint.assert_conforms(samples / "good" / "openai-basic.sse")
    assert r.ok
    with pytest.raises(AssertionError) as e:
        sselint.assert_conforms(samples / "bad" / "cut-off.sse")
    msg = str(e.value)
    assert "does not conform" in msg and "error[E401]" in msg and "cut-off.sse:17:295" in msg
    sselint.assert_conforms(samples / "bad" / "data-no-space.sse")
    with pytest.raises(AssertionError, match="data-no-space"):
        sselint.assert_conforms(samples / "bad" / "data-no-space.sse", fail_on="warning")


def test_the_pytest_fixture(sselint: object, samples: Path) -> None:
    import sselint as module

    assert sselint is module
    module.assert_conforms((samples / "good" / "openai-basic.sse").read_bytes())


def test_markdown_summary(samples: Path, tmp_path: Path) -> None:
    r = check_many([samples / "good" / "openai-basic.sse", samples / "bad" / "cut-off.sse"])
    md = r[1].to_markdown()
    assert "| ❌ `" in md and "| chat | cut-off | 1 | 0 | 0 |" in md and "**fail** (exit 1)" in md
    out = subprocess.run(
        [sselint.binary(), "check", "--format", "json", samples / "bad" / "cut-off.sse"],
        capture_output=True,
        check=False,
    )
    (tmp_path / "r.json").write_bytes(out.stdout)
    cli = subprocess.run(
        [sys.executable, "-m", "sselint", "markdown", str(tmp_path / "r.json"), str(out.returncode)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert cli.stdout == Report.from_json(json.loads(out.stdout), 1).to_markdown()


def test_types_are_exported_and_documented() -> None:
    pkg = Path(sselint.__file__).parent
    assert (pkg / "py.typed").is_file()
    for name in sselint.__all__:
        obj = getattr(sselint, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert obj.__doc__, name


def test_nothing_reaches_the_network(samples: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The module only spawns the binary: no socket is opened in-process.
    import socket

    def refuse(*a: object, **k: object) -> None:
        raise AssertionError("socket opened")

    monkeypatch.setattr(socket, "socket", refuse)
    assert check(samples / "good" / "openai-basic.sse").ok


def test_the_wheel_holds_the_package_the_native_module_and_the_command_only() -> None:
    from importlib.metadata import entry_points, files

    names = sorted(str(f) for f in files("sselint") or [])
    assert any(n.endswith("/sselint") or n.endswith("sselint.exe") for n in names if "bin" in n or "Scripts" in n), names
    scripts = [e for e in entry_points(group="console_scripts") if e.name == "sselint"]
    assert [e.value for e in scripts] == ["sselint._cli:main"]
    pkg = [n for n in names if n.startswith("sselint/") and "__pycache__" not in n]
    native = [n for n in pkg if Path(n).name.startswith("_native.") and not n.endswith(".pyi")]
    assert len(native) == 1 and native[0].endswith((".so", ".pyd")), pkg
    assert sorted(Path(n).name for n in pkg if n not in native) == [
        "__init__.py",
        "__main__.py",
        "_cli.py",
        "_lint.py",
        "_native.pyi",
        "_report.py",
        "_run.py",
        "py.typed",
        "pytest_plugin.py",
        "testing.py",
    ], pkg
    assert not [n for n in names if "samples" in n or "tests" in n or n.endswith(".rs")], names


def test_the_command_starts_without_importing_the_api() -> None:
    # The `sselint` command imports `sselint._cli` and the native module
    # only: the report types (dataclasses, json) are imported when a
    # public name is first used.
    code = (
        "import sys, sselint._cli, sselint._native; "
        "print(sorted(m for m in sys.modules if m.startswith('sselint.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['sselint._cli', 'sselint._native']", out.stdout


def test_every_public_name_resolves_and_an_unknown_one_raises() -> None:
    for name in sselint.__all__:
        assert getattr(sselint, name) is not None, name
    assert sselint.Report is Report
    assert set(sselint.__all__) <= set(dir(sselint))
    with pytest.raises(AttributeError, match="no_such_name"):
        getattr(sselint, "no_such_name")
