"""The GitHub Action (action.yml) and the pre-commit hook
(.pre-commit-hooks.yaml), checked without GitHub or a pre-commit
install: the Action's shell steps run here as a runner would run them,
with the installed wheel's sselint; the hook's entry runs on the files
its `files` pattern picks. actionlint checks the example workflow."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest
import yaml

import sselint

ROOT = Path(os.environ.get("SSELINT_REPO", Path(__file__).resolve().parents[2]))

ACTION: Dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text())


def _expand(value: str, inputs: Dict[str, str], outputs: Dict[str, Dict[str, str]]) -> str:
    def one(m: "re.Match[str]") -> str:
        expr = m.group(1).strip()
        if expr.startswith("inputs."):
            return inputs[expr[len("inputs."):]]
        if expr.startswith("steps."):
            _, step, _, key = expr.split(".")
            return outputs.get(step, {}).get(key, "")
        if expr == "github.action_path":
            return str(ROOT)
        raise AssertionError(f"unexpected expression {expr!r} in action.yml")

    return re.sub(r"\$\{\{(.*?)\}\}", one, value)


def _condition(cond: str, inputs: Dict[str, str], outputs: Dict[str, Dict[str, str]]) -> bool:
    """The two-clause `if:` of the upload step: `A == 'x' && B == 'y'`."""
    ok = True
    for clause in cond.split("&&"):
        left, right = (s.strip() for s in clause.split("=="))
        ok = ok and _expand("${{ " + left + " }}", inputs, outputs) == right.strip("'")
    return ok


def run_action(tmp: Path, **given: str) -> Tuple[Dict[str, Dict[str, str]], str, str, int, bool]:
    """Runs action.yml's steps with `given` inputs, the install step
    replaced by the installed wheel. Returns (step outputs, the lint
    step's stdout, the job summary, the last step's exit code, whether
    the SARIF upload step would run)."""
    inputs = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
    inputs.update({k.replace("_", "-"): v for k, v in given.items()})
    outputs: Dict[str, Dict[str, str]] = {
        "install": {"sselint": str(sselint.binary()), "python": sys.executable}
    }
    summary = tmp / "summary.md"
    lint_out = ""
    code = 0
    upload = False
    for step in ACTION["runs"]["steps"]:
        if step.get("id") == "install":
            continue
        if "uses" in step:
            assert step["uses"].startswith("github/codeql-action/upload-sarif@")
            upload = _condition(step["if"], inputs, outputs)
            continue
        out_file = tmp / f"out-{step.get('id', 'x')}"
        out_file.write_text("")
        env = {
            **{k: v for k, v in os.environ.items() if k != "SSELINT_BIN"},
            "RUNNER_TEMP": str(tmp),
            "GITHUB_OUTPUT": str(out_file),
            "GITHUB_STEP_SUMMARY": str(summary),
            **{k: _expand(str(v), inputs, outputs) for k, v in step.get("env", {}).items()},
        }
        p = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            env=env,
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
        )
        if step.get("id") == "lint":
            lint_out = p.stdout
        assert p.returncode == 0 or step["name"] == "Verdict", (step["name"], p.stdout, p.stderr)
        code = p.returncode
        if step.get("id"):
            outputs[step["id"]] = dict(
                line.split("=", 1) for line in out_file.read_text().splitlines() if "=" in line
            )
    return outputs, lint_out, summary.read_text() if summary.exists() else "", code, upload


def test_action_on_a_clean_capture(tmp_path: Path) -> None:
    outputs, out, summary, code, upload = run_action(
        tmp_path, paths=str(ROOT / "samples/good/openai-basic.sse")
    )
    assert outputs["lint"]["exit-code"] == "0" and code == 0 and upload
    assert "| ✅ `" in summary and "**pass** (exit 0)" in summary
    assert (tmp_path / "sselint.sarif").is_file()


def test_action_on_bad_captures_annotates_and_fails(tmp_path: Path) -> None:
    paths = f"{ROOT}/samples/bad/cut-off.sse\n  {ROOT}/samples/good/*.sse  "
    outputs, out, summary, code, upload = run_action(tmp_path, paths=paths, sarif_file="out/x.sarif")
    assert outputs["lint"]["exit-code"] == "1" and code == 1
    assert "::error file=" in out and "cut-off" in out
    assert "| ❌ `" in summary and "**fail** (exit 1)" in summary
    assert summary.count("| ✅ `") == len(list((ROOT / "samples/good").glob("*.sse")))
    assert not upload or (tmp_path / "out/x.sarif").is_file()


def test_action_inputs_reach_sselint(tmp_path: Path) -> None:
    cut = str(ROOT / "samples/bad/cut-off.sse")
    outputs, *_ = run_action(tmp_path, paths=cut, fail_on="never", upload_sarif="false")
    assert outputs["lint"]["exit-code"] == "0"
    _, _, _, _, upload = run_action(tmp_path, paths=cut, upload_sarif="false")
    assert not upload
    dns = str(ROOT / "samples/bad/data-no-space.sse")
    assert run_action(tmp_path, paths=dns, fail_on="warning")[0]["lint"]["exit-code"] == "1"
    (tmp_path / "cfg.toml").write_text('ignore = ["cut-off"]\n')
    assert run_action(tmp_path, paths=cut, config=str(tmp_path / "cfg.toml"))[0]["lint"]["exit-code"] == "0"
    assert run_action(tmp_path, paths=cut, profile="vllm")[0]["lint"]["exit-code"] == "1"


def test_action_unreadable_input_and_no_input(tmp_path: Path) -> None:
    outputs, _, summary, code, _ = run_action(tmp_path, paths=str(tmp_path / "missing.sse"))
    assert outputs["lint"]["exit-code"] == "2" and code == 2
    assert "could not be read" in summary
    outputs, _, summary, code, _ = run_action(tmp_path, paths=" \n ")
    assert outputs["lint"]["exit-code"] == "2" and code == 2
    outputs, _, summary, code, _ = run_action(tmp_path, paths=str(ROOT / "samples/good/openai-basic.sse"), profile="nope")
    assert outputs["lint"]["exit-code"] == "2" and "could not lint" in summary and code == 2


def _actionlint() -> Optional[str]:
    exe = Path(sys.executable).parent / "actionlint"
    return str(exe) if exe.is_file() else shutil.which("actionlint")


def test_actionlint_passes_the_example_workflow(tmp_path: Path) -> None:
    exe = _actionlint()
    if exe is None:
        pytest.fail("actionlint is not installed (pip install -r python/requirements-test.txt)")
    example = ROOT / "docs/examples/action-workflow.yml"
    p = subprocess.run([exe, "-no-color", str(example)], capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    # With `uses: ./`, actionlint reads action.yml and checks the inputs.
    (tmp_path / ".github/workflows").mkdir(parents=True)
    shutil.copy(ROOT / "action.yml", tmp_path / "action.yml")
    text = example.read_text()
    assert "uses: your-org/sselint@main" in text
    wf = tmp_path / ".github/workflows/example.yml"
    wf.write_text(text.replace("your-org/sselint@main", "./"))
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    p = subprocess.run([exe, "-no-color", str(wf)], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    wf.write_text(text.replace("your-org/sselint@main", "./").replace("fail-on: warning", "fail-on: warning\n          probe-url: http://localhost"))
    p = subprocess.run([exe, "-no-color", str(wf)], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert p.returncode == 1 and 'input "probe-url" is not defined' in p.stdout, p.stdout + p.stderr


HOOKS: List[Dict[str, Any]] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())


def test_the_pre_commit_hook_picks_captures_and_runs_check() -> None:
    (hook,) = HOOKS
    assert hook["id"] == "sselint" and hook["language"] == "python"
    pattern = re.compile(hook["files"])
    picked = sorted(
        str(p.relative_to(ROOT)) for p in (ROOT / "samples").rglob("*") if p.is_file() and pattern.search(str(p.relative_to(ROOT)))
    )
    assert "samples/good/openai-basic.sse" in picked and "samples/har/chrome.har" in picked
    assert not [p for p in picked if p.endswith((".md", ".txt", ".json"))], picked
    entry = hook["entry"].split()
    assert entry[0] == "sselint"
    exe = [str(sselint.binary()), *entry[1:], *hook.get("args", [])]
    good = [p for p in picked if p.startswith("samples/good/")]
    assert subprocess.run([*exe, *good], cwd=ROOT, capture_output=True, check=False).returncode == 0
    bad = subprocess.run([*exe, *good, "samples/bad/cut-off.sse"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert bad.returncode == 1 and "error[E401]" in bad.stdout
