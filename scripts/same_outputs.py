#!/usr/bin/env python3
"""Saves what a sselint binary prints for every input, so that a refactor
can show its outputs byte for byte the same before and after.

    scripts/same_outputs.py BINARY OUTDIR

Inputs: every file under samples/, tests/cases/ and tests/fixtures/ (the
expectation files of tests/cases left out), and every rule example of
rules/ (its capture written to /tmp/sselint-same-outputs-examples/, the
same path each run). For each input it saves `check --format json`,
`check` (human, -v), `inspect` and `inspect --format jsonl`; for each pair
of neighbouring inputs, `diff` (human and json). Then compare two runs with
`diff -r OUT_BEFORE OUT_AFTER`. Prints the counts.
"""
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = Path("/tmp/sselint-same-outputs-examples")


def inputs():
    files = []
    for d in ["samples", "tests/cases", "tests/fixtures"]:
        for p in sorted((ROOT / d).rglob("*")):
            if p.is_file() and not p.name.endswith((".json", ".md", ".toml", ".py")):
                files.append(p.relative_to(ROOT))
    EXAMPLES.mkdir(exist_ok=True)
    for t in sorted((ROOT / "rules").rglob("*.toml")):
        doc = tomllib.loads(t.read_text())
        for i, ex in enumerate(doc.get("examples", [])):
            if "capture" in ex:
                data = ex["capture"].encode()
            elif "capture_hex" in ex:
                data = bytes.fromhex("".join(ex["capture_hex"].split()))
            else:
                continue
            p = EXAMPLES / f"{t.stem}-{i}.sse"
            p.write_bytes(data)
            files.append(p)
    return files


def run(binary, args, out):
    env = dict(os.environ, NO_COLOR="1")
    r = subprocess.run([binary, *args], cwd=ROOT, capture_output=True, env=env, timeout=300)
    out.write_bytes(r.stdout + b"\n--- stderr ---\n" + r.stderr + f"\n--- exit {r.returncode} ---\n".encode())


def main():
    binary, outdir = os.path.abspath(sys.argv[1]), Path(sys.argv[2])
    outdir.mkdir(parents=True, exist_ok=True)
    files = inputs()
    n = 0
    for i, f in enumerate(files):
        s = str(f)
        key = f"{i:04d}-" + s.replace("/", "_")
        for name, args in [
            ("check.json", ["check", "--no-config", "--format", "json", s]),
            ("check.txt", ["check", "--no-config", "-v", s]),
            ("inspect.txt", ["inspect", s]),
            ("inspect.jsonl", ["inspect", "--format", "jsonl", s]),
        ]:
            run(binary, args, outdir / f"{key}.{name}")
            n += 1
        if i + 1 < len(files):
            t = str(files[i + 1])
            run(binary, ["diff", s, t], outdir / f"{key}.diff.txt")
            run(binary, ["diff", "--format", "json", s, t], outdir / f"{key}.diff.json")
            n += 2
    print(f"{len(files)} inputs, {n} outputs in {outdir}")


if __name__ == "__main__":
    main()
