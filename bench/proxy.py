#!/usr/bin/env python3
"""`sselint proxy`'s latency and load, over loopback (issue 38).

latency: STREAMS streamed responses (default 1000) from `sselint replay`
of a Chat capture of EVENTS events (default 20) sent DELAY_MS apart
(default 2), read straight from replay and through the proxy in turn
(direct, proxy, direct, ...), one stream at a time, so that the machine's
load weighs on both alike. For each stream: the time to the first `data:` byte
after the request was sent (TTFT), and the gaps between the ends of
consecutive events. Printed: p50 and p99 of each, direct and through the
proxy, and the difference (what the proxy adds).

load: CONCURRENT clients (default 200) at once through the proxy, each a
MB megabyte stream (default 1) (replay of a generated 1 MB capture, no delays); each client's
bytes are compared with the upstream's (SHA-256), and the proxy's peak RSS
(VmHWM) is read from /proc at the end.

The proxy inherits this environment: RUST_MIN_STACK (the lint threads'
stack) and MALLOC_ARENA_MAX (glibc's arenas) try other settings without a
rebuild.

usage: bench/proxy.py [latency|load|both]     (default both)
       BIN=target/release/sselint STREAMS=1000 CONCURRENT=200 MB=1 bench/proxy.py
Needs Linux (/proc) and Python 3.8+; no packages. Everything runs on
127.0.0.1; servers are stopped at the end.
"""

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

BIN = os.environ.get("BIN", "target/release/sselint")
BODY = json.dumps({"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}).encode()


def chunk(i, text):
    return ("data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": ({"role": "assistant", "content": text} if i == 0 else {"content": text}),
                         "finish_reason": None}]}) + "\n\n")


def capture(path, events, text="word "):
    with open(path, "w") as f:
        for i in range(events):
            f.write(chunk(i, text))
        f.write("data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}) + "\n\n")
        f.write("data: [DONE]\n\n")


def start(args, marker):
    """Starts BIN ARGS; returns (process, 'HOST:PORT' from its first line)."""
    p = subprocess.Popen([BIN] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stream = p.stdout if marker == "stdout" else p.stderr
    line = stream.readline()
    addr = line.split("http://", 1)[1].split("/")[0].split(" ")[0]
    # Keep draining the other output so the server never blocks on a pipe.
    other = p.stderr if marker == "stdout" else p.stdout
    threading.Thread(target=lambda: [None for _ in other], daemon=True).start()
    threading.Thread(target=lambda: [None for _ in stream], daemon=True).start()
    return p, addr


def stop(p):
    p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def one(addr, path="/v1/chat/completions", events=True):
    """One streamed request over a raw socket: (ttft_s, [event end times], body bytes).
    events=False leaves out the event ends (counting them rescans the body
    at each read: quadratic in the stream's length, the load's 4 MB
    streams did not finish)."""
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    req = (f"POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n"
           f"Content-Length: {len(BODY)}\r\nConnection: close\r\n\r\n").encode() + BODY
    t0 = time.perf_counter()
    s.sendall(req)
    data = bytearray()
    ttft = None
    ends = []
    seen_ends = 0
    while True:
        b = s.recv(65536)
        now = time.perf_counter()
        if not b:
            break
        data += b
        if ttft is None and b"data:" in data:
            ttft = now - t0
        if not events:
            continue
        n = data.count(b"\n\n", data.find(b"\r\n\r\n") + 4) if b"\r\n\r\n" in data else 0
        ends.extend([now] * (n - seen_ends))
        seen_ends = n
    s.close()
    return ttft, ends, bytes(data)


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))]


def latency():
    streams = int(os.environ.get("STREAMS", "1000"))
    events = int(os.environ.get("EVENTS", "20"))
    delay = os.environ.get("DELAY_MS", "2")
    with tempfile.TemporaryDirectory() as tmp:
        cap = os.path.join(tmp, "latency.sse")
        capture(cap, events)
        replay, up = start(["replay", cap, "--listen", "127.0.0.1:0", "--delay-ms", delay], "stdout")
        proxy, px = start(["proxy", "--listen", "127.0.0.1:0", "--upstream", f"http://{up}", "-q"], "stderr")
        try:
            # Direct and through the proxy taken in turn, stream by stream:
            # the machine's load then weighs on both alike.
            res = {"direct": ([], []), "proxy": ([], [])}
            for _ in range(streams):
                for name, addr in (("direct", up), ("proxy", px)):
                    ttft, ends, _ = one(addr)
                    res[name][0].append(ttft * 1000)
                    res[name][1].extend((b - a) * 1000 for a, b in zip(ends, ends[1:]))
        finally:
            stop(proxy)
            stop(replay)
    print(f"latency: {streams} streams of {events + 2} events, replay --delay-ms {delay}, one at a time")
    for what, i in (("TTFT", 0), ("inter-chunk gap", 1)):
        d, p = res["direct"][i], res["proxy"][i]
        for q in (50, 99):
            print(f"  {what} p{q}: direct {pct(d, q):.3f} ms, through the proxy {pct(p, q):.3f} ms, "
                  f"added {pct(p, q) - pct(d, q):+.3f} ms")


def body(raw):
    """The body of a raw response, de-chunked (the proxy answers in chunked
    transfer coding); read by index, not by slicing the rest at each chunk."""
    at = raw.index(b"\r\n\r\n") + 4
    if b"chunked" not in raw[:at].lower():
        return raw[at:]
    out = bytearray()
    while at < len(raw):
        eol = raw.index(b"\r\n", at)
        size = int(raw[at:eol].split(b";")[0], 16)
        if size == 0:
            break
        out += raw[eol + 2:eol + 2 + size]
        at = eol + 2 + size + 2
    return bytes(out)


def vmhwm(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def load():
    n = int(os.environ.get("CONCURRENT", "200"))
    with tempfile.TemporaryDirectory() as tmp:
        cap = os.path.join(tmp, "load.sse")
        # About MB megabytes (default 1): events of 100 characters of text.
        mb = float(os.environ.get("MB", "1"))
        capture(cap, int(mb * 1024 * 1024) // (len(chunk(1, "x" * 100))), text="x" * 100)
        replay, up = start(["replay", cap, "--listen", "127.0.0.1:0"], "stdout")
        proxy, px = start(["proxy", "--listen", "127.0.0.1:0", "--upstream", f"http://{up}", "-q"], "stderr")
        try:
            _, _, ref = one(up, events=False)
            results = [None] * n
            gate = threading.Barrier(n)

            def client(i):
                gate.wait()
                _, _, got = one(px, events=False)
                # The digest only: 200 bodies of 4 MB are not kept.
                results[i] = hashlib.sha256(body(got)).digest()

            threads = [threading.Thread(target=client, args=(i,)) for i in range(n)]
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - t0
            rss = vmhwm(proxy.pid)
        finally:
            stop(proxy)
            stop(replay)

    ref_body = body(ref)
    want = hashlib.sha256(ref_body).digest()
    same = sum(1 for r in results if r == want)
    print(f"load: {n} concurrent streams of {len(ref_body) / 1e6:.2f} MB through the proxy in {wall:.2f} s: "
          f"{same}/{n} byte-identical to the upstream's; proxy peak RSS {rss / 1024:.1f} MiB")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "both"
    if what in ("latency", "both"):
        latency()
    if what in ("load", "both"):
        load()
