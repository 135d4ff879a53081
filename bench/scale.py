"""Side by side, one run: the CLI's rows/s on a JSON Lines gateway log
(`check --input-format jsonl --format jsonl -j 1`) against lint_many and
lint_arrow (jobs=1) on the same rows, in process; the peak memory of one
lint_arrow batch; the start-up of the wheel's `sselint` command against
the binary's; with --dir, the peak memory of `check DIR --format jsonl`
over a directory of --rows captures; and, with --engines, the Ray and
Spark jobs of examples/scale end to end against the CLI with -j 2.

    python bench/scale.py SSELINT_BINARY [--rows 20000] [--dir] [--engines]

Run it with the Python of a venv holding a release build of the wheel and
pyarrow (and ray, pyspark for --engines). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, List, Tuple

ROOT = Path(__file__).resolve().parents[1]


def timed(f: Callable[[], Any], runs: int = 3) -> float:
    """The least CPU time (this process, all threads) of `runs` calls
    (seconds): the machine is shared, so CPU time, not wall time, is
    compared with the CLI's."""
    best = float("inf")
    for _ in range(runs):
        t = time.process_time()
        f()
        best = min(best, time.process_time() - t)
    return best


def cpu_of(cmd: List[str]) -> Tuple[float, float]:
    """(wall, user+sys of the child) seconds of one run of `cmd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


PEAK = """
import sys, pyarrow as pa, pyarrow.parquet as pq, sselint
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
base = status("VmRSS:")
batch = next(pq.ParquetFile(sys.argv[1]).iter_batches(batch_size=10000))
pa.default_memory_pool().release_unused()
size = batch.nbytes
before = status("VmRSS:")
open("/proc/self/clear_refs", "w").write("5")  # resets VmHWM to the current RSS
out = sselint.lint_arrow(batch, id="request_id", status="status", headers="headers", request_path="path", jobs=1)
after = status("VmHWM:")
print(size, base, before, after, batch.num_rows)
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--engines", action="store_true")
    ap.add_argument("--dir", action="store_true")
    a = ap.parse_args()
    import pyarrow.parquet as pq

    import sselint

    tmp = Path(tempfile.mkdtemp(prefix="sselint-bench-scale-"))
    log, parquet = tmp / "log.jsonl", tmp / "log.parquet"
    subprocess.run(
        [sys.executable, str(ROOT / "examples/scale/gateway_log.py"), str(a.rows),
         "--jsonl", str(log), "--parquet", str(parquet)],
        check=True,
    )
    n = a.rows
    table = pq.read_table(parquet).combine_chunks()
    rows = table.to_pylist()
    out: List[Tuple[str, str]] = []

    cli = [a.binary, "check", "--input-format", "jsonl", "--format", "jsonl", "-j", "1", str(log)]
    cli_runs = [cpu_of(cli) for _ in range(3)]
    cli_cpu = min(c for _, c in cli_runs)
    cli_wall = min(w for w, _ in cli_runs)
    out.append(("CLI `check --input-format jsonl --format jsonl -j 1`", f"{n / cli_cpu:,.0f} rows/s per core ({cli_wall:.2f} s wall)"))

    def arrow() -> None:
        sselint.lint_arrow(table, id="request_id", status="status", headers="headers", request_path="path", jobs=1)

    t_arrow = timed(arrow)
    out.append(("`lint_arrow(table, jobs=1)`", f"{n / t_arrow:,.0f} rows/s ({n / t_arrow / (n / cli_cpu):.2f}× the CLI)"))

    bodies = [r["body"] for r in rows]
    ids = [r["request_id"] for r in rows]
    statuses = [r["status"] for r in rows]
    headers = [r["headers"] for r in rows]
    paths = [r["path"] for r in rows]

    def many() -> None:
        sselint.lint_many(bodies, ids=ids, statuses=statuses, headers=headers, request_paths=paths, jobs=1)

    t_many = timed(many)
    out.append(("`lint_many(bodies, jobs=1)` (typed Reports)", f"{n / t_many:,.0f} rows/s ({n / t_many / (n / cli_cpu):.2f}× the CLI)"))

    p = subprocess.run([sys.executable, "-c", PEAK, str(parquet)], capture_output=True, text=True, check=True)
    size, base, before, after, rows_in = (int(x) for x in p.stdout.split())
    out.append((
        f"`lint_arrow` peak of a {rows_in:,}-row batch",
        f"batch {size / 2**20:.1f} MiB; RSS {base / 2**20:.1f} MiB before reading it, "
        f"{before / 2**20:.1f} MiB read, peak {after / 2**20:.1f} MiB while linting: "
        f"+{(after - base) / 2**20:.1f} MiB in all ({(after - base) / size:.2f}× the batch), "
        f"+{(after - before) / 2**20:.1f} MiB for the lint ({(after - before) / size:.2f}×)",
    ))

    # Start-up: `sselint --version`, the binary against the wheel's command.
    wheel_cmd = Path(sys.executable).parent / "sselint"
    for label, exe in (("binary", a.binary), ("wheel's `sselint` command", str(wheel_cmd))):
        best = min(cpu_of([exe, "--version"])[0] for _ in range(20))
        out.append((f"start-up, `sselint --version`: {label}", f"{best * 1000:.1f} ms (best of 20, wall)"))

    if a.dir:
        d = tmp / "captures"
        subprocess.run([sys.executable, str(ROOT / "examples/scale/gateway_log.py"), str(n), "--dir", str(d)], check=True)
        p = subprocess.run(
            ["/usr/bin/time", "-f", "%M %U %e", a.binary, "check", "--format", "jsonl", "-j", "2", str(d)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False,
        )
        kib, user, wall = p.stderr.split()[-3:]
        out.append((
            f"`check DIR --format jsonl -j 2`, {n:,} files: peak RSS",
            f"{int(kib) / 1024:.1f} MiB ({float(user):.2f} s user, {float(wall):.1f} s wall)",
        ))

    if a.engines:
        cli2 = [a.binary, "check", "--input-format", "jsonl", "--format", "jsonl", "-j", "2", str(log)]
        w2, _ = cpu_of(cli2)
        out.append(("CLI `-j 2`", f"{n / w2:,.0f} rows/s ({w2:.2f} s wall)"))
        for job, extra in (("ray_job.py", ["--num-cpus", "2"]), ("spark_job.py", ["--master", "local[2]"])):
            w, _ = cpu_of([sys.executable, str(ROOT / "examples/scale" / job), str(parquet), str(tmp / job), *extra])
            out.append((f"`{job}` end to end (2 cores, start-up included)", f"{n / w:,.0f} rows/s ({w:.1f} s wall; {w2 / w:.2f}× the CLI -j 2)"))

    print(f"{n:,} rows, {log.stat().st_size / 2**20:.0f} MiB of JSON Lines, {parquet.stat().st_size / 2**20:.0f} MiB of Parquet\n")
    print("| what | figure |\n|---|---|")
    for k, v in out:
        print(f"| {k} | {v} |")
    for f in tmp.rglob("*"):
        if f.is_file():
            f.unlink()
    subprocess.run(["rm", "-rf", str(tmp)], check=False)


if __name__ == "__main__":
    main()
