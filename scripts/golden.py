#!/usr/bin/env python3
"""Golden outputs: every command's output on every capture, for proving that
a refactor keeps behaviour byte for byte.

    python3 scripts/golden.py BIN OUTDIR          # write OUTDIR/<case>
    python3 scripts/golden.py --compare DIR_A DIR_B

BIN is an sselint binary (`target/release/sselint`). The inputs are every
file under samples/ and tests/ (cases, fixtures), the shared conformance
captures when ../shared is beside the checkout, and every example capture
of every rule under rules/ (written to OUTDIR/.examples/). For each input
it records stdout, stderr and the exit code of:

- check in every --format (human, -v, json, sarif, junit, github, html);
- inspect (table, jsonl, html);
- redact and redact --scrub-text (the written copy too);
- minimize (its report and the written reproducer);
- diff of each input against the next one of the same folder, human and
  json, with and without --ignore-text;

and `rules`, `rules --profiles` and `rule NAME` for every rule. Paths in
the outputs are the same in both runs when OUTDIR has the same name
relative to the checkout (use /tmp/golden-before, /tmp/golden-after and
the same temporary folder for written files: it is emptied per input).

Not a test: `cargo test` holds the assertions. This is the before/after
record a refactor's commit message cites.
"""

import concurrent.futures as cf
import hashlib
import os
import re
import pathlib
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORK = pathlib.Path(os.environ.get("GOLDEN_WORK", "/tmp/sselint-golden-work"))


def inputs(examples_dir: pathlib.Path) -> list[pathlib.Path]:
    found = []
    for base in [ROOT / "samples", ROOT / "tests" / "cases", ROOT / "tests" / "fixtures"]:
        found += sorted(p for p in base.rglob("*") if p.is_file() and not p.name.endswith(".json") and p.suffix != ".md")
    conf = ROOT.parent / "shared" / "conformance"
    if conf.is_dir():
        found += sorted(conf.glob("*.sse"))
    examples_dir.mkdir(parents=True, exist_ok=True)
    for rule in sorted((ROOT / "rules").rglob("*.toml")):
        if rule.parent.name in ("profiles", "schemas"):
            continue
        data = tomllib.loads(rule.read_text())
        for i, ex in enumerate(data.get("examples", [])):
            name = f"{rule.parent.name}-{rule.stem}-{i}"
            if "capture" in ex:
                body = ex["capture"].encode()
            elif "capture_hex" in ex:
                body = bytes.fromhex("".join(ex["capture_hex"].split()))
            else:
                continue
            p = examples_dir / f"{name}.sse"
            p.write_bytes(body)
            found.append(p)
    return found


def rel(p: pathlib.Path) -> str:
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return p.name


def run(bin_: str, args: list[str], cwd: pathlib.Path) -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SSELINT")}
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "120"
    try:
        r = subprocess.run([bin_, *args], cwd=cwd, capture_output=True, env=env, timeout=300, stdin=subprocess.DEVNULL)
        return b"$ sselint " + " ".join(args).encode() + b"\nexit %d\n--- stdout\n" % r.returncode + r.stdout + b"\n--- stderr\n" + r.stderr + b"\n"
    except subprocess.TimeoutExpired:
        return b"$ sselint " + " ".join(args).encode() + b"\nTIMEOUT\n"


def one(bin_: str, inp: pathlib.Path, nxt: pathlib.Path | None, out: pathlib.Path) -> str:
    key = rel(inp).replace("/", "__")
    work = WORK / hashlib.sha1(key.encode()).hexdigest()[:12]
    work.mkdir(parents=True, exist_ok=True)
    for f in work.iterdir():
        f.unlink()
    src = rel(inp) if inp.is_relative_to(ROOT) else str(inp)
    chunks = []
    for fmt in ["human", "json", "sarif", "junit", "github", "html"]:
        chunks.append(run(bin_, ["check", "--no-config", "--format", fmt, src], ROOT))
    chunks.append(run(bin_, ["check", "--no-config", "-v", src], ROOT))
    for fmt in ["table", "jsonl", "html"]:
        chunks.append(run(bin_, ["inspect", "--format", fmt, src], ROOT))
    suffix = inp.suffix or ".txt"
    for extra, name in [([], "redact"), (["--scrub-text"], "scrub")]:
        o = work / f"{name}{suffix}"
        chunks.append(run(bin_, ["redact", *extra, src, "-o", str(o)], ROOT))
        chunks.append(b"--- written\n" + (o.read_bytes() if o.exists() else b"(none)") + b"\n")
    o = work / f"min{suffix}"
    chunks.append(run(bin_, ["minimize", "--no-config", src, "-o", str(o)], ROOT))
    chunks.append(b"--- written\n" + (o.read_bytes() if o.exists() else b"(none)") + b"\n")
    if nxt is not None:
        for extra in [[], ["--format", "json"], ["--ignore-text"]]:
            other = rel(nxt) if nxt.is_relative_to(ROOT) else str(nxt)
            chunks.append(run(bin_, ["diff", *extra, src, other], ROOT))
    text = b"".join(chunks).replace(str(work).encode(), b"OUT").replace(str(WORK).encode(), b"WORK")
    # minimize reports its own run time ("37 re-lints in 0.01 s").
    (out / key).write_bytes(re.sub(rb"re-lints in [0-9.]+ s", b"re-lints in T s", text))
    return key


def write(bin_: str, out: pathlib.Path) -> None:
    bin_ = str(pathlib.Path(bin_).resolve())
    out.mkdir(parents=True, exist_ok=True)
    files = inputs(WORK / "examples")
    jobs = []
    for i, f in enumerate(files):
        nxt = files[i + 1] if i + 1 < len(files) and files[i + 1].parent == f.parent else None
        jobs.append((f, nxt))
    with cf.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        done = 0
        for _ in ex.map(lambda j: one(bin_, j[0], j[1], out), jobs):
            done += 1
            if done % 50 == 0:
                print(f"{done}/{len(jobs)}", file=sys.stderr)
    meta = [run(bin_, ["rules"], ROOT), run(bin_, ["rules", "--profiles"], ROOT)]
    for rule in sorted((ROOT / "rules").rglob("*.toml")):
        if rule.parent.name in ("profiles", "schemas"):
            continue
        meta.append(run(bin_, ["rule", rule.stem], ROOT))
    (out / "_rules").write_bytes(b"".join(meta))
    print(f"{len(jobs)} inputs written to {out}", file=sys.stderr)


def unpermuted(text: bytes) -> bytes:
    """The text with the letters of written SSE data lines folded to `x`:
    when a flat scrub would change the findings, redact and minimize scrub
    through a letter permutation drawn per run, so those lines differ
    between two runs of the same binary."""
    return re.sub(rb"(?m)^data:.*$", lambda m: re.sub(rb"[A-Za-z]", b"x", m.group(0)), text)


def compare(a: pathlib.Path, b: pathlib.Path) -> int:
    names = sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()})
    diffs, permuted = [], []
    for n in names:
        if not (a / n).exists() or not (b / n).exists():
            diffs.append(n)
            continue
        x, y = (a / n).read_bytes(), (b / n).read_bytes()
        if x == y:
            continue
        (permuted if unpermuted(x) == unpermuted(y) else diffs).append(n)
    for n in permuted:
        print(f"same but for the scrub's letter permutation: {n}")
    for n in diffs:
        print(f"differs: {n}")
    print(f"{len(names) - len(diffs)} of {len(names)} identical ({len(permuted)} of them up to the scrub's letter permutation)")
    return 1 if diffs else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        sys.exit(compare(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])))
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    write(sys.argv[1], pathlib.Path(sys.argv[2]))
