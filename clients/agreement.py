#!/usr/bin/env python3
"""Per-capture agreement between the harness's record and sselint (issue 26).

For each capture the record holds (rules/observed.json, written by
clients/run.py), two levels are compared:

- what the clients did (the policy of `Record::severity` in
  src/lint/observed.rs, each client judged against what it does with its
  dialect's reference stream: a field it already reports otherwise there
  does not count): `error` when a client other than the hand-written
  parser raised or ended with another text, tool calls or finish; `warning`
  when clients differ visibly without losing data (usage or the refusal
  reported otherwise, or only the hand-written parser broke); `below`
  otherwise;
- what sselint says: the highest severity of the findings of
  `check --format json` on the capture's first stream (the one the harness
  replays), read as run.py reads it (`--dialect` for a rule example; its
  `max_event_bytes` and `request` too: a rule example with a request is
  checked as a one-entry HAR that carries it, as the rule tests attach it).
  `info` and anything lower count as `below`; suppressed findings do not
  count. A socket's capture (the WebSocket-mode and Realtime clients')
  counts the findings of all its streams: each response's and the
  socket's own.

A capture agrees when the two levels are the same. Prints, per dialect, the
count that agree and every capture that does not, with each client's
outcome that was not `ok` and sselint's findings at its highest severity.
Disagreements by design are counted the same way (they are not agreements)
but listed apart, each with its reason: a capture whose highest findings
all come from rules with a `severity_basis` (what replaying cannot show:
timing, the capture tool, the request, a fault every client inherits alike,
OpenAI's own ending for a spent budget; the rule's file says which), and
the captures of `APART` below.

    clients/agreement.py                        the record in rules/observed.json
    clients/agreement.py --record OLD.json      another record (e.g. git show REV:rules/observed.json)
    clients/agreement.py --json                 the same as JSON
    clients/agreement.py --without NAME         as if the record had no client NAME (repeatable):
                                                how much one client's outcomes move the count

Needs a built sselint (target/debug/sselint, or --sselint); runs no client.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402  (the harness: its corpus and dialect rules)

ROOT = run.ROOT
LEVELS = ("below", "warning", "error")
DIALECTS = run.DIALECTS


# Captures that disagree by design, without a rule whose severity_basis
# says why (each reason is the one the report prints).
APART = {
    "samples/bad/tool-call-arguments.sse": "the arguments are not JSON and every client passes them on as sent: the application fails when it decodes them, after the stream",
    # Designed exceptions (issue 41's ruling): an app that raises on purpose
    # to report the very finish the server sent has read the stream right.
    "clients/corpus/gemini/safety-no-content.sse": "a designed exception: Gemini CLI reports the `SAFETY` finish the server sent as an error (\"blocked due to safety settings\") and asks again; the SDKs read the finish as sent",
    # A gateway's own faults on shapes the APIs send, which no rule of a
    # stream can call a fault of the stream.
    "samples/good/messages-server-tool.sse": "a call the server ran itself (`server_tool_use`) listed among the answer's calls: LiteLLM hands it on as one for the application to run (a limit of translating into Chat, which has no form for it); opencode, through the AI SDK, lists it as the provider's own call and sends no further request; the stream is Anthropic's own",
    "samples/providers/gemini-usage-only-chunk.sse": "a fault of the gateway on a shape Google's servers send: LiteLLM hands on `stop` for the `MAX_TOKENS` finish when a usage-only chunk follows it",
    "clients/corpus/gemini/call-without-args.sse": "a fault of the gateway on a shape the API sends: LiteLLM raises (`KeyError: 'args'`) on a `functionCall` without `args`, which Gemini leaves out for a function that takes none; the SDKs read it",
    "rules/messages/messages-usage-decreasing.toml#2": "the gateway's reading of a valid stream (running totals): LiteLLM takes the usage of the first `message_delta` and none of the later ones",
    "clients/corpus/gemini/malformed-function-call.sse": "a designed exception: Gemini CLI reports the `MALFORMED_FUNCTION_CALL` finish the server sent as an error and asks again; the SDKs read the finish as sent",
    # A client's own fault on the shape Ollama sends: /api/generate sends
    # `context` on the done line only (transports.md §4.2).
    "samples/good/ollama-generate.ndjson": "a fault of the client on the shape Ollama sends: the AI SDK's Ollama provider (its completion model) requires `context` on every /api/generate line, which Ollama sends on the done line only, and drops every other line; the official libraries read it",
    "clients/corpus/ollama/generate-thinking.ndjson": "a fault of the client on the shape Ollama sends: the AI SDK's Ollama provider (its completion model) requires `context` on every /api/generate line, which Ollama sends on the done line only, and drops every other line; the official libraries read it",
    # The crafted folder tells `--dialect ollama`, under which sselint reads
    # SSE-framed objects as the dialect's messages (src/pipeline.rs,
    # TransportHints::settle); the file alone is `unknown-format`.
    "clients/corpus/ollama/sse-data-prefix.ndjson": "Ollama's lines sent as SSE `data:` events: told `--dialect ollama` (the crafted folder's), sselint reads the events as Ollama's messages by design (`--dialect` names what the messages mean, not how they arrive) and finds nothing; the capture alone is `unknown-format`, an error, as the clients break on it (they decode lines, `data: ` and all)",
    # What the answer the server meant is, where clients read it two ways.
    "clients/corpus/bedrock-converse/tool-use-empty-input.bin": "a tool use with no `toolUse.input` fragment (a tool that takes no input): sselint's reconstruction and the raw loops join no fragment and give the empty string, the AI SDK gives `{}`; which the application runs is its decoding's choice, not the stream's",
    # A cut answer is an error though the Bedrock clients read on
    # (converse-cut-off's severity basis); the Invoke cut is reported by
    # the Messages checker's `messages-cut-off`.
    "clients/corpus/bedrock-invoke/ends-after-text.bin": "a cut answer stays an error although the Bedrock clients read on (as `converse-cut-off`'s severity basis says): they end with the text that came and no stop reason, and only the AI SDK's missing usage shows it; the rest of the answer never came",
}

REFERENCE = {
    "chat": "samples/good/openai-basic.sse",
    "responses": "samples/good/responses-basic.sse",
    "messages": "samples/good/messages-basic.sse",
    "gemini": "samples/good/gemini-basic.sse",
    "ollama": "samples/good/ollama-chat.ndjson",
    "bedrock-converse": "samples/good/bedrock-converse.bin",
    "bedrock-invoke": "samples/good/bedrock-invoke.bin",
    # src/lint/observed.rs's reference_capture for the socket clients.
    run.SOCKET: "samples/websocket/responses-two-turns.har",
    run.REALTIME: "samples/websocket/realtime-text.har",
}


# The client families of the breakdown, in its order: the SDKs (with the
# hand-written parser), the agent apps, the gateways.
FAMILIES = ("sdk", "agent", "gateway")


def family(client):
    """A record client's family: as the record says (run.py writes it), else
    as run.py's table has it, else an SDK (a record of before families)."""
    return client.get("family") or run.FAMILY.get(client["name"], "sdk")


def family_report(rows):
    """Per family and dialect: the captures where sselint's highest
    severity is the level that family's clients alone give."""
    lines = ["per client family (sselint's level against the level that family's clients alone give):"]
    for f in FAMILIES:
        cells, agree, total = [], 0, 0
        for d in DIALECTS:
            mine = [r for r in rows if r["dialect"] == d and f in r["families"]]
            if not mine:
                continue
            ok = sum(1 for r in mine if r["families"][f] == r["sselint"])
            cells.append(f"{d} {ok}/{len(mine)}")
            agree += ok
            total += len(mine)
        if total:
            lines.append(f"  {f}: {agree}/{total} ({', '.join(cells)})")
    return "\n".join(lines)


def fields(detail):
    return [p.split(" ")[0] for p in (detail or "").split("; ") if p.split(" ")[0]]


# The fields of an outcome's detail whose difference is a break (as
# src/lint/observed.rs's Record::verdict has them): another text, tool
# calls or finish, or an agent app that sent the conversation again.
BREAKS = ("text", "tool_calls", "finish_reason", "retried")


# Raises an SDK makes on purpose to report the finish the server sent
# (src/lint/observed.rs's DESIGNED_EXCEPTIONS): (finish, start of the detail).
DESIGNED_EXCEPTIONS = (
    ("length", "LengthFinishReasonError:"),
    ("content_filter", "ContentFilterFinishReasonError:"),
    ("incomplete", "RuntimeError: Didn't receive a `response.completed` event."),
    ("incomplete", "CodexError: Incomplete response returned, reason:"),
    ("content_filter", "OpencodeError: The response was blocked by the provider's content filter"),
)

# Finishes that say the token budget cut the answer (observed.rs's BUDGET_CUTS).
BUDGET_CUTS = ("length", "incomplete", "max_tokens", "MAX_TOKENS")


def finish_is(f, finish):
    return f == finish or f.startswith(finish + ":")


def expected_finish(capture):
    f = (capture.get("expected") or {}).get("finish_reason")
    return f if isinstance(f, str) else None


def designed_exception(capture, o):
    """A raise that reports the very finish the server sent: a faithful
    reading (observed.rs's designed_exception)."""
    f, d = expected_finish(capture), o.get("detail") or ""
    return (
        o["verdict"] == "raised"
        and f is not None
        and any(finish_is(f, fin) and d.startswith(r) for fin, r in DESIGNED_EXCEPTIONS)
    )


def verdict(record, name, o, capture=None):
    """The outcome judged as src/lint/observed.rs's Record::verdict judges
    it: a designed exception is `diverges`; otherwise against what the same
    client does with its dialect's reference stream (a field the client
    already reports otherwise there does not count)."""
    if capture is not None and designed_exception(capture, o):
        return "diverges"
    dialect = next((c["dialect"] for c in record["clients"] if c["name"] == name), "chat")
    base = record["captures"].get(REFERENCE.get(dialect, ""), {}).get("clients", {}).get(name)
    if not base or base["verdict"] == "ok" or o["verdict"] == "ok":
        return o["verdict"]
    if o["verdict"] == "raised":
        same = base["verdict"] == "raised" and base.get("detail") == o.get("detail")
        return "ok" if same else "raised"
    own = fields(base.get("detail"))
    left = [f for f in fields(o.get("detail")) if f not in own]
    if any(f in BREAKS for f in left):
        return "differs"
    return "diverges" if left else "ok"


def client_level(capture, record):
    """The level the clients' outcomes give (src/lint/observed.rs's
    Record::severity, with info as `below`), each outcome judged against
    what its client does with the dialect's reference stream."""
    outcomes = {n: verdict(record, n, o, capture) for n, o in capture["clients"].items()}
    broke = ("differs", "raised")
    if any(v in broke for n, v in outcomes.items() if n != "hand-written"):
        return "error"
    if any(v != "ok" for v in outcomes.values()):
        return "warning"
    # A budget cut is a warning in every dialect (Record::severity_of: the
    # dialect's budget-cut rule reports it).
    f = expected_finish(capture)
    if f is not None and any(finish_is(f, b) for b in BUDGET_CUTS):
        return "warning"
    return "below"


def example_extras():
    """Rule example id -> (request, max_event_bytes) where the example gives
    them."""
    out = {}
    for f in sorted((ROOT / "rules").glob("*/*.toml")):
        if f.parent.name in ("profiles", "schemas"):
            continue
        doc = tomllib.loads(f.read_text(encoding="utf-8"))
        for k, ex in enumerate(doc.get("examples", []), start=1):
            if "request" in ex or "max_event_bytes" in ex:
                out[f"{f.relative_to(ROOT)}#{k}"] = (ex.get("request"), ex.get("max_event_bytes"))
    return out


def severity_bases():
    """Rule name -> its severity_basis, for the rules that give one."""
    out = {}
    for f in sorted((ROOT / "rules").glob("*/*.toml")):
        if f.parent.name in ("profiles", "schemas"):
            continue
        doc = tomllib.loads(f.read_text(encoding="utf-8"))
        if doc.get("severity_basis"):
            out[doc["name"]] = doc["severity_basis"]
    return out


def apart_reason(row, bases):
    """Why a disagreeing capture disagrees by design, or None."""
    if row["id"] in APART:
        return APART[row["id"]]
    if row["rules"] and all(r in bases for r in row["rules"]):
        return "severity_basis of " + ", ".join(row["rules"])
    return None


def as_har(path, request, dialect):
    """A one-entry HAR: the capture as the response, `request` as the
    request body (POST to the dialect's path)."""
    api = {
        "responses": "/v1/responses",
        "messages": "/v1/messages",
        "gemini": "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    }.get(dialect, "/v1/chat/completions")
    har = {
        "log": {
            "version": "1.2",
            "creator": {"name": "clients/agreement.py", "version": "1"},
            "entries": [
                {
                    "request": {
                        "method": "POST",
                        "url": "http://127.0.0.1" + api,
                        "headers": [{"name": "content-type", "value": "application/json"}],
                        "postData": {"mimeType": "application/json", "text": request},
                    },
                    "response": {
                        "status": 200,
                        "headers": [{"name": "content-type", "value": "text/event-stream"}],
                        "content": {"mimeType": "text/event-stream", "text": path.read_text(encoding="utf-8")},
                    },
                }
            ],
        }
    }
    out = path.with_suffix(".har")
    out.write_text(json.dumps(har), encoding="utf-8")
    return out


def sselint_level(sselint, path, dialect, extras, socket=False):
    """(level, findings at that level as `rule (severity)`, error text).
    With `socket`, the findings of every stream of the capture: a socket's
    responses and the socket's own stream, which its clients read whole."""
    request, limit = extras or (None, None)
    args = [sselint, "check", "--format", "json", "--no-config", "--fail-on", "never", *run.dialect_args(dialect)]
    if limit is not None:
        args += ["--max-event-bytes", str(limit)]
    if request is not None:
        path = as_har(path, request, dialect)
    out = subprocess.run([*args, str(path)], capture_output=True, text=True)
    try:
        streams = json.loads(out.stdout)["files"][0]["streams"]
        streams = streams if socket else [streams[0]]
    except (json.JSONDecodeError, KeyError, IndexError):
        return None, [], (out.stderr or out.stdout).strip()[:200]
    found = [d for stream in streams for d in stream.get("diagnostics", []) if not d.get("suppressed")]
    rank = {"error": 2, "warning": 1}
    top = max((rank.get(d["severity"], 0) for d in found), default=0)
    level = LEVELS[top]
    rules = sorted({d["rule"] for d in found if rank.get(d["severity"], 0) == top})
    if top == 0:
        # Below warning: name the infos (if any), for context.
        rules = sorted({d["rule"] for d in found})
    return level, rules, None


def measure(record, sselint):
    dialect_of = {c["name"]: c["dialect"] for c in record["clients"]}
    family_of = {c["name"]: family(c) for c in record["clients"]}
    extras = example_extras()
    with tempfile.TemporaryDirectory(prefix="sselint-agreement-") as tmp:
        items = {cid: (p, d) for cid, p, d in run.corpus(tmp)}
        rows = []
        todo = [(cid, cap) for cid, cap in sorted(record["captures"].items()) if cid in items]
        missing = sorted(set(record["captures"]) - set(items))

        def one(entry):
            cid, cap = entry
            path, d = items[cid]
            dialect = dialect_of[next(iter(cap["clients"]))] if cap["clients"] else "chat"
            level, rules, err = sselint_level(sselint, path, d, extras.get(cid), socket=dialect in run.SOCKETS)
            fam = {}
            for f in FAMILIES:
                mine = {n: o for n, o in cap["clients"].items() if family_of.get(n) == f}
                if mine:
                    fam[f] = client_level({**cap, "clients": mine}, record)
            return {
                "id": cid,
                "dialect": dialect,
                "clients": client_level(cap, record),
                "families": fam,
                "sselint": level,
                "rules": rules,
                "check_error": err,
                "outcomes": {
                    n: o["verdict"] + (f" ({o['detail']})" if o.get("detail") else "")
                    for n, o in cap["clients"].items()
                    if o["verdict"] != "ok"
                },
            }

        with ThreadPoolExecutor(max_workers=2) as pool:
            rows = list(pool.map(one, todo))
    return rows, missing


def report(rows, missing):
    lines = []
    total_agree = 0
    total_apart = 0
    bases = severity_bases()

    def show(r, why=None):
        rules = ", ".join(r["rules"]) or "no finding"
        lines.append(f"  {r['id']}: sselint {r['sselint']} ({rules}); clients {r['clients']}")
        if why:
            lines.append(f"      by design: {why}")
        if r["check_error"]:
            lines.append(f"      check failed: {r['check_error']}")
        for n, o in r["outcomes"].items():
            lines.append(f"      {n}: {o}")

    for d in DIALECTS:
        mine = [r for r in rows if r["dialect"] == d]
        bad = [r for r in mine if r["clients"] != r["sselint"]]
        apart = [(r, apart_reason(r, bases)) for r in bad]
        apart = [(r, why) for r, why in apart if why]
        total_agree += len(mine) - len(bad)
        total_apart += len(apart)
        lines.append(
            f"{d}: {len(mine) - len(bad)}/{len(mine)} captures agree; "
            f"{len(bad) - len(apart)} disagree, {len(apart)} disagree by design"
        )
        for r in bad:
            if not apart_reason(r, bases):
                show(r)
        if apart:
            lines.append(f"  disagreeing by design ({len(apart)}, counted above as disagreeing):")
            for r, why in apart:
                show(r, why)
    lines.append(
        f"all: {total_agree}/{len(rows)} captures agree; "
        f"{len(rows) - total_agree - total_apart} disagree, {total_apart} disagree by design"
    )
    lines.append(family_report(rows))
    if missing:
        lines.append(f"not in the corpus any more (skipped): {', '.join(missing)}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sselint", default=str(ROOT / "target" / "debug" / "sselint"), help="the sselint binary")
    ap.add_argument("--record", default=str(run.RECORD), help="the harness's record (default rules/observed.json)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    ap.add_argument("--without", action="append", default=[], metavar="CLIENT", help="leave out this client's outcomes (repeatable)")
    args = ap.parse_args()
    if not Path(args.sselint).exists():
        sys.exit(f"clients/agreement.py: no sselint binary at {args.sselint} (cargo build, or pass --sselint)")
    record = json.loads(Path(args.record).read_text(encoding="utf-8"))
    unknown = set(args.without) - {c["name"] for c in record["clients"]}
    if unknown:
        sys.exit(f"clients/agreement.py: --without: no client {', '.join(sorted(unknown))} in the record")
    record["clients"] = [c for c in record["clients"] if c["name"] not in args.without]
    for cap in record["captures"].values():
        cap["clients"] = {n: o for n, o in cap["clients"].items() if n not in args.without}
    rows, missing = measure(record, args.sselint)
    if args.json:
        print(json.dumps({"rows": rows, "missing": missing}, indent=1, ensure_ascii=False))
    else:
        print(report(rows, missing))
    return 0


if __name__ == "__main__":
    sys.exit(main())
