"""Writes a synthetic LLM gateway log: N responses in every dialect sselint reads
(Chat Completions, Responses, Messages), each with the HTTP facts a gateway
keeps (status, response headers, request path) beside the streamed body.

The bodies are the project's samples (samples/good and samples/bad: the
.sse ones, and in one row of twenty an Ollama NDJSON or Bedrock
event-stream one, with its dialect's path and Content-Type), so about a
third of the rows have faults; some rows carry an
HTTP error with a JSON body, a `text/plain` Content-Type, or a request
path of another dialect. Every row's headers hold an `authorization`
value, which sselint must never print.

    python3 examples/scale/gateway_log.py N --jsonl log.jsonl
    python3 examples/scale/gateway_log.py N --dir captures/     # one .sse file per row
    python3 examples/scale/gateway_log.py N --parquet log.parquet   # needs pyarrow

Columns (Parquet) and fields (JSON Lines): request_id, provider, model,
path, status, headers (JSON object as text), body (bytes; JSON Lines:
`body` as text, or `body_base64`). Deterministic for a given N.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

ROOT = Path(__file__).resolve().parents[2]
PATHS = {
    "chat": "/v1/chat/completions",
    "responses": "/v1/responses",
    "messages": "/v1/messages",
    "gemini": "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    "ollama": "/api/chat",
    "bedrock-converse": "/model/anthropic.claude-3-5-haiku/converse-stream",
    "bedrock-invoke": "/model/anthropic.claude-3-5-haiku/invoke-with-response-stream",
}
# The Content-Type each dialect's server sends.
TYPES = {
    "ollama": "application/x-ndjson",
    "bedrock-converse": "application/vnd.amazon.eventstream",
    "bedrock-invoke": "application/vnd.amazon.eventstream",
}
PROVIDERS = {
    "chat": [("openai", "gpt-4o-mini"), ("groq", "llama-3.1-8b-instant"), ("vllm", "qwen2.5-7b")],
    "responses": [("openai", "gpt-4.1"), ("azure", "gpt-4.1-mini")],
    "messages": [("anthropic", "claude-sonnet-4-5"), ("bedrock", "claude-3-5-haiku")],
    "gemini": [("google", "gemini-2.5-flash")],
    "ollama": [("ollama", "qwen3:8b")],
    "bedrock-converse": [("bedrock", "claude-3-5-haiku")],
    "bedrock-invoke": [("bedrock", "claude-3-5-haiku")],
}


def dialect_of(name: str) -> str:
    if name.startswith("ollama-"):
        return "ollama"
    if name.startswith(("converse-", "bedrock-converse")):
        return "bedrock-converse"
    if name.startswith(("invoke-", "bedrock-invoke")):
        return "bedrock-invoke"
    if name.startswith("gemini-"):
        return "gemini"
    if name.startswith("messages-"):
        return "messages"
    if name.startswith("responses-"):
        return "responses"
    return "chat"


def bodies() -> List[Tuple[str, bytes]]:
    out = []
    for d in ("good", "bad"):
        for p in sorted((ROOT / "samples" / d).glob("*.sse")):
            out.append((dialect_of(p.name), p.read_bytes()))
    return out


def other_bodies() -> List[Tuple[str, bytes]]:
    """The samples of the dialects that are not SSE (Ollama's NDJSON,
    Bedrock's event-stream frames)."""
    out = []
    for d in ("good", "bad"):
        for p in sorted((ROOT / "samples" / d).glob("*")):
            if p.suffix in (".ndjson", ".bin") and dialect_of(p.name) in TYPES:
                out.append((dialect_of(p.name), p.read_bytes()))
    return out


def rows(n: int) -> Iterator[Dict[str, object]]:
    rng = random.Random(28)
    pool = bodies()
    good = [b for b in pool[:20]]
    others = other_bodies()
    for i in range(n):
        # Two good rows for every sample of a fault.
        dialect, body = rng.choice(good) if rng.random() < 0.6 else rng.choice(pool)
        # One row in twenty is a stream that is not SSE.
        if i % 20 == 19:
            dialect, body = others[(i // 20) % len(others)]
        provider, model = rng.choice(PROVIDERS[dialect])
        status = 200
        ctype = TYPES.get(dialect, "text/event-stream")
        path = PATHS[dialect]
        r = rng.random()
        if r < 0.02:
            status = rng.choice([429, 500, 529])
            ctype = "application/json"
            body = json.dumps({"error": {"type": "overloaded", "message": "try again"}}).encode()
        elif r < 0.03:
            ctype = "text/plain; charset=utf-8"
        elif r < 0.04:
            path = rng.choice([p for d, p in PATHS.items() if d != dialect])
        yield {
            "request_id": f"req-{i:07d}",
            "provider": provider,
            "model": model,
            "path": path,
            "status": status,
            "headers": json.dumps(
                {"content-type": ctype, "authorization": "Bearer sk-test-FAKE0000000000000000", "x-request-id": f"req-{i:07d}"}
            ),
            "body": body,
        }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("--jsonl")
    ap.add_argument("--dir")
    ap.add_argument("--parquet")
    a = ap.parse_args()
    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            for r in rows(a.n):
                body = r.pop("body")
                assert isinstance(body, bytes)
                rec = {"id": r["request_id"], "status": r["status"], "headers": json.loads(str(r["headers"])), "path": r["path"]}
                try:
                    rec["body"] = body.decode("utf-8")
                except UnicodeDecodeError:
                    rec["body_base64"] = base64.b64encode(body).decode()
                f.write(json.dumps(rec) + "\n")
    if a.dir:
        os.makedirs(a.dir, exist_ok=True)
        for r in rows(a.n):
            sub = Path(a.dir) / str(r["request_id"])[-3:]
            sub.mkdir(exist_ok=True)
            body = r["body"]
            assert isinstance(body, bytes)
            (sub / f"{r['request_id']}.sse").write_bytes(body)
    if a.parquet:
        import pyarrow as pa
        import pyarrow.parquet as pq

        cols: Dict[str, list] = {k: [] for k in ("request_id", "provider", "model", "path", "status", "headers", "body")}
        for r in rows(a.n):
            for k in cols:
                cols[k].append(r[k])
        schema = pa.schema(
            [
                ("request_id", pa.string()),
                ("provider", pa.string()),
                ("model", pa.string()),
                ("path", pa.string()),
                ("status", pa.int32()),
                ("headers", pa.string()),
                ("body", pa.binary()),
            ]
        )
        pq.write_table(pa.table(cols, schema=schema), a.parquet, row_group_size=5000)


if __name__ == "__main__":
    main()
