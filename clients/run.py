#!/usr/bin/env python3
"""The client harness: what real clients do with each capture of the corpus.

For every capture of the corpus (each rule example in rules/DIALECT/*.toml, every file
under samples/, every capture under tests/cases/, the crafted streams under
clients/corpus/DIALECT/), it starts `sselint replay`
on 127.0.0.1, points each client of the capture's dialect at it
(clients/py_clients.py and clients/node_clients.mjs) and compares what each
client ended up with against the answer the server meant (sselint's own
reconstruction, `check --format json`):

- Chat Completions (and a stream of no known dialect): openai-python raw and
  its stream() helper, LangChain, openai-node raw and its stream() helper,
  the Vercel AI SDK, the seed document's hand-written parser;
- OpenAI Responses: openai-python and openai-node, each raw and with its
  responses.stream() helper, the Vercel AI SDK (@ai-sdk/openai), LangChain
  (ChatOpenAI with use_responses_api);
- Anthropic Messages: the Anthropic Python and TypeScript SDKs, each raw and
  with its messages.stream() helper, the Vercel AI SDK (@ai-sdk/anthropic),
  LangChain (ChatAnthropic);
- Google Gemini (streamGenerateContent): google-genai (Python) and
  @google/genai, each raw, the Vercel AI SDK (@ai-sdk/google);
- Ollama's native API (NDJSON, /api/chat and /api/generate): ollama-python
  and ollama-js, the Vercel AI SDK (ollama-ai-provider-v2);
- OpenAI Responses over a WebSocket (WebSocket mode; a socket's message
  log or HAR entry, replayed as a WebSocket endpoint): openai-python's
  client.responses.connect() and openai-node's ResponsesWS;
- the OpenAI Realtime API, text mode (a Realtime session's message log or
  HAR entry, replayed as a WebSocket endpoint): openai-python's
  client.realtime.connect() and openai-node's OpenAIRealtimeWS (each in the
  beta interface where the capture's application spoke it);
- Amazon Bedrock ConverseStream and InvokeModelWithResponseStream (AWS
  event-stream frames): boto3's bedrock-runtime client and
  @aws-sdk/client-bedrock-runtime, the Vercel AI SDK (@ai-sdk/amazon-bedrock,
  its Anthropic provider for Invoke);
- the agent apps (clients/agent_clients.py): Claude Code (Messages), Codex
  CLI (Responses), Gemini CLI (Gemini), opencode (Chat, Responses and
  Messages);
- the gateway (clients/gateway_clients.py): LiteLLM as a library, reading
  Chat, Messages and Gemini and handing on Chat chunks.

    clients/run.py                 regenerate rules/observed.json
    clients/run.py --check         fail (exit 1) when a fresh run differs
    clients/run.py --only NAME     only captures whose id contains NAME; prints
    clients/run.py --check --agents-subset   the agent apps on clients/agents-subset.txt only (CI)
    clients/run.py --check --no-agents       no agent app (their recorded outcomes stand)

Needs clients/.venv (pip install -r clients/requirements.txt),
clients/node_modules (npm ci in clients/), clients/agents/node_modules (npm
ci in clients/agents/) and clients/.venv-litellm (pip install -r
clients/requirements-litellm.txt); see clients/README.md.
"""

import argparse
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLIENTS_DIR = ROOT / "clients"
RECORD = ROOT / "rules" / "observed.json"

# Client name -> (runtime, dialect, how it is used). The order is the
# table's order: Chat's clients, then Responses', then Messages'.
CLIENTS = {
    "openai-python": ("python", "chat", "openai-python: iterate chat.completions.create(stream=True)"),
    "openai-python-stream": ("python", "chat", "openai-python: chat.completions.stream() helper, get_final_completion()"),
    "langchain": ("python", "chat", "langchain-openai: ChatOpenAI.stream(), chunks added up"),
    "openai-node": ("node", "chat", "openai-node: for await over chat.completions.create({stream: true})"),
    "openai-node-stream": ("node", "chat", "openai-node: chat.completions.stream() helper, finalChatCompletion()"),
    "vercel-ai": ("node", "chat", "Vercel AI SDK: streamText() with @ai-sdk/openai-compatible, fullStream"),
    "hand-written": ("node", "chat", "the seed document's fetch loop: split on \\n, 'data: ' lines, [DONE], JSON.parse, choices[0]?.delta?.content"),
    "openai-python-responses": ("python", "responses", "openai-python: iterate responses.create(stream=True): text deltas, function_call items and their argument deltas, the terminal event's status and usage"),
    "openai-python-responses-stream": ("python", "responses", "openai-python: responses.stream() helper, get_final_response()"),
    "openai-node-responses": ("node", "responses", "openai-node: for await over responses.create({stream: true}), collected as openai-python-responses"),
    "openai-node-responses-stream": ("node", "responses", "openai-node: responses.stream() helper, finalResponse()"),
    # Responses over a WebSocket (WebSocket mode): the capture is a socket's
    # message log or a HAR's socket entry, replayed as a WebSocket endpoint.
    "openai-python-responses-ws": ("python", "responses-ws", "openai-python: client.responses.connect(), each response.create of the capture sent once the messages before it arrived, the connection iterated; each response's text, function calls, status and usage, by lane (stream_id), first in, first out"),
    "openai-node-responses-ws": ("node", "responses-ws", "openai-node: ResponsesWS (openai/resources/responses/ws, over ws), send() and for await over its records, collected as openai-python-responses-ws; an error record is what the application is told went wrong"),
    # The Realtime API in text mode: a Realtime session's message log or HAR
    # entry, replayed as a WebSocket endpoint.
    "openai-python-realtime": ("python", "realtime", "openai-python: client.realtime.connect(model=…) (client.beta.realtime.connect() where the capture's application spoke the beta interface), each client message of the capture sent once the messages before it arrived (session.update, conversation.item.create, response.create through the connection's methods), the connection iterated; each response's text and audio-transcript deltas of its interface's names, function calls and their argument deltas, response.done's status and usage"),
    "openai-node-realtime": ("node", "realtime", "openai-node: OpenAIRealtimeWS (openai/realtime/ws; openai/beta/realtime/ws for the beta interface), send() and its 'event' listener, collected as openai-python-realtime; an 'error' event is what the application is told went wrong"),
    "vercel-ai-responses": ("node", "responses", "Vercel AI SDK: streamText() with @ai-sdk/openai's responses() model, fullStream"),
    "langchain-responses": ("python", "responses", "langchain-openai: ChatOpenAI(use_responses_api=True).stream(), chunks added up"),
    "anthropic-python": ("python", "messages", "anthropic-sdk-python: iterate messages.create(stream=True): blocks by index, text and input_json deltas, message_delta's stop_reason and usage"),
    "anthropic-python-stream": ("python", "messages", "anthropic-sdk-python: messages.stream() helper, get_final_message()"),
    "anthropic-ts": ("node", "messages", "anthropic-sdk-typescript: for await over messages.create({stream: true}), collected as anthropic-python"),
    "anthropic-ts-stream": ("node", "messages", "anthropic-sdk-typescript: messages.stream() helper, finalMessage()"),
    "vercel-ai-messages": ("node", "messages", "Vercel AI SDK: streamText() with @ai-sdk/anthropic, fullStream"),
    "langchain-messages": ("python", "messages", "langchain-anthropic: ChatAnthropic.stream(), chunks added up"),
    "google-genai": ("python", "gemini", "google-genai: iterate models.generate_content_stream() (automatic function calling off): each chunk's text and function_calls, candidate 0's thought text, the last finishReason and usageMetadata"),
    "google-genai-js": ("node", "gemini", "@google/genai: for await over models.generateContentStream(), collected as google-genai"),
    "vercel-ai-google": ("node", "gemini", "Vercel AI SDK: streamText() with @ai-sdk/google, fullStream"),
    "ollama-python": ("python", "ollama", "ollama-python: iterate Client(host=…).chat(stream=True) (generate() for an /api/generate stream): content and thinking appended, tool_calls collected, the done part's done_reason and counts"),
    "ollama-js": ("node", "ollama", "ollama-js: for await over new Ollama({host}).chat({stream: true}) (generate() for an /api/generate stream), collected as ollama-python"),
    "vercel-ai-ollama": ("node", "ollama", "Vercel AI SDK: streamText() with ollama-ai-provider-v2 (its chat model, its completion model for /api/generate), fullStream"),
    "boto3-converse": ("python", "bedrock-converse", "boto3: bedrock-runtime converse_stream() with endpoint_url at the replay, its stream's events by member: blocks by contentBlockIndex, messageStop's stopReason, metadata's usage"),
    "aws-sdk-js-converse": ("node", "bedrock-converse", "@aws-sdk/client-bedrock-runtime: ConverseStreamCommand (HTTP/1.1 handler), for await over its stream, collected as boto3-converse"),
    "vercel-ai-bedrock": ("node", "bedrock-converse", "Vercel AI SDK: streamText() with @ai-sdk/amazon-bedrock (ConverseStream), fullStream"),
    "boto3-invoke": ("python", "bedrock-invoke", "boto3: bedrock-runtime invoke_model_with_response_stream() with a Claude body, each chunk's bytes decoded as a Messages event and accumulated as anthropic-python"),
    "anthropic-python-bedrock": ("python", "bedrock-invoke", "anthropic-sdk-python: AnthropicBedrock(base_url at the replay).messages.create(stream=True), iterated as anthropic-python"),
    "aws-sdk-js-invoke": ("node", "bedrock-invoke", "@aws-sdk/client-bedrock-runtime: InvokeModelWithResponseStreamCommand (HTTP/1.1 handler), each chunk's bytes decoded, collected as boto3-invoke"),
    "vercel-ai-bedrock-invoke": ("node", "bedrock-invoke", "Vercel AI SDK: streamText() with @ai-sdk/amazon-bedrock/anthropic (InvokeModelWithResponseStream), fullStream"),
    # The agent apps (clients/agent_clients.py), each run as its user runs it.
    "claude-code": ("agent", "messages", "Claude Code: claude -p hi --output-format stream-json, no tools, one turn; its assistant messages and result event"),
    "codex": ("agent", "responses", "Codex CLI: codex exec --json --ephemeral -s read-only hi, a model provider with wire_api responses; its agent_message items, turn usage, and the function_call items of its follow-up request"),
    # The gateway (clients/gateway_clients.py): LiteLLM as a library, each
    # dialect read through its provider and handed on as Chat chunks.
    "litellm-chat": ("gateway", "chat", "LiteLLM: litellm.completion(model='openai/…', stream=True), the Chat chunks it yields"),
    "litellm-messages": ("gateway", "messages", "LiteLLM: litellm.completion(model='anthropic/…', stream=True), the Messages stream translated into Chat chunks"),
    "litellm-gemini": ("gateway", "gemini", "LiteLLM: litellm.completion(model='gemini/…', stream=True), the Gemini stream translated into Chat chunks"),
    "gemini-cli": ("agent", "gemini", "Gemini CLI: gemini -p hi -m gemini-2.5-flash --skip-trust -o stream-json, Gemini API key auth, its tools excluded; its assistant message deltas, result stats, and the functionCall parts of its follow-up request"),
    "opencode-chat": ("agent", "chat", "opencode: opencode run hi --format json --pure --title hi, a provider with @ai-sdk/openai-compatible, every tool denied; the first step's text and tool parts and its tokens"),
    "opencode-responses": ("agent", "responses", "opencode: opencode run hi --format json --pure --title hi, a provider with @ai-sdk/openai (Responses), every tool denied; the first step's text and tool parts and its tokens"),
    "opencode-messages": ("agent", "messages", "opencode: opencode run hi --format json --pure --title hi, a provider with @ai-sdk/anthropic, every tool denied; the first step's text and tool parts and its tokens"),
}
# Each client's family, for agreement.py's breakdown: the SDKs (and the
# hand-written parser), the agent apps, the gateways.
FAMILY = {name: {"agent": "agent", "gateway": "gateway"}.get(rt, "sdk") for name, (rt, _, _) in CLIENTS.items()}
# The captures the agent apps read under --agents-subset (CI): one per line
# of clients/agents-subset.txt; the rest keep their recorded outcomes.
AGENTS_SUBSET = CLIENTS_DIR / "agents-subset.txt"
# The gateway's venv (clients/requirements-litellm.txt): without it the
# gateway's recorded outcomes stand (tests/clients.rs says SKIPPED).
GATEWAY_PYTHON = CLIENTS_DIR / ".venv-litellm" / "bin" / "python"
# The committed record: the outcomes a run that leaves some clients out
# keeps for them.
RECORDED = json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.exists() else {"clients": [], "captures": {}}
DIALECTS = ("chat", "responses", "messages", "gemini", "ollama", "bedrock-converse", "bedrock-invoke", "responses-ws", "realtime")
# The socket "dialect" of the record: Responses events over a WebSocket,
# read by the clients of WebSocket mode, not by the HTTP clients.
SOCKET = "responses-ws"
# The Realtime API's dialect: a socket too, read by the SDKs' Realtime
# clients.
REALTIME = "realtime"
# The record's dialects whose captures are sockets, compared response by
# response (compare_socket).
SOCKETS = (SOCKET, REALTIME)
# Each dialect's title, as sselint's messages name it (src/vocab.rs).
TITLES = {
    "OpenAI Chat Completions": "chat",
    "OpenAI Responses": "responses",
    "Anthropic Messages": "messages",
    "Google Gemini": "gemini",
    "Ollama": "ollama",
    "Amazon Bedrock ConverseStream": "bedrock-converse",
    "Amazon Bedrock InvokeModelWithResponseStream": "bedrock-invoke",
}


def clients_of(dialect):
    """The clients that read a capture of `dialect` (None, a stream of no
    known dialect, is served and read as Chat)."""
    dialect = dialect if dialect in DIALECTS else "chat"
    return [name for name, (_, d, _) in CLIENTS.items() if d == dialect]


# What each client's outcome is compared on. The hand-written parser only
# collects text; the Vercel AI SDK has no refusal field, nor has LangChain's
# Chat message (its Responses message has refusal blocks); the Messages API
# has no refusal field.
COMPARED = {name: ("text", "refusal", "tool_calls", "finish_reason", "usage") for name in CLIENTS}
COMPARED["hand-written"] = ("text",)
for _name in ("vercel-ai", "vercel-ai-responses", "langchain"):
    COMPARED[_name] = ("text", "tool_calls", "finish_reason", "usage")
for _name in clients_of("messages"):
    COMPARED[_name] = ("text", "tool_calls", "finish_reason", "usage")
# Gemini has no refusal field; candidate 0's thought parts are its reasoning.
# Nor have Ollama (its `thinking` is the reasoning) and Bedrock (Converse's
# `reasoningContent`, the thinking blocks of Invoke's Messages events).
for _name in clients_of("gemini") + clients_of("ollama") + clients_of("bedrock-converse") + clients_of("bedrock-invoke"):
    COMPARED[_name] = ("text", "reasoning", "tool_calls", "finish_reason", "usage")
# Ollama matches a tool result to its call by the function's name
# (`tool_name`); a call's `id` is a later, optional field that
# ollama-python's model does not keep. Ollama's tool calls are compared on
# the name and arguments.
TOOL_CALL_IDS_UNCOMPARED = {"ollama"}
# The Vercel AI SDK's Ollama provider reports the finish `tool_calls` for
# a stream that called tools (ollama-ai-provider-v2's finalizeStream), where
# Ollama's done line says `stop`: that is its name for the same finish, as
# a gateway's `tool_calls` is for Messages' `tool_use`. Any other finish
# it reports as sent.
TOOL_STOP = {"vercel-ai-ollama": ("stop", "tool_calls")}
# What each agent app shows (clients/README.md): Claude Code's stream-json
# gives the text and tool_use blocks, the stop_reason and usage.
COMPARED["claude-code"] = ("text", "tool_calls", "finish_reason", "usage")
# Codex CLI shows the text and usage (no status); its function calls are
# read from its follow-up request.
COMPARED["codex"] = ("text", "tool_calls", "usage")
# The usage counts a client shows, where it shows fewer than its dialect's.
CLIENT_USAGE_KEYS = {"codex": ("input_tokens", "output_tokens")}
# LiteLLM hands on Chat chunks: the text, the tool calls, Chat's
# finish_reason (compared through GATEWAY_FINISH) and Chat's usage counts
# (compared through GATEWAY_USAGE).
for _name in ("litellm-chat", "litellm-messages", "litellm-gemini"):
    COMPARED[_name] = ("text", "tool_calls", "finish_reason", "usage")
# The finish a gateway hands on for each dialect's own, as Chat names it
# (the mapping OpenAI-compatible gateways document: a budget cut is
# `length`, a tool call `tool_calls`, a filter `content_filter`). A finish
# the table does not name is compared as sent.
GATEWAY_FINISH = {
    "messages": {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls", "refusal": "content_filter"},
    "gemini": {"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter", "RECITATION": "content_filter", "PROHIBITED_CONTENT": "content_filter", "BLOCKLIST": "content_filter", "SPII": "content_filter"},
}
# Chat's documented finish reasons.
CHAT_FINISHES = ("stop", "length", "tool_calls", "content_filter", "function_call")
# A dialect's usage counts in Chat's terms, as a gateway hands them on
# (Chat's own meaning: `prompt_tokens` counts the cached input, and
# `completion_tokens` the reasoning): each Chat count against the sum of
# the dialect's counts it stands for.
GATEWAY_USAGE = {
    "messages": {
        "prompt_tokens": ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"),
        "completion_tokens": ("output_tokens",),
    },
    "gemini": {
        "prompt_tokens": ("promptTokenCount",),
        "completion_tokens": ("candidatesTokenCount", "thoughtsTokenCount"),
        "total_tokens": ("totalTokenCount",),
    },
}
# Gemini CLI shows the text and its stats' token counts (no finishReason,
# no thoughts); its function calls are read from its follow-up request.
COMPARED["gemini-cli"] = ("text", "tool_calls", "usage")
# opencode shows the text, the tool calls (its tool parts: a call of a tool
# it lacks ends in error, nothing runs) and each step's tokens; its finish
# is the AI SDK's own word for it (`stop`, `tool-calls`, `length`), which
# does not tell the dialect's apart (`end_turn` from `stop_sequence`), so it
# is not compared.
for _name in ("opencode-chat", "opencode-responses", "opencode-messages"):
    COMPARED[_name] = ("text", "tool_calls", "usage")
# The usage counts compared, by dialect (each API's own names).
USAGE_KEYS = {
    "chat": ("prompt_tokens", "completion_tokens", "total_tokens"),
    "responses": ("input_tokens", "output_tokens", "total_tokens"),
    "messages": ("input_tokens", "output_tokens"),
    "gemini": ("promptTokenCount", "candidatesTokenCount", "totalTokenCount"),
    "ollama": ("prompt_eval_count", "eval_count"),
    "bedrock-converse": ("inputTokens", "outputTokens", "totalTokens"),
    "bedrock-invoke": ("input_tokens", "output_tokens"),
    "responses-ws": ("input_tokens", "output_tokens", "total_tokens"),
    "realtime": ("input_tokens", "output_tokens", "total_tokens"),
}

# Capture id -> the text the server meant, where the rule example says
# (`meant_text`: text sent under a key clients do not read).
MEANT = {}

# Capture files whose meant text is not sselint's literal reconstruction:
# a server that sends the text so far in every delta (`cumulative-content`)
# meant the last snapshot, and every client that appends deltas shows the
# text repeated. A rule example says the same with `meant_text`.
MEANT_FILES = {
    "samples/bad/cumulative-content.sse": "A rainbow has seven colours.",
    "tests/cases/31-snapshot-deltas.sse": "Fix the typo in line 3",
    # The `*-repeated-answer` samples: the last delta repeats the whole
    # answer, which the server meant once.
    "samples/bad/repeated-answer.sse": "Tea steeps best just below boiling.",
    "samples/bad/responses-repeated-answer.sse": "Owls turn their heads, not their eyes.",
    "samples/bad/messages-repeated-answer.sse": "Glass is a liquid only in folklore.",
    "samples/bad/gemini-repeated-answer.sse": "Bees dance to show the hive where flowers are.",
}

CAPTURE_SUFFIXES = {".sse", ".har", ".curl", ".trace", ".txt", ".bin", ".log", ".ndjson", ".jsonl"}


def corpus(tmp):
    """(id, path, dialect) of every capture the harness runs, sorted by id.
    A rule example's dialect is its rule's folder (`rules/responses/…`);
    None elsewhere (told from the capture, as `check` tells it)."""
    items = []
    ex_dir = Path(tmp) / "examples"
    ex_dir.mkdir()
    for f in sorted((ROOT / "rules").glob("*/*.toml")):
        if f.parent.name in ("profiles", "schemas"):
            continue
        rel = f.relative_to(ROOT)
        doc = tomllib.loads(f.read_text(encoding="utf-8"))
        # A socket's rules (group socket): their examples are WebSocket
        # message logs, read by the socket clients (SOCKET). The Realtime
        # API's (rules/realtime/) are message logs or HARs, read by the
        # Realtime clients (REALTIME).
        suffix = ".jsonl" if doc.get("group") == "socket" else ".sse"
        for k, ex in enumerate(doc.get("examples", []), start=1):
            if "capture" in ex:
                data = ex["capture"].encode("utf-8")
            else:
                data = bytes.fromhex(ex.get("capture_hex", ""))
            if f.parent.name == REALTIME:
                head = data.lstrip()[:200]
                suffix = ".har" if head.startswith(b"{") and b'"log"' in head else ".jsonl"
            p = ex_dir / f"{f.parent.name}-{f.stem}-{k}{suffix}"
            p.write_bytes(data)
            items.append((f"{rel}#{k}", p, f.parent.name if f.parent.name in DIALECTS else None))
            if "meant_text" in ex:
                MEANT[f"{rel}#{k}"] = ex["meant_text"]
    for base in ("samples", "tests/cases"):
        for p in sorted((ROOT / base).rglob("*")):
            if p.is_file() and p.suffix in CAPTURE_SUFFIXES:
                items.append((str(p.relative_to(ROOT)), p, None))
    # The harness's own crafted streams, one folder per dialect: read as the
    # folder's dialect, as a rule example is.
    for p in sorted((CLIENTS_DIR / "corpus").glob("*/*")):
        if p.parent.name in DIALECTS and p.suffix in CAPTURE_SUFFIXES:
            items.append((str(p.relative_to(ROOT)), p, p.parent.name))
    MEANT.update(MEANT_FILES)
    return sorted(items)


def dialect_args(dialect):
    return ["--dialect", dialect] if dialect else []


def socket_messages(path):
    """A WebSocket capture's messages as (direction, opcode, data), in
    order, or None when `path` is no socket: a message log (one JSON record
    a line: `direction` sent/received, `opcode`, `data`), or a HAR whose
    first entry with `_webSocketMessages` is the socket (Chrome's `type`
    send/receive), as `sselint replay` reads them."""
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    first = next((l for l in text.splitlines() if l.strip()), "")
    try:
        head = json.loads(first)
    except (json.JSONDecodeError, ValueError):
        head = None
    if isinstance(head, dict) and "direction" in head and "opcode" in head:
        out = []
        for line in text.splitlines():
            try:
                r = json.loads(line)
            except (json.JSONDecodeError, ValueError):
                continue
            if isinstance(r, dict):
                out.append((r.get("direction"), r.get("opcode"), r.get("data")))
        return out
    try:
        har = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None
    entries = ((har or {}).get("log") or {}).get("entries") if isinstance(har, dict) else None
    for e in entries or []:
        msgs = e.get("_webSocketMessages") if isinstance(e, dict) else None
        if msgs:
            return [({"send": "sent", "receive": "received"}.get(m.get("type")), m.get("opcode"), m.get("data")) for m in msgs]
    return None


def socket_script(messages):
    """What a socket client sends, and when: each client message (its JSON)
    with the number of server messages the capture shows before it
    (`after`), the number of server messages in all (`received`), and
    whether the server then closes the socket (`closes`: a close of the
    server's, opcode 8, or a connection that just ends; then the client
    reads on until the socket closes, as an application that iterates the
    connection to its end does). A close is no message. `beta`: the
    application spoke the Realtime API's beta interface (its session or
    response settings name `modalities`, which GA calls
    `output_modalities`)."""
    sends, seen, closes = [], 0, False
    for direction, opcode, data in messages:
        if opcode == 8 or (opcode not in (1, 2) and direction == "received"):
            closes = closes or direction == "received"
            continue
        if direction == "sent":
            try:
                event = json.loads(data)
            except (json.JSONDecodeError, TypeError, ValueError):
                continue
            sends.append({"after": seen, "event": event})
        elif direction == "received" and opcode in (1, 2):
            seen += 1
    beta = any(
        isinstance(s["event"], dict)
        and any(isinstance(s["event"].get(k), dict) and "modalities" in s["event"][k] for k in ("session", "response"))
        for s in sends
    )
    return {"sends": sends, "received": seen, "closes": closes, "beta": beta}


def socket_answer(doc, messages):
    """The answers a socket meant: each response's stream of `check` (not
    the socket's own, labelled `· socket`), in order. The record's dialect
    is REALTIME for a Realtime session, else SOCKET; a Realtime answer's
    text is its text and its audio transcript (a text-mode application
    shows either)."""
    responses = []
    dialect = SOCKET
    for stream in doc["files"][0]["streams"]:
        label = stream.get("label") or ""
        if label.endswith(" · socket"):
            continue
        if stream.get("dialect") == REALTIME:
            dialect = REALTIME
        choice = next((c for c in stream.get("choices", []) if c.get("index") == 0), None) or {}
        usage = stream.get("usage")
        finish = choice.get("finish_reason")
        responses.append(
            {
                "id": label.rsplit(" · ", 1)[-1].split(" (")[0],
                "text": (choice.get("text") or "") + (choice.get("transcript") or ""),
                "refusal": choice.get("refusal"),
                "tool_calls": [
                    {"id": t.get("id"), "name": t.get("name"), "arguments": t.get("arguments")}
                    for t in choice.get("tool_calls", [])
                    if not t.get("server")
                ],
                "finish_reason": finish.split(":")[0] if isinstance(finish, str) else finish,
                "usage": {k: usage.get(k) for k in USAGE_KEYS[dialect]} if isinstance(usage, dict) else None,
            }
        )
    return {
        "dialect": dialect,
        "responses": responses,
        "tool_calls": [t for r in responses for t in r["tool_calls"]],
        "socket": socket_script(messages),
        "path_dialect": None,
        "api": None,
    }


def expected_answer(sselint, path, dialect):
    """The answer the server meant: sselint's reconstruction of choice 0,
    with the stream's dialect (`--dialect` when the capture's is known);
    for a WebSocket capture, each response's (`socket_answer`)."""
    out = subprocess.run(
        [sselint, "check", "--format", "json", "--no-config", "--fail-on", "never", *dialect_args(dialect), str(path)],
        capture_output=True,
        text=True,
    )
    try:
        doc = json.loads(out.stdout)
        stream = doc["files"][0]["streams"][0]
    except (json.JSONDecodeError, KeyError, IndexError):
        return None
    messages = socket_messages(path)
    if messages is not None:
        return socket_answer(doc, messages)
    if stream.get("dialect") == REALTIME:
        # Realtime events a relay passed on over HTTP (server-sent events):
        # the SDKs read the Realtime API over a WebSocket only, so no
        # client here reads them (tests/observed.rs leaves them out).
        return None
    choice = next((c for c in stream.get("choices", []) if c.get("index") == 0), None)
    usage = stream.get("usage")
    dialect = stream.get("dialect") if stream.get("dialect") in DIALECTS else None
    finish = (choice or {}).get("finish_reason")
    if dialect == "responses" and isinstance(finish, str):
        # sselint adds an incomplete response's reason after a colon
        # ("incomplete: max_output_tokens"); a client reports the status.
        finish = finish.split(":")[0]
    return {
        "dialect": dialect,
        "text": (choice or {}).get("text") or "",
        "refusal": (choice or {}).get("refusal"),
        "reasoning": (choice or {}).get("reasoning"),
        # The calls the application gets to run: a call the server ran
        # itself (`"server": true`, a web search) is not one of them.
        "tool_calls": [
            {"id": t.get("id"), "name": t.get("name"), "arguments": t.get("arguments")}
            for t in (choice or {}).get("tool_calls", [])
            if not t.get("server")
        ],
        "finish_reason": finish,
        "usage": {k: usage.get(k) for k in USAGE_KEYS[dialect or "chat"]} if isinstance(usage, dict) else None,
        # Every count, for a gateway's Chat counts that add several up.
        "usage_all": usage if isinstance(usage, dict) else None,
        "http_status": (stream.get("http") or {}).get("status"),
        "path_dialect": path_dialect(stream),
        "api": ollama_api(path) if dialect == "ollama" else None,
    }


def ollama_api(path):
    """Which of Ollama's streaming endpoints a capture answers, as the
    replay serves it: `generate` when its first JSON line has a `response`
    and no `message` (an `/api/generate` line), `chat` otherwise."""
    for line in Path(path).read_bytes().splitlines():
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
            continue
        if isinstance(obj, dict):
            return "generate" if "response" in obj and "message" not in obj else "chat"
    return "chat"


def path_dialect(stream):
    """The dialect the request path names, when `path-dialect-mismatch`
    says it names another than the body's ("the request went to `…`, an
    OpenAI Chat Completions path, but the body is …"); None otherwise."""
    for d in stream.get("diagnostics", []):
        if d.get("rule") == "path-dialect-mismatch":
            m = re.search(r"`, an? (.+?) path, but the body", d.get("message", ""))
            if m and m.group(1) in TITLES:
                return TITLES[m.group(1)]
    return None


class Replays:
    """`sselint replay` of each capture on 127.0.0.1, port picked by the OS,
    at its dialect's path (`--dialect` where the corpus says it): a client
    of another dialect would get a 404. `items` are (key, path, dialect)."""

    def __init__(self, sselint, items):
        self.procs = []
        self.urls = {}
        for cid, path, dialect in items:
            p = subprocess.Popen(
                [sselint, "replay", str(path), "--listen", "127.0.0.1:0", "--delay-ms", "0", *dialect_args(dialect)],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            self.procs.append(p)
            line = p.stdout.readline()
            # A socket's capture is served as ws://ADDR/…; its clients take
            # the same http:// base URL and make the ws:// one from it.
            m = re.search(r"(?:http|ws)://([0-9.]+:[0-9]+)", line)
            if m:
                self.urls[cid] = f"http://{m.group(1)}"

    def close(self):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


# The job key of a capture served at its request path's dialect.
PATH_JOB = "path:"

PORT = re.compile(r"(127\.0\.0\.1|localhost):\d+")
ADDR = re.compile(r"0x[0-9a-f]{6,}")


# A run of 10 digits or more: a timestamp in an id an app made up
# (Gemini CLI's `generic_tool_1796613117087_1`).
STAMP = re.compile(r"\d{10,}")


# The id the AI SDK makes up for a text or reasoning part
# (`generateId()`, 16 characters), named in its "text part … not found".
PART_ID = re.compile(r"\b(text|reasoning) part [A-Za-z0-9_-]{8,} not found")


def scrub(s):
    return PART_ID.sub(r"\1 part … not found", STAMP.sub("…", ADDR.sub("0x…", PORT.sub(r"\1:PORT", s))))


def json_or_text(s):
    if not isinstance(s, str):
        return s
    try:
        return json.loads(s)
    except (json.JSONDecodeError, ValueError):
        return s


def short(v, n=60):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= n else s[: n - 1] + "…"


def compare_socket(name, exp, got):
    """`compare` for a socket: each response the client collected against
    the one the server meant, in order (the detail of one names its
    response: `text "…" (resp_2)`); a response the client did not collect
    is compared as an empty one, one the server did not mean as `text` of
    an extra response. A client that raised is `raised`."""
    if got is None or "error" in got:
        return compare(name, exp, got)
    want, have = exp["responses"], got.get("responses") or []
    empty = {"text": "", "refusal": None, "tool_calls": [], "finish_reason": None, "usage": None}
    rank = {"ok": 0, "diverges": 1, "differs": 2}
    worst, parts = "ok", []
    for i, w in enumerate(want):
        e = {**w, "dialect": exp["dialect"], "reasoning": None}
        o = compare(name, e, have[i] if i < len(have) else empty)
        if o["verdict"] != "ok":
            worst = max(worst, o["verdict"], key=rank.get)
            parts += [f"{p} ({w['id']})" for p in o["detail"].split("; ")]
    for extra in have[len(want):]:
        worst = "differs"
        parts.append(f"text {short(extra.get('text') or '')} (an extra response, {extra.get('id')})")
    return {"verdict": worst, "detail": scrub("; ".join(parts))} if parts else {"verdict": "ok"}


def compare(name, exp, got):
    """{"verdict": …, "detail": …}: `ok` (the answer the server meant), `diverges`
    (usage or refusal reported otherwise; text, tool calls and finish right),
    `differs` (another text, tool calls or finish_reason), `raised`. The
    same for every dialect: a Responses status and a Messages stop_reason
    are its finish_reason, usage is compared on the dialect's counts."""
    if got is None:
        return {"verdict": "raised", "detail": "no result (client crashed or timed out)"}
    retried = got.get("retries") or 0
    if "error" in got:
        e = got["error"]
        more = f"; retried {retried}x" if retried else ""
        outcome = {"verdict": "raised", "detail": scrub(f"{e['type']}: {e['message']}")}
        if retried and e["type"] == "Timeout":
            # How many retries fit in the time bound depends on the load
            # (Gemini CLI's on clients/corpus/gemini/http-429.sse were 3,
            # then 2 in the next run): neither the detail nor `requests`
            # counts them.
            outcome["detail"] += "; retried"
            return outcome
        outcome["detail"] += more
        return with_requests(outcome, got)
    diffs, minor = [], []
    if retried:
        # An agent app that sent the same conversation again: the user
        # waits, or sees the answer twice.
        diffs.append(f"retried {retried}x")
    fields = COMPARED[name]
    got_text = got.get("text") or ""
    if "text" in fields and got_text != exp["text"]:
        if exp["refusal"] and got_text == exp["text"] + exp["refusal"]:
            # The refusal shown as answer text: the user reads it either way.
            minor.append("refusal shown as text")
        else:
            diffs.append(f"text {short(got_text)}")
    if "refusal" in fields and (got.get("refusal") or None) != (exp["refusal"] or None):
        minor.append(f"refusal {short(got.get('refusal'))}")
    if "reasoning" in fields and (got.get("reasoning") or None) != (exp.get("reasoning") or None):
        # Thought text lost or changed: the answer the user reads is intact.
        minor.append(f"reasoning {short(got.get('reasoning'))}")
    want_finish = exp["finish_reason"]
    gateway_of = exp["dialect"] if CLIENTS[name][0] == "gateway" else None
    if gateway_of in GATEWAY_FINISH and want_finish in GATEWAY_FINISH[gateway_of]:
        want_finish = GATEWAY_FINISH[gateway_of][want_finish]
        if want_finish == "stop" and exp["tool_calls"]:
            want_finish = "tool_calls"
    elif want_finish is not None and (gateway_of in GATEWAY_FINISH or gateway_of == "chat" and want_finish not in CHAT_FINISHES):
        # A finish with no Chat counterpart (a value outside the dialect's
        # documented set, or one Chat has no word for): a gateway must pick
        # one of Chat's, and which it picks is not compared.
        want_finish = got.get("finish_reason")
    # An agent app that went on after the replayed turn shows no finish of
    # it: its outcome has no `finish_reason` key, and the finish is not
    # compared.
    if name in TOOL_STOP and want_finish == TOOL_STOP[name][0] and exp["tool_calls"]:
        want_finish = TOOL_STOP[name][1]
    if "finish_reason" in fields and "finish_reason" in got and got.get("finish_reason") != want_finish:
        diffs.append(f"finish_reason {short(got.get('finish_reason'))}")
    if "tool_calls" in fields:
        ids = exp["dialect"] not in TOOL_CALL_IDS_UNCOMPARED
        want = [((t["id"] or None) if ids else None, t["name"] or None, json_or_text(t["arguments"])) for t in exp["tool_calls"]]
        have = []
        for i, t in enumerate(got.get("tool_calls") or []):
            tid = (t.get("id") or None) if ids else None
            # A client that makes up an id where the stream sent none
            # (the Vercel AI SDK does) is not a difference.
            if i < len(want) and want[i][0] is None and tid is not None:
                tid = None
            have.append((tid, t.get("name") or None, json_or_text(t.get("arguments"))))
        if have != want:
            diffs.append("tool_calls " + short([list(h) for h in have], 120))
    # An agent app that went on after a tool call (its follow-up request,
    # which the relay refuses) shows no usage of the replayed turn: its
    # outcome has no `usage` key, and usage is not compared.
    if "usage" in fields and exp["usage"] is not None and "usage" in got:
        u = got.get("usage")
        keys = CLIENT_USAGE_KEYS.get(name, USAGE_KEYS[exp["dialect"] or "chat"])
        if gateway_of in GATEWAY_USAGE:
            # Chat's counts against the sums of the dialect's, by the table.
            table = GATEWAY_USAGE[gateway_of]
            full = exp.get("usage_all") or {}
            want = {}
            for k, parts in table.items():
                vals = [full.get(x) for x in parts]
                nums = [v for v in vals if isinstance(v, int)]
                want[k] = sum(nums) if nums else None
            u = {k: u.get(k) for k in table} if isinstance(u, dict) else u
        else:
            u = {k: u.get(k) for k in keys} if isinstance(u, dict) else u
            want = {k: exp["usage"].get(k) for k in keys}
        if exp["dialect"] == "gemini" and isinstance(u, dict) and isinstance(want, dict):
            # Gemini's JSON leaves a zero count out (proto3's JSON mapping
            # omits default values): a chunk with no candidatesTokenCount
            # counted none, and a client that reports 0 for it (the Vercel
            # AI SDK's convertGoogleUsage: `candidatesTokenCount ?? 0`)
            # reports what the server meant.
            u = {k: 0 if v is None else v for k, v in u.items()}
            want = {k: 0 if v is None else v for k, v in want.items()}
        if u != want:
            minor.append(f"usage {short(u)}")
    if diffs:
        return with_requests({"verdict": "differs", "detail": scrub("; ".join(diffs + minor))}, got)
    if minor:
        return with_requests({"verdict": "diverges", "detail": scrub("; ".join(minor))}, got)
    return with_requests({"verdict": "ok"}, got)


def with_requests(outcome, got):
    """An agent app's outcome with the number of requests it sent to the
    streaming endpoint (counted at the relay in front of the replay)."""
    if "requests" in got:
        outcome["requests"] = got["requests"]
    return outcome


def run_clients(runtime, jobs, tmp):
    jobs_file = Path(tmp) / f"jobs-{runtime}.json"
    jobs_file.write_text(json.dumps(jobs), encoding="utf-8")
    if runtime == "python":
        cmd = [sys.executable, str(CLIENTS_DIR / "py_clients.py"), str(jobs_file)]
    elif runtime == "agent":
        cmd = [sys.executable, str(CLIENTS_DIR / "agent_clients.py"), str(jobs_file)]
    elif runtime == "gateway":
        cmd = [str(CLIENTS_DIR / ".venv-litellm" / "bin" / "python"), str(CLIENTS_DIR / "gateway_clients.py"), str(jobs_file)]
    else:
        cmd = [str(CLIENTS_DIR / "node_modules" / ".bin" / "node"), str(CLIENTS_DIR / "node_clients.mjs"), str(jobs_file)]
    env = dict(os.environ, NO_PROXY="*", no_proxy="*")
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        env.pop(k, None)
    # The SDKs read their key, base URL and options from these; the harness
    # passes its own. LangChain would send traces to LangSmith when told to.
    for k in [k for k in env if k.startswith(("OPENAI_", "ANTHROPIC_", "LANGCHAIN_", "LANGSMITH_", "GOOGLE_", "GEMINI_", "OLLAMA_", "AWS_"))]:
        env.pop(k)
    # The AWS SDKs get their credentials and region from the harness, and
    # read no profile, config file or instance metadata of the machine.
    env.update(AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull, AWS_EC2_METADATA_DISABLED="true")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=CLIENTS_DIR)
    if out.returncode != 0:
        sys.exit(f"clients/run.py: the {runtime} clients failed (exit {out.returncode}):\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)


def run_gateway(jobs, tmp):
    """The gateway's outcomes for `jobs`, as run_clients gives them, each
    call that hit its time bound (gateway_clients.py's HARD_LIMIT_S) run
    once more in a fresh process, the second outcome kept.

    LiteLLM 1.106.12 was seen, now and then, to wait forever on a Messages
    stream the replay had sent whole and closed, and not on the next run of
    the same capture; the thread left waiting holds LiteLLM's locks, so that
    every call after it in the same process waited too. That is LiteLLM's
    own hang, not what a stream's shape does to it. gateway_clients.py stops
    at a call that timed out; this goes on with the rest in a fresh process,
    then runs each timed-out call again, alone in a fresh process. A call
    that hits the bound again is kept as it is (`raised`, Timeout): a hang
    that reproduces counts as any raise."""
    gateway = {n for n, (rt, _, _) in CLIENTS.items() if rt == "gateway"}

    def run_all(todo, tag):
        results, n = {}, 0
        while todo:
            d = Path(tmp) / f"gateway-{tag}-{n}"
            d.mkdir(exist_ok=True)
            n += 1
            got = run_clients("gateway", todo, d)
            for k, v in got.items():
                results.setdefault(k, {}).update(v)
            left = []
            for j in todo:
                names = [c for c in j["clients"] if c in gateway and c not in results.get(j["id"], {})]
                if names:
                    left.append({**j, "clients": names})
            if len(left) == sum(1 for j in todo if any(c in gateway for c in j["clients"])) and not got:
                sys.exit("clients/run.py: the gateway ran no call")
            todo = left
        return results

    results = run_all(jobs, "first")
    for job in jobs:
        for name, out in list(results.get(job["id"], {}).items()):
            if isinstance(out, dict) and (out.get("error") or {}).get("type") == "Timeout":
                again = run_all([{**job, "clients": [name]}], f"retry-{len(os.listdir(tmp))}")
                got = again.get(job["id"], {}).get(name)
                if got is not None:
                    results[job["id"]][name] = got
    return results


def versions():
    """Pinned versions, read from what is installed."""
    v = {}
    py = subprocess.run(
        [sys.executable, "-c", "import importlib.metadata as m; import json; print(json.dumps({p: m.version(p) for p in ['openai','langchain-openai','langchain-anthropic','anthropic','google-genai','ollama','boto3','botocore','websockets']}))"],
        capture_output=True,
        text=True,
    )
    pyv = json.loads(py.stdout)
    lock = json.loads((CLIENTS_DIR / "package-lock.json").read_text())["packages"]
    nodev = {k.split("node_modules/")[-1]: e.get("version") for k, e in lock.items() if k.startswith("node_modules/") and k.count("node_modules/") == 1}
    v["openai-python"] = f"openai {pyv['openai']}"
    v["openai-python-stream"] = v["openai-python"]
    v["langchain"] = f"langchain-openai {pyv['langchain-openai']}"
    v["openai-node"] = f"openai {nodev.get('openai')} (Node {nodev.get('node')})"
    v["openai-node-stream"] = v["openai-node"]
    v["vercel-ai"] = f"ai {nodev.get('ai')}, @ai-sdk/openai-compatible {nodev.get('@ai-sdk/openai-compatible')}"
    v["hand-written"] = f"Node {nodev.get('node')} fetch"
    v["openai-python-responses"] = v["openai-python"]
    v["openai-python-responses-stream"] = v["openai-python"]
    v["openai-node-responses"] = v["openai-node"]
    v["openai-node-responses-stream"] = v["openai-node"]
    v["openai-python-responses-ws"] = f"openai {pyv['openai']} (websockets {pyv['websockets']})"
    v["openai-node-responses-ws"] = f"openai {nodev.get('openai')} (ws {nodev.get('ws')}, Node {nodev.get('node')})"
    v["openai-python-realtime"] = v["openai-python-responses-ws"]
    v["openai-node-realtime"] = v["openai-node-responses-ws"]
    v["anthropic-python"] = f"anthropic {pyv['anthropic']}"
    v["anthropic-python-stream"] = v["anthropic-python"]
    v["anthropic-ts"] = f"@anthropic-ai/sdk {nodev.get('@anthropic-ai/sdk')} (Node {nodev.get('node')})"
    v["anthropic-ts-stream"] = v["anthropic-ts"]
    v["vercel-ai-responses"] = f"ai {nodev.get('ai')}, @ai-sdk/openai {nodev.get('@ai-sdk/openai')}"
    v["vercel-ai-messages"] = f"ai {nodev.get('ai')}, @ai-sdk/anthropic {nodev.get('@ai-sdk/anthropic')}"
    v["langchain-responses"] = f"langchain-openai {pyv['langchain-openai']}"
    v["langchain-messages"] = f"langchain-anthropic {pyv['langchain-anthropic']}"
    v["google-genai"] = f"google-genai {pyv['google-genai']}"
    v["google-genai-js"] = f"@google/genai {nodev.get('@google/genai')} (Node {nodev.get('node')})"
    v["vercel-ai-google"] = f"ai {nodev.get('ai')}, @ai-sdk/google {nodev.get('@ai-sdk/google')}"
    v["ollama-python"] = f"ollama {pyv['ollama']}"
    v["ollama-js"] = f"ollama {nodev.get('ollama')} (Node {nodev.get('node')})"
    v["vercel-ai-ollama"] = f"ai {nodev.get('ai')}, ollama-ai-provider-v2 {nodev.get('ollama-ai-provider-v2')}"
    v["boto3-converse"] = f"boto3 {pyv['boto3']} (botocore {pyv['botocore']})"
    v["boto3-invoke"] = v["boto3-converse"]
    v["aws-sdk-js-converse"] = f"@aws-sdk/client-bedrock-runtime {nodev.get('@aws-sdk/client-bedrock-runtime')} (Node {nodev.get('node')})"
    v["aws-sdk-js-invoke"] = v["aws-sdk-js-converse"]
    v["anthropic-python-bedrock"] = f"anthropic {pyv['anthropic']} (AnthropicBedrock, botocore {pyv['botocore']})"
    v["vercel-ai-bedrock"] = f"ai {nodev.get('ai')}, @ai-sdk/amazon-bedrock {nodev.get('@ai-sdk/amazon-bedrock')}"
    v["vercel-ai-bedrock-invoke"] = v["vercel-ai-bedrock"]
    agents = json.loads((CLIENTS_DIR / "agents" / "package-lock.json").read_text())["packages"]
    agentv = {k.split("node_modules/")[-1]: e.get("version") for k, e in agents.items() if k.startswith("node_modules/")}
    v["claude-code"] = f"@anthropic-ai/claude-code {agentv.get('@anthropic-ai/claude-code')}"
    v["codex"] = f"@openai/codex {agentv.get('@openai/codex')}"
    if GATEWAY_PYTHON.exists():
        gw = subprocess.run([str(GATEWAY_PYTHON), "-c", "import importlib.metadata as m; print(m.version('litellm'))"], capture_output=True, text=True)
        lite = f"litellm {gw.stdout.strip()}"
    else:
        lite = next((c["version"] for c in RECORDED.get("clients", []) if c["name"] == "litellm-chat"), "litellm (not installed)")
    for _n in ("litellm-chat", "litellm-messages", "litellm-gemini"):
        v[_n] = lite
    v["gemini-cli"] = f"@google/gemini-cli {agentv.get('@google/gemini-cli')} (Node {nodev.get('node')})"
    for _n in ("opencode-chat", "opencode-responses", "opencode-messages"):
        v[_n] = f"opencode-ai {agentv.get('opencode-ai')}"
    return v


# run.py's exit code when the installed clients are not the pinned ones
# (tests/clients.rs says SKIPPED then, and fails under CI=true).
STALE_INSTALL = 3


def unpinned():
    """The pins of clients/requirements.txt and clients/package.json that
    are not what is installed (`name==want (installed: have)`): a venv or
    node_modules made before a client was added or upgraded."""
    import importlib.metadata as md

    wrong = []
    for line in (CLIENTS_DIR / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if "==" not in line:
            continue
        name, want = (x.strip() for x in line.split("==", 1))
        try:
            have = md.version(name)
        except md.PackageNotFoundError:
            have = None
        if have != want:
            wrong.append(f"{name}=={want} (installed: {have or 'none'})")
    deps = json.loads((CLIENTS_DIR / "package.json").read_text(encoding="utf-8"))["dependencies"]
    for name, want in deps.items():
        meta = CLIENTS_DIR / "node_modules" / name / "package.json"
        have = json.loads(meta.read_text(encoding="utf-8")).get("version") if meta.exists() else None
        if have != want:
            wrong.append(f"npm {name}@{want} (installed: {have or 'none'})")
    return wrong


# Bedrock Invoke clients that ask for Claude and read only its events (the
# Anthropic SDK's Bedrock client, the AI SDK's Anthropic provider): an
# application with another inner model would not use them.
CLAUDE_ONLY = {"anthropic-python-bedrock", "vercel-ai-bedrock-invoke"}


def invoke_carries_claude(path):
    """False when `path` is a Bedrock Invoke event stream whose first
    `chunk`'s decoded bytes are not an Anthropic Messages event (no `type`:
    Titan, Llama, Mistral, Nova); True otherwise."""
    raw = Path(path).read_bytes()
    at = raw.find(b'{"bytes":"')
    if at < 0:
        return True
    end = raw.find(b'"', at + 10)
    try:
        inner = json.loads(base64.b64decode(raw[at + 10 : end]))
    except ValueError:
        return True
    return not isinstance(inner, dict) or "type" in inner


def observe(sselint, only=None, agents_subset=None):
    """The record of a fresh run. With `agents_subset` (a set of capture
    ids), the agent apps read only those captures; on the others their
    outcomes are carried over from the committed record."""
    old = RECORDED
    with tempfile.TemporaryDirectory(prefix="sselint-harness-") as tmp:
        items = [it for it in corpus(tmp) if only is None or only in it[0]]
        expected = {}
        for cid, p, dialect in items:
            expected[cid] = expected_answer(sselint, p, dialect)
            if expected[cid] is not None and cid in MEANT:
                expected[cid]["text"] = MEANT[cid]
        items = [it for it in items if expected[it[0]] is not None]
        captures = {}
        # Batches keep the number of replay processes modest. A capture whose
        # request path names another dialect than its body's
        # (`path-dialect-mismatch`) is also served at that path, to that
        # dialect's clients: they are what an application that called the
        # path reads the body with.
        for start in range(0, len(items), 60):
            batch = items[start : start + 60]
            served = [(cid, p, d) for cid, p, d in batch]
            served += [
                (PATH_JOB + cid, p, expected[cid]["path_dialect"])
                for cid, p, _ in batch
                if expected[cid]["path_dialect"]
            ]
            replays = Replays(sselint, served)
            try:
                jobs = [
                    {
                        "id": key,
                        # OpenAI's SDKs take the API root, Anthropic's the origin.
                        "base_url": replays.urls[key] + "/v1",
                        "origin": replays.urls[key],
                        "tools": sorted({t["name"] or "" for t in expected[cid]["tool_calls"]}),
                        # Ollama's endpoint: `chat` or `generate`.
                        "api": expected[cid]["api"],
                        # A socket's script (socket_script).
                        "socket": expected[cid].get("socket"),
                        "clients": [
                            n for n in clients_of(d if key != cid else expected[cid]["dialect"])
                            if n not in CLAUDE_ONLY or invoke_carries_claude(p)
                        ],
                    }
                    for key, p, d in served
                    for cid in [key.removeprefix(PATH_JOB)]
                    if key in replays.urls
                ]
                results = {}
                runtimes = ("python", "node", "agent", "gateway")

                def go(rt):
                    mine = jobs
                    if rt == "agent":
                        # The agent apps read what --agents-subset leaves them.
                        mine = [
                            j for j in jobs
                            if agents_subset is None or j["id"].removeprefix(PATH_JOB) in agents_subset
                        ]
                        mine = [j for j in mine if any(CLIENTS[n][0] == "agent" for n in j["clients"])]
                    elif rt == "gateway":
                        mine = [j for j in jobs if any(CLIENTS[n][0] == "gateway" for n in j["clients"])]
                        if not GATEWAY_PYTHON.exists():
                            mine = []
                    if rt == "gateway":
                        results[rt] = run_gateway(mine, tmp) if mine else {}
                    else:
                        results[rt] = run_clients(rt, mine, tmp) if mine else {}

                threads = [threading.Thread(target=go, args=(rt,)) for rt in runtimes]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                if set(results) != set(runtimes):
                    sys.exit("clients/run.py: a client runtime failed")
            finally:
                replays.close()
            for job in jobs:
                key = job["id"]
                cid = key.removeprefix(PATH_JOB)
                got = {**results["python"].get(key, {}), **results["node"].get(key, {}), **results["agent"].get(key, {}), **results["gateway"].get(key, {})}
                exp = expected[cid]
                cap = captures.setdefault(
                    cid,
                    {"expected": {k: exp[k] for k in (("responses",) if exp["dialect"] in SOCKETS else ("text", "tool_calls", "finish_reason"))}, "clients": {}},
                )
                outcomes = {}
                for name in job["clients"]:
                    skip = CLIENTS[name][0] == "agent" and agents_subset is not None and cid not in agents_subset
                    skip |= CLIENTS[name][0] == "gateway" and not GATEWAY_PYTHON.exists()
                    if skip:
                        # Not run this time: what the record holds.
                        kept = old["captures"].get(cid, {}).get("clients", {}).get(name)
                        if kept is not None:
                            outcomes[name] = kept
                        continue
                    outcomes[name] = (compare_socket if exp["dialect"] in SOCKETS else compare)(name, exp, got.get(name))
                if key == cid:
                    # The body's own clients first: the capture's dialect is
                    # its first client's (agreement.py, counts()).
                    cap["clients"] = {**outcomes, **cap["clients"]}
                else:
                    cap["clients"].update(outcomes)
        v = versions()
        return {
            "about": "What real clients did with each capture of the corpus, replayed by `sselint replay`. Regenerate with clients/run.py; see clients/README.md.",
            "clients": [
                {"name": name, "dialect": dialect, "family": FAMILY[name], "how": how, "version": v[name]}
                for name, (_, dialect, how) in CLIENTS.items()
            ],
            "captures": captures,
        }


def counts(record):
    """`306 chat captures x 7 clients, …`, for the closing line."""
    dialect = {c["name"]: c["dialect"] for c in record["clients"]}
    per = {}
    for c in record["captures"].values():
        d = dialect[next(iter(c["clients"]))] if c["clients"] else "chat"
        per[d] = per.get(d, 0) + 1
    return ", ".join(
        f"{per[d]} {d} capture{'s' if per[d] != 1 else ''} x {len(clients_of(d))} clients" for d in DIALECTS if d in per
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sselint", default=str(ROOT / "target" / "debug" / "sselint"), help="the sselint binary")
    ap.add_argument("--check", action="store_true", help="compare a fresh run with rules/observed.json")
    ap.add_argument("--only", help="only captures whose id contains this; prints the observations")
    ap.add_argument(
        "--agents-subset",
        nargs="?",
        const=str(AGENTS_SUBSET),
        metavar="FILE",
        help="run the agent apps on the captures of FILE only (default clients/agents-subset.txt, CI); elsewhere keep their recorded outcomes",
    )
    ap.add_argument("--no-agents", action="store_true", help="run no agent app; keep their recorded outcomes")
    args = ap.parse_args()
    if not Path(args.sselint).exists():
        sys.exit(f"clients/run.py: no sselint binary at {args.sselint} (cargo build, or pass --sselint)")
    stale = unpinned()
    if stale:
        print(
            "clients/run.py: the installed clients are not the pinned ones: " + "; ".join(stale)
            + ". Install them: clients/.venv/bin/pip install -r clients/requirements.txt; (cd clients && npm ci)",
            file=sys.stderr,
        )
        return STALE_INSTALL
    subset = None
    if args.agents_subset:
        # A line is a capture id and, after a space, why it is there;
        # lines that start with `#` are comments.
        lines = Path(args.agents_subset).read_text(encoding="utf-8").splitlines()
        subset = {l.split()[0] for l in lines if l.strip() and not l.startswith("#")}
    if args.no_agents:
        subset = set()
    record = observe(args.sselint, args.only, subset)
    if args.only and not record["captures"]:
        sys.exit(f"clients/run.py: no capture id contains {args.only!r} (ids look like rules/chat/NAME.toml#K or samples/…)")
    text = json.dumps(record, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
    if args.only:
        print(text)
        return 0
    if args.check:
        old = RECORD.read_text(encoding="utf-8") if RECORD.exists() else ""
        if old == text:
            print(f"clients/run.py: {counts(record)} match rules/observed.json")
            return 0
        import difflib

        diff = difflib.unified_diff(old.splitlines(), text.splitlines(), "rules/observed.json", "fresh run", lineterm="", n=2)
        sys.stdout.write("\n".join(list(diff)[:400]) + "\n")
        print("clients/run.py: the clients no longer do what rules/observed.json records; review the diff, then run clients/run.py to update it")
        return 1
    tmp = RECORD.with_suffix(".json.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(RECORD)
    print(f"clients/run.py: wrote {RECORD.relative_to(ROOT)} ({counts(record)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
