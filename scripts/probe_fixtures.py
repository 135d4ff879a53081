#!/usr/bin/env python3
"""Writes the scenario capture sets `sselint replay DIR` serves to the
`sselint probe` tests: tests/fixtures/probe/good/{chat,responses,messages,gemini,
ollama,bedrock-converse,bedrock-invoke}/ (every scenario answered well:
SSE, Ollama's NDJSON lines, Bedrock's AWS event-stream frames) and
tests/fixtures/probe/broken/chat/ (one
file per fault of issue 15, each replacing the good set's file of that
name). Some good streams are copies of samples/good/; the rest are built
here in the same shapes. Run from the repository root:

    python3 scripts/probe_fixtures.py
"""

import base64
import json
import os
import shutil
import struct
import zlib

ROOT = os.path.join("tests", "fixtures", "probe")
CREATED = 1700000000


def sse(events):
    """events: list of (event name or None, data object or string)."""
    out = []
    for name, data in events:
        if name:
            out.append(f"event: {name}\n")
        text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
        out.append(f"data: {text}\n\n")
    return "".join(out)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# ---------------------------------------------------------------- chat


def chunk(choices, cid="chatcmpl-probe0001", usage=None, with_usage=False):
    c = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": "gpt-4o-mini-2024-07-18",
        "system_fingerprint": "fp_probe",
        "choices": choices,
    }
    if with_usage:
        c["usage"] = usage
    return (None, c)


def choice(index, delta, finish=None):
    return {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}


def chat_text(pieces, finish="stop", usage=False, n=1, cid="chatcmpl-probe0001"):
    ev = []
    for i in range(n):
        ev.append(chunk([choice(i, {"role": "assistant", "content": ""})], cid, with_usage=usage))
    for p in pieces:
        for i in range(n):
            ev.append(chunk([choice(i, {"content": p})], cid, with_usage=usage))
    for i in range(n):
        ev.append(chunk([choice(i, {}, finish)], cid, with_usage=usage))
    if usage:
        out = sum(len(p.split()) or 1 for p in pieces) * n
        ev.append(chunk([], cid, {"prompt_tokens": 14, "completion_tokens": out, "total_tokens": 14 + out}, True))
    ev.append((None, "[DONE]"))
    return sse(ev)


HELLO = ["Hello", "!", " Nice", " to", " meet", " you", "."]
COUNT = ["One", ",", " two", ",", " three", ",", " four", ",", " five"]
LONG = []
for w in "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty".split():
    LONG += [(" " if LONG else "") + w, ","]
LONG[-1] = "."


def chat_tool(calls, finish="tool_calls"):
    """calls: list of (index, id, name, [argument fragments])."""
    ev = [chunk([choice(0, {"role": "assistant", "content": None})])]
    for index, cid, name, frags in calls:
        ev.append(chunk([choice(0, {"tool_calls": [{"index": index, "id": cid, "type": "function", "function": {"name": name, "arguments": ""}}]})]))
        for f in frags:
            ev.append(chunk([choice(0, {"tool_calls": [{"index": index, "function": {"arguments": f}}]})]))
    ev.append(chunk([choice(0, {}, finish)]))
    ev.append((None, "[DONE]"))
    return sse(ev)


def chat_reasoning():
    ev = [chunk([choice(0, {"role": "assistant", "content": ""})])]
    for p in ["The user wants", " a greeting", "."]:
        ev.append(chunk([choice(0, {"reasoning_content": p})]))
    for p in HELLO:
        ev.append(chunk([choice(0, {"content": p})]))
    ev.append(chunk([choice(0, {}, "stop")]))
    ev.append((None, "[DONE]"))
    return sse(ev)


def openai_error(message, kind="invalid_request_error", param=None):
    return json.dumps({"error": {"message": message, "type": kind, "param": param, "code": None}}, indent=2) + "\n"


def chat_good(d):
    shutil.copy("samples/good/openai-basic.sse", f"{d}/plain.sse")
    shutil.copy("samples/good/openai-usage.sse", f"{d}/usage.sse")
    shutil.copy("samples/providers/openai-n2.sse", f"{d}/n2.sse")
    shutil.copy("samples/good/openai-tool-calls.sse", f"{d}/parallel-tools.sse")
    write(f"{d}/length.sse", chat_text(COUNT[:5], "length"))
    write(f"{d}/stop.sse", chat_text(["One"], "stop"))
    write(f"{d}/tool.sse", chat_tool([(0, "call_probe01", "get_weather", ['{"ci', 'ty": "Pa', 'ris"}'])]))
    write(f"{d}/json.sse", chat_text(['{"greeting"', ': "hello"', "}"]))
    write(f"{d}/long.sse", chat_text(LONG))
    write(f"{d}/reasoning.sse", chat_reasoning())
    write(f"{d}/invalid.json", openai_error("Invalid type for 'messages': expected an array, but got an integer instead.", param="messages"))


def chat_broken(d):
    # usage asked (stream_options.include_usage) and no usage chunk.
    write(f"{d}/usage.sse", chat_text(HELLO, "stop"))
    # n: 2 asked, one choice answered.
    write(f"{d}/n2.sse", chat_text(HELLO, "stop"))
    # Tool-call fragments that do not assemble to JSON.
    write(f"{d}/tool.sse", chat_tool([(0, "call_probe01", "get_weather", ['{"ci', 'ty": "Pa', 'ris"', '"unit": "c"}'])]))
    # Two parallel calls written under one index.
    write(f"{d}/parallel-tools.sse", chat_tool([
        (0, "call_probe01", "get_weather", ['{"city": ', '"Paris"}']),
        (0, "call_probe02", "get_time", ['{"city": ', '"Paris"}']),
    ]))
    # max_tokens cut the answer and no finish_reason says so.
    write(f"{d}/length.sse", sse([
        chunk([choice(0, {"role": "assistant", "content": ""})]),
        *[chunk([choice(0, {"content": p})]) for p in COUNT[:5]],
        (None, "[DONE]"),
    ]))
    # An invalid request answered with a 200 stream carrying an error.
    write(f"{d}/invalid.sse", sse([(None, json.loads(openai_error("Invalid type for 'messages': expected an array.", param="messages")))]))


# ---------------------------------------------------------------- responses


class Resp:
    def __init__(self, rid="resp_probe0001"):
        self.seq = 0
        self.ev = []
        self.rid = rid

    def add(self, kind, **fields):
        self.ev.append((kind, {"type": kind, "sequence_number": self.seq, **fields}))
        self.seq += 1

    def response(self, status, output, usage=None, incomplete=None):
        return {
            "id": self.rid, "object": "response", "created_at": CREATED, "status": status,
            "error": None, "incomplete_details": incomplete, "model": "gpt-4.1-mini-2025-04-14",
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "usage": usage, "instructions": None, "metadata": {}, "temperature": 1.0, "top_p": 1.0,
        }


def responses_text(pieces, status="completed", incomplete=None, reasoning=None):
    r = Resp()
    r.add("response.created", response=r.response("in_progress", []))
    r.add("response.in_progress", response=r.response("in_progress", []))
    output = []
    oi = 0
    if reasoning:
        rs = {"id": "rs_probe0001", "type": "reasoning", "summary": []}
        r.add("response.output_item.added", output_index=oi, item=rs)
        r.add("response.reasoning_summary_part.added", item_id=rs["id"], output_index=oi, summary_index=0, part={"type": "summary_text", "text": ""})
        for p in reasoning:
            r.add("response.reasoning_summary_text.delta", item_id=rs["id"], output_index=oi, summary_index=0, delta=p)
        text = "".join(reasoning)
        r.add("response.reasoning_summary_text.done", item_id=rs["id"], output_index=oi, summary_index=0, text=text)
        r.add("response.reasoning_summary_part.done", item_id=rs["id"], output_index=oi, summary_index=0, part={"type": "summary_text", "text": text})
        done = {**rs, "summary": [{"type": "summary_text", "text": text}]}
        r.add("response.output_item.done", output_index=oi, item=done)
        output.append(done)
        oi += 1
    mid = "msg_probe0001"
    item = {"id": mid, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
    r.add("response.output_item.added", output_index=oi, item=item)
    r.add("response.content_part.added", item_id=mid, output_index=oi, content_index=0, part={"type": "output_text", "annotations": [], "logprobs": [], "text": ""})
    for p in pieces:
        r.add("response.output_text.delta", item_id=mid, output_index=oi, content_index=0, delta=p, logprobs=[])
    text = "".join(pieces)
    part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
    r.add("response.output_text.done", item_id=mid, output_index=oi, content_index=0, text=text, logprobs=[])
    r.add("response.content_part.done", item_id=mid, output_index=oi, content_index=0, part=part)
    item_status = "completed" if status == "completed" else "incomplete"
    done = {**item, "status": item_status, "content": [part]}
    r.add("response.output_item.done", output_index=oi, item=done)
    output.append(done)
    out_tokens = len(pieces) + (len(reasoning) if reasoning else 0)
    usage = {"input_tokens": 14, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": out_tokens,
             "output_tokens_details": {"reasoning_tokens": len(reasoning) if reasoning else 0}, "total_tokens": 14 + out_tokens}
    terminal = "response.completed" if status == "completed" else "response.incomplete"
    r.add(terminal, response=r.response(status, output, usage, incomplete))
    return sse(r.ev)


def responses_good(d):
    write(f"{d}/plain.sse", responses_text(HELLO))
    write(f"{d}/length.sse", responses_text(COUNT, "incomplete", {"reason": "max_output_tokens"}))
    shutil.copy("samples/good/responses-function-call.sse", f"{d}/tool.sse")
    write(f"{d}/json.sse", responses_text(['{"greeting"', ': "hello"', "}"]))
    write(f"{d}/long.sse", responses_text(LONG))
    write(f"{d}/reasoning.sse", responses_text(HELLO, reasoning=["The user wants", " a greeting."]))
    write(f"{d}/invalid.json", openai_error("Invalid type for 'input': expected a string or an array, but got an integer instead.", param="input"))


# ---------------------------------------------------------------- messages


def messages_text(pieces, stop_reason="end_turn", stop_sequence=None):
    ev = [
        ("message_start", {"type": "message_start", "message": {
            "id": "msg_01Probe0001", "type": "message", "role": "assistant", "content": [],
            "model": "claude-sonnet-4-5", "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 14, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ("ping", {"type": "ping"}),
    ]
    for p in pieces:
        ev.append(("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}))
    ev.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
    ev.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": stop_sequence}, "usage": {"output_tokens": len(pieces)}}))
    ev.append(("message_stop", {"type": "message_stop"}))
    return sse(ev)


def messages_good(d):
    write(f"{d}/plain.sse", messages_text(HELLO))
    write(f"{d}/length.sse", messages_text(COUNT[:5], "max_tokens"))
    write(f"{d}/stop.sse", messages_text(["One"], "stop_sequence", ","))
    shutil.copy("samples/good/messages-tool-use.sse", f"{d}/tool.sse")
    write(f"{d}/long.sse", messages_text(LONG))
    shutil.copy("samples/good/messages-thinking.sse", f"{d}/thinking.sse")
    write(f"{d}/invalid.json", json.dumps({"type": "error", "error": {"type": "invalid_request_error", "message": "messages: Input should be a valid list"}}, indent=2) + "\n")


# ---------------------------------------------------------------- gemini


def gemini_chunk(parts, finish=None, usage=None, index=0, extra=None):
    cand = {"content": {"parts": parts, "role": "model"}, "index": index}
    if finish:
        cand["finishReason"] = finish
    c = {"candidates": [cand]}
    if extra:
        c["candidates"] += extra
    if usage:
        c["usageMetadata"] = usage
    c["modelVersion"] = "gemini-2.5-flash"
    c["responseId"] = "Probe0001gemini"
    return (None, c)


def gemini_usage(out, thoughts=0):
    u = {"promptTokenCount": 9, "candidatesTokenCount": out, "totalTokenCount": 9 + out + thoughts}
    if thoughts:
        u["thoughtsTokenCount"] = thoughts
    return u


def gemini_text(pieces, finish="STOP", n=1, thought=None):
    ev = []
    if thought:
        ev.append(gemini_chunk([{"text": thought, "thought": True}], usage={"promptTokenCount": 9, "totalTokenCount": 9}))
    for i, p in enumerate(pieces):
        last = i == len(pieces) - 1
        others = [
            {"content": {"parts": [{"text": p}], "role": "model"}, "index": k, **({"finishReason": finish} if last else {})}
            for k in range(1, n)
        ]
        ev.append(gemini_chunk(
            [{"text": p}],
            finish if last else None,
            gemini_usage(len(pieces) * n, 7 if thought else 0) if last else {"promptTokenCount": 9, "totalTokenCount": 9},
            extra=others,
        ))
    return sse(ev).replace("\n\n", "\r\n\r\n")


def gemini_good(d):
    write(f"{d}/plain.sse", gemini_text(HELLO))
    write(f"{d}/length.sse", gemini_text(COUNT[:5], "MAX_TOKENS"))
    write(f"{d}/stop.sse", gemini_text(["One"]))
    write(f"{d}/tool.sse", sse([
        gemini_chunk([{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}], "STOP", gemini_usage(5)),
    ]).replace("\n\n", "\r\n\r\n"))
    write(f"{d}/n2.sse", gemini_text(HELLO, n=2))
    write(f"{d}/json.sse", gemini_text(['{"greeting"', ': "hello"', "}"]))
    write(f"{d}/long.sse", gemini_text(LONG))
    write(f"{d}/thinking.sse", gemini_text(HELLO, thought="**Greeting**\nThe user wants a greeting."))
    write(f"{d}/invalid.json", json.dumps({"error": {"code": 400, "message": "Invalid value at 'contents' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content), 42", "status": "INVALID_ARGUMENT"}}, indent=2) + "\n")


# ---------------------------------------------------------------- ollama


def ollama_chat(pieces, done_reason="stop", thinking=None, model="llama3.2"):
    """NDJSON lines of an /api/chat stream, the counts on the last."""
    lines = []
    t = 0

    def line(message, **extra):
        nonlocal t
        t += 21
        obj = {"model": model, "created_at": f"2026-01-02T03:04:05.{t:03d}Z",
               "message": {"role": "assistant", "content": "", **message}, "done": False}
        obj.update(extra)
        lines.append(json.dumps(obj, separators=(",", ":")))

    for th in thinking or []:
        line({"thinking": th})
    for p in pieces:
        line({"content": p})
    line({}, done=True, done_reason=done_reason, total_duration=512000000, load_duration=900000,
         prompt_eval_count=14, prompt_eval_duration=40000000, eval_count=len(pieces),
         eval_duration=200000000)
    return "".join(x + "\n" for x in lines)


def ollama_good(d):
    write(f"{d}/plain.ndjson", ollama_chat(HELLO))
    write(f"{d}/length.ndjson", ollama_chat(COUNT[:5], "length"))
    write(f"{d}/stop.ndjson", ollama_chat(["One"]))
    shutil.copy("samples/good/ollama-chat-tool.ndjson", f"{d}/tool.ndjson")
    write(f"{d}/long.ndjson", ollama_chat(LONG))
    write(f"{d}/thinking.ndjson", ollama_chat(HELLO, thinking=["The user", " greets me."], model="qwen3:8b"))
    write(f"{d}/invalid.json", json.dumps({"error": "json: cannot unmarshal number into Go struct field ChatRequest.messages of type []api.Message"}, indent=2) + "\n")


# ---------------------------------------------------------------- bedrock


def frame(headers, payload):
    """One AWS event-stream frame: string headers, payload bytes, both CRCs."""
    h = b""
    for name, value in headers:
        n, v = name.encode(), value.encode()
        h += bytes([len(n)]) + n + b"\x07" + struct.pack(">H", len(v)) + v
    total = 16 + len(h) + len(payload)
    prelude = struct.pack(">II", total, len(h))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + h + payload
    return body + struct.pack(">I", zlib.crc32(body))


PAD = "abcdefghijklmnopqrstuvwxyz"


def event_frame(kind, obj, i):
    """A Bedrock event frame, with the `p` padding real events carry."""
    obj = dict(obj, p=PAD[: 1 + (i * 7) % 20])
    return frame([(":event-type", kind), (":content-type", "application/json"), (":message-type", "event")],
                 json.dumps(obj, separators=(",", ":")).encode())


def converse(pieces, stop_reason="end_turn", reasoning=None):
    ev = [("messageStart", {"role": "assistant"})]
    block = 0
    if reasoning:
        for r in reasoning:
            ev.append(("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": r}}}))
        ev.append(("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "EqQBCgIYAhIMProbeSignature0001"}}}))
        ev.append(("contentBlockStop", {"contentBlockIndex": 0}))
        block = 1
    for p in pieces:
        ev.append(("contentBlockDelta", {"contentBlockIndex": block, "delta": {"text": p}}))
    ev.append(("contentBlockStop", {"contentBlockIndex": block}))
    ev.append(("messageStop", {"stopReason": stop_reason}))
    out = len(pieces) + len(reasoning or [])
    ev.append(("metadata", {"usage": {"inputTokens": 14, "outputTokens": out, "totalTokens": 14 + out},
                            "metrics": {"latencyMs": 420}}))
    return b"".join(event_frame(k, o, i) for i, (k, o) in enumerate(ev))


def write_bytes(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def converse_good(d):
    write_bytes(f"{d}/plain.bin", converse(HELLO))
    write_bytes(f"{d}/length.bin", converse(COUNT[:5], "max_tokens"))
    write_bytes(f"{d}/stop.bin", converse(["One"], "stop_sequence"))
    shutil.copy("samples/good/bedrock-converse.bin", f"{d}/tool.bin")
    write_bytes(f"{d}/long.bin", converse(LONG))
    write_bytes(f"{d}/thinking.bin", converse(HELLO, reasoning=["The user", " greets me."]))
    write(f"{d}/invalid.json", json.dumps({"message": "1 validation error detected: Value at 'messages' failed to satisfy constraint: Member must be a list"}, indent=2) + "\n")


def sse_events(path):
    """(event name, data object) of each event of an SSE file."""
    out = []
    with open(path, encoding="utf-8") as f:
        for block in f.read().replace("\r\n", "\n").split("\n\n"):
            name, data = None, []
            for line in block.split("\n"):
                if line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip(" "))
            if data:
                out.append((name, json.loads("\n".join(data))))
    return out


def invoke(events):
    """Claude's Messages events as Invoke `chunk` frames, the last with
    Bedrock's invocation metrics (its counts those the events report)."""
    events = [o for _, o in events if o.get("type") != "ping"]
    usage_in = next(o["message"]["usage"]["input_tokens"] for o in events if o["type"] == "message_start")
    usage_out = [o["usage"]["output_tokens"] for o in events if o["type"] == "message_delta"][-1]
    last = events[-1]
    last["amazon-bedrock-invocationMetrics"] = {"inputTokenCount": usage_in, "outputTokenCount": usage_out,
                                                "invocationLatency": 980, "firstByteLatency": 310}
    frames = []
    for i, o in enumerate(events):
        raw = json.dumps(o, separators=(",", ":")).encode()
        frames.append(event_frame("chunk", {"bytes": base64.b64encode(raw).decode()}, i))
    return b"".join(frames)


def invoke_good(d):
    text = lambda pieces, *a: sse_events_of(messages_text(pieces, *a))
    write_bytes(f"{d}/plain.bin", invoke(text(HELLO)))
    write_bytes(f"{d}/length.bin", invoke(text(COUNT[:5], "max_tokens")))
    write_bytes(f"{d}/stop.bin", invoke(text(["One"], "stop_sequence", ",")))
    shutil.copy("samples/good/bedrock-invoke.bin", f"{d}/tool.bin")
    write_bytes(f"{d}/long.bin", invoke(text(LONG)))
    write_bytes(f"{d}/thinking.bin", invoke(sse_events("samples/good/messages-thinking.sse")))
    write(f"{d}/invalid.json", json.dumps({"message": "messages: Input should be a valid list"}, indent=2) + "\n")


def sse_events_of(text):
    """sse_events of SSE text."""
    path = os.path.join(ROOT, ".events.sse")
    write(path, text)
    try:
        return sse_events(path)
    finally:
        os.remove(path)


def main():
    for sub in ["good/chat", "good/responses", "good/messages", "good/gemini", "good/ollama",
                "good/bedrock-converse", "good/bedrock-invoke", "broken/chat"]:
        d = os.path.join(ROOT, sub)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    chat_good(os.path.join(ROOT, "good/chat"))
    chat_broken(os.path.join(ROOT, "broken/chat"))
    responses_good(os.path.join(ROOT, "good/responses"))
    messages_good(os.path.join(ROOT, "good/messages"))
    gemini_good(os.path.join(ROOT, "good/gemini"))
    ollama_good(os.path.join(ROOT, "good/ollama"))
    converse_good(os.path.join(ROOT, "good/bedrock-converse"))
    invoke_good(os.path.join(ROOT, "good/bedrock-invoke"))


if __name__ == "__main__":
    main()
