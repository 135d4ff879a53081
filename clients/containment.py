#!/usr/bin/env python3
"""Checks that the agent apps and the gateway stay contained: run under
`strace -f`, no process they start connects anywhere but 127.0.0.1 (or a
Unix socket), and none writes, creates, renames or removes a file outside
the run's temporary HOME (`$TMPDIR/sselint-CLIENT-…`, see
clients/agent_clients.py) and /dev.

    clients/containment.py                        each app on its dialect's reference stream and tool call
    clients/containment.py CAPTURE DIALECT ...    each app of DIALECT on these captures
    clients/containment.py --ci                   each app once per dialect it speaks (CI_SET)

SSELINT_BIN names the sselint to replay with (default target/debug/sselint).

Needs strace, a built sselint (target/debug/sselint) and the installed apps.
Prints every breach and exits 1 when there is one, or when an app gave no
outcome (it did not run, so its trace proves nothing).
tests/clients.rs runs it on one tool call of each dialect (CI_SET): each
app once per dialect it speaks, each going on to its follow-up request.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402

ROOT = run.ROOT
DEFAULT = [
    ("samples/good/messages-basic.sse", "messages"),
    ("samples/good/messages-tool-use.sse", "messages"),
    ("samples/good/responses-basic.sse", "responses"),
    ("samples/good/responses-function-call.sse", "responses"),
    ("samples/good/gemini-basic.sse", "gemini"),
    ("samples/good/gemini-function-calls.sse", "gemini"),
    ("samples/good/openai-tool-calls.sse", "chat"),
]
# The fixed set tests/clients.rs passes: a tool call of each dialect.
CI_SET = [
    ("samples/good/openai-tool-calls.sse", "chat"),
    ("samples/good/responses-function-call.sse", "responses"),
    ("samples/good/messages-tool-use.sse", "messages"),
    ("samples/good/gemini-function-calls.sse", "gemini"),
]
CONNECT = re.compile(r'connect\(\d+, \{sa_family=AF_INET6?, sin6?_port=htons\((\d+)\), (?:sin_addr=inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)")')
WRITE = re.compile(r'\b(?:openat|open|creat)\((?:AT_FDCWD, )?"([^"]+)", ([A-Z_|]+)')
PATHOP = re.compile(r'\b(?:mkdir|mkdirat|unlink|unlinkat|rename|renameat2?|rmdir|symlink|link)\((?:AT_FDCWD|\d+)?,? ?"([^"]+)"')


def main():
    sselint = os.environ.get("SSELINT_BIN") or str(ROOT / "target" / "debug" / "sselint")
    args = sys.argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if args == ["--ci"]:
        pairs = CI_SET
    elif len(args) % 2 or any(a.startswith("-") for a in args):
        print(f"containment.py: expected CAPTURE DIALECT pairs or --ci, got {' '.join(args)} (--help)", file=sys.stderr)
        return 2
    else:
        pairs = DEFAULT if len(sys.argv) < 3 else list(zip(sys.argv[1::2], sys.argv[2::2]))
    breaches, not_run, runs = [], [], 0
    tmp = Path(tempfile.gettempdir())
    for capture, dialect in pairs:
        rt_clients = [(n, rt) for n, (rt, d, _) in run.CLIENTS.items() if d == dialect and rt in ("agent", "gateway")]
        p = subprocess.Popen(
            [sselint, "replay", str(ROOT / capture), "--listen", "127.0.0.1:0", "--delay-ms", "0", "--dialect", dialect],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            url = re.search(r"http://[0-9.]+:[0-9]+", p.stdout.readline()).group(0)
            for name, rt in rt_clients:
                with tempfile.TemporaryDirectory(prefix="sselint-containment-") as d:
                    jobs = Path(d) / "jobs.json"
                    jobs.write_text(json.dumps([{"id": "c", "base_url": url + "/v1", "origin": url, "tools": ["get_weather"], "clients": [name]}]))
                    trace = Path(d) / "trace"
                    script = "agent_clients.py" if rt == "agent" else "gateway_clients.py"
                    python = sys.executable if rt == "agent" else str(run.GATEWAY_PYTHON)
                    out = subprocess.run(
                        ["strace", "-f", "-qq", "-s", "300", "-o", str(trace),
                         "-e", "trace=connect,open,openat,creat,mkdir,mkdirat,unlink,unlinkat,rename,renameat,renameat2,rmdir,symlink,link",
                         python, str(run.CLIENTS_DIR / script), str(jobs)],
                        capture_output=True, text=True, cwd=run.CLIENTS_DIR,
                    )
                    outcome = json.loads(out.stdout or "{}").get("c", {}).get(name)
                    runs += 1
                    if outcome is None or (outcome.get("error") or {}).get("type") == "HarnessError":
                        not_run.append(f"{name} on {capture}: no outcome ({(out.stderr or json.dumps(outcome)).strip()[-300:]})")
                    connects, writes = 0, 0
                    for line in trace.read_text(errors="replace").splitlines():
                        m = CONNECT.search(line)
                        if m:
                            connects += 1
                            addr = m.group(2) or m.group(3)
                            if addr not in ("127.0.0.1", "::1", "::ffff:127.0.0.1"):
                                breaches.append(f"{name} on {capture}: connect to {addr}:{m.group(1)}")
                            continue
                        m = WRITE.search(line)
                        path = None
                        if m and re.search(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC", m.group(2)):
                            path = m.group(1)
                        elif not m:
                            m = PATHOP.search(line)
                            path = m.group(1) if m else None
                            if m and re.search(r"\b(?:symlink|link|rename\w*)\(", line):
                                # The new name is what is written (a
                                # symlink's target is only pointed at).
                                path = re.findall(r'"([^"]+)"', line)[-1]
                        if path is None or "= -1" in line:
                            continue
                        if re.fullmatch(re.escape(str(tmp)) + r"/[a-z0-9_]{8}", path):
                            # Python's tempfile probing that the temporary
                            # directory is writable (a file it removes at
                            # once), before the HOME is made.
                            continue
                        writes += 1
                        # A relative path is inside the app's working
                        # directory, which is inside its HOME; the gateway
                        # runs in clients/, where it must write nothing.
                        home = f"{tmp}/sselint-{name}-" if rt == "agent" else f"{tmp}/sselint-litellm-"
                        ok = (rt == "agent" and not path.startswith("/")) or path.startswith(("/dev/", "/proc/self/", home, f"{d}/"))
                        if not ok:
                            breaches.append(f"{name} on {capture}: writes {path} ({line.split(' ', 1)[-1][:160]})")
                    print(f"{name} on {capture}: {connects} connects, {writes} writes checked; outcome {json.dumps(outcome)[:120]}")
        finally:
            p.kill()
            p.wait()
    for b in breaches:
        print("BREACH", b)
    for n in not_run:
        print("NOT RUN", n)
    print(f"clients/containment.py: {runs} runs, {len(breaches)} breach(es), {len(not_run)} without an outcome")
    return 1 if breaches or not_run else 0


if __name__ == "__main__":
    sys.exit(main())
