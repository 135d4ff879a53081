#!/usr/bin/env python3
"""The lint outputs of scripts/golden.py, alone: `check` (human and json)
and `inspect --format jsonl` on every input golden.py reads (samples/,
tests/cases, tests/fixtures, the conformance captures, every rule's
examples). A quicker record than golden.py's every command, for a change
to the linter's reading (the transport seam) that other commands reach
through it.

    python3 scripts/golden_lint.py BIN OUTDIR
    python3 scripts/golden.py --compare DIR_A DIR_B
"""

import concurrent.futures as cf
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import golden  # noqa: E402


def one(bin_: str, inp: pathlib.Path, out: pathlib.Path) -> None:
    key = golden.rel(inp).replace("/", "__")
    src = golden.rel(inp) if inp.is_relative_to(golden.ROOT) else str(inp)
    chunks = [golden.run(bin_, ["check", "--no-config", "--format", f, src], golden.ROOT) for f in ["human", "json"]]
    chunks.append(golden.run(bin_, ["inspect", "--format", "jsonl", src], golden.ROOT))
    (out / key).write_bytes(b"".join(chunks))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    bin_ = str(pathlib.Path(sys.argv[1]).resolve())
    out = pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    files = golden.inputs(golden.WORK / "examples")
    with cf.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        list(ex.map(lambda f: one(bin_, f, out), files))
    print(f"{len(files)} inputs written to {out}", file=sys.stderr)
