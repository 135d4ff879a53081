#!/usr/bin/env python3
"""Writes WebSocket sessions of OpenAI's Responses API in WebSocket mode
from the documented shapes (shared reference transports.md §1: a client
`response.create` per turn, the SSE stream's events one per text message,
`stream_id` on a named lane), as sselint's message log (one JSON record a
line: direction, time, opcode, data) or as a Chrome HAR entry
(`_webSocketMessages`: type send/receive, time, opcode, data).

    scripts/ws_session.py log KIND      # a message log on stdout
    scripts/ws_session.py har           # samples/websocket/responses-two-turns.har

KIND names one of the sessions in SESSIONS. Ids and times are made up;
every response numbers its events from 0.
"""
import json
import sys

MODEL = "gpt-4.1-mini-2025-04-14"
T0 = 1798000000.0


def response(rid, status, output=(), usage=None):
    return {"id": rid, "object": "response", "created_at": 1798000000,
            "status": status, "error": None, "incomplete_details": None,
            "instructions": None, "model": MODEL, "output": list(output),
            "parallel_tool_calls": True, "temperature": 1.0,
            "tool_choice": "auto", "tools": [], "top_p": 1.0,
            "usage": usage, "metadata": {}}


USAGE = {"input_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
         "output_tokens": 8, "output_tokens_details": {"reasoning_tokens": 0},
         "total_tokens": 20}


def lane(ev, stream_id):
    if stream_id is not None:
        ev = dict(ev)
        ev["stream_id"] = stream_id
    return ev


def start(rid, stream_id=None):
    return [lane({"type": "response.created", "response": response(rid, "in_progress")}, stream_id),
            lane({"type": "response.in_progress", "response": response(rid, "in_progress")}, stream_id)]


def text_body(msg_id, parts, stream_id=None, index=0):
    text = "".join(parts)
    part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
    evs = [{"type": "response.output_item.added", "output_index": index,
            "item": {"id": msg_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}},
           {"type": "response.content_part.added", "item_id": msg_id, "output_index": index, "content_index": 0, "part": part}]
    for p in parts:
        evs.append({"type": "response.output_text.delta", "item_id": msg_id, "output_index": index,
                    "content_index": 0, "delta": p, "logprobs": []})
    done_part = dict(part, text=text)
    item = {"id": msg_id, "type": "message", "status": "completed", "content": [done_part], "role": "assistant"}
    evs += [{"type": "response.output_text.done", "item_id": msg_id, "output_index": index, "content_index": 0, "text": text, "logprobs": []},
            {"type": "response.content_part.done", "item_id": msg_id, "output_index": index, "content_index": 0, "part": done_part},
            {"type": "response.output_item.done", "output_index": index, "item": item}]
    return [lane(e, stream_id) for e in evs], item


def tool_body(fc_id, call_id, name, parts, stream_id=None, index=0):
    args = "".join(parts)
    item = {"id": fc_id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": call_id, "name": name}
    evs = [{"type": "response.output_item.added", "output_index": index, "item": item}]
    for p in parts:
        evs.append({"type": "response.function_call_arguments.delta", "item_id": fc_id, "output_index": index, "delta": p})
    done = dict(item, status="completed", arguments=args)
    evs += [{"type": "response.function_call_arguments.done", "item_id": fc_id, "output_index": index, "name": name, "arguments": args},
            {"type": "response.output_item.done", "output_index": index, "item": done}]
    return [lane(e, stream_id) for e in evs], done


def completed(rid, items, stream_id=None):
    return lane({"type": "response.completed", "response": response(rid, "completed", items, USAGE)}, stream_id)


def numbered(evs):
    return [dict(e, sequence_number=i) for i, e in enumerate(evs)]


def turn(rid, body, stream_id=None):
    evs, item = body
    return numbered(start(rid, stream_id) + evs + [completed(rid, [item], stream_id)])


def create(stream_id=None, prev=None, inp="What is the weather in Paris?", tools=False):
    c = {"type": "response.create", "model": MODEL, "store": False, "input": inp}
    if stream_id is not None:
        c["stream_id"] = stream_id
    if prev is not None:
        c["previous_response_id"] = prev
    if tools:
        c["tools"] = [{"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]
    return c


def close(code, reason=""):
    return ("close", code, reason)


def two_turns():
    """A create with a tool; the model calls it; a second create sends the
    call's output; the model answers in text."""
    t1 = turn("resp_a1", tool_body("fc_b2", "call_c3", "get_weather", ['{"city"', ':"Paris"}']))
    t2 = turn("resp_d4", text_body("msg_e5", ["It is 18 ", "°C and sunny ", "in Paris."]))
    out = [("send", create(tools=True))] + [("receive", e) for e in t1]
    out.append(("send", create(prev="resp_a1", inp=[{"type": "function_call_output", "call_id": "call_c3", "output": "{\"temp_c\":18,\"sky\":\"sunny\"}"}], tools=True)))
    out += [("receive", e) for e in t2]
    return out


def cut(code=None):
    evs = numbered(start("resp_1") + text_body("msg_1", ["Hi", " there", "!"])[0][:4])
    out = [("send", create())] + [("receive", e) for e in evs]
    if code:
        out.append(close(code))
    return out


def full(code=None, with_create=True):
    out = [("send", create())] if with_create else []
    out += [("receive", e) for e in turn("resp_1", text_body("msg_1", ["Hi", " there", "!"]))]
    if code:
        out.append(close(code, "internal error" if code == 1011 else ""))
    return out


def refused():
    err = {"type": "error", "status": 400, "error": {"type": "invalid_request_error", "code": "previous_response_not_found",
           "message": "Previous response with id 'resp_gone' not found.", "param": "previous_response_id"}}
    return full() + [("send", create(prev="resp_gone", inp="and tomorrow?")), ("receive", err)]


def unparseable():
    out = full()
    return out[:4] + [("receive", "ping")] + out[4:]


def queued(overlap):
    """Two creates on the default lane at once; the second response starts
    after the first ends (queued), or before (overlap)."""
    first = numbered(start("resp_1"))
    first_end = numbered(start("resp_1") + [completed("resp_1", [])])[2:]
    second = turn("resp_2", text_body("msg_2", ["Hi", " there", "!"]))
    out = [("send", create()), ("send", create(inp="and tomorrow?"))]
    out += [("receive", e) for e in first]
    if overlap:
        out += [("receive", e) for e in second] + [("receive", e) for e in first_end]
    else:
        out += [("receive", e) for e in first_end] + [("receive", e) for e in second]
    return out


def lanes(collide):
    a = turn("resp_1", text_body("msg_1", ["Hi", " there", "!"], "a"), "a")
    b = turn("resp_1" if collide else "resp_2", text_body("msg_2", ["Bon", "jour", "!"], "b"), "b")
    out = [("send", create("a")), ("send", create("b", inp="Say hello in French."))]
    for x, y in zip(a, b):
        out += [("receive", x), ("receive", y)]
    return out


def rate_limits_between():
    """Codex's `codex.rate_limits` between two turns: no response's."""
    out = full()
    note = {"type": "codex.rate_limits", "primary": {"used_percent": 12.5, "window_minutes": 300}}
    return out + [("receive", note)] + [("send", create(prev="resp_1", inp="and tomorrow?"))] + [
        ("receive", e) for e in turn("resp_2", text_body("msg_2", ["Rain", "."]))]


def failed_inside():
    """An `error` inside a running response, then `response.failed`."""
    evs = start("resp_1") + text_body("msg_1", ["Hi"])[0][:3]
    err = {"type": "error", "status": 500, "error": {"type": "server_error", "code": "server_error", "message": "The server had an error."}}
    failed = {"type": "response.failed", "response": dict(response("resp_1", "failed"), error={"code": "server_error", "message": "The server had an error."})}
    return [("send", create())] + [("receive", e) for e in numbered(evs + [err, failed])]


def error_then(after):
    """An `error` inside the running response with nothing after it for
    that response (as over SSE, the error ends it), then `after`: a close
    with code 1011, or the next turn."""
    evs = start("resp_1") + text_body("msg_1", ["Hi"])[0][:3]
    err = {"type": "error", "status": 500, "error": {"type": "server_error", "code": "server_error", "message": "The server had an error."}}
    out = [("send", create())] + [("receive", e) for e in numbered(evs + [err])]
    if after == "close":
        return out + [close(1011, "internal error")]
    return out + [("send", create(inp="and tomorrow?"))] + [
        ("receive", e) for e in turn("resp_2", text_body("msg_2", ["Rain", "."]))]


def reused_id():
    """Two turns on the default lane, one after the other, whose responses
    have the same id."""
    return full() + [("send", create(inp="and tomorrow?"))] + [
        ("receive", e) for e in turn("resp_1", text_body("msg_2", ["Rain", "."]))] + [close(1000)]


SESSIONS = {
    "error-then-close": lambda: error_then("close"),
    "error-then-next": lambda: error_then("next"),
    "reused-id": reused_id,
    "rate-limits": rate_limits_between,
    "failed-inside": failed_inside,
    "two-turns": two_turns,
    "cut": lambda: cut(1006),
    "cut-no-close": lambda: cut(None),
    "full": lambda: full(1000),
    "close-1011": lambda: full(1011),
    "refused": refused,
    "unparseable": unparseable,
    "no-create": lambda: full(None, with_create=False),
    "queued": lambda: queued(False),
    "overlap": lambda: queued(True),
    "lanes": lambda: lanes(False),
    "collide": lambda: lanes(True),
}


def frames(session):
    """(type, time, opcode, data, code, reason) per message."""
    out = []
    for i, m in enumerate(session):
        t = round(T0 + 0.125 + i * 0.05, 3)
        if m[0] == "close":
            out.append(("close", t, 8, None, m[1], m[2]))
        else:
            data = m[1] if isinstance(m[1], str) else json.dumps(m[1], separators=(",", ":"), ensure_ascii=False)
            out.append((m[0], t, 1, data, None, None))
    return out


def log(session):
    lines = []
    for ty, t, op, data, code, reason in frames(session):
        rec = {"direction": "sent" if ty == "send" else "received", "time": t, "opcode": op}
        if op == 8:
            rec["code"] = code
            rec["reason"] = reason
        else:
            rec["data"] = data
        lines.append(json.dumps(rec, separators=(",", ":"), ensure_ascii=False))
    return "\n".join(lines) + "\n"


def har(session, url="wss://api.openai.com/v1/responses"):
    msgs = [{"type": ty, "time": t, "opcode": op, "data": data}
            for ty, t, op, data, code, reason in frames(session) if op != 8]
    entry = {
        "_resourceType": "websocket",
        "startedDateTime": "2026-12-07T10:00:00.000Z",
        "time": 1.2,
        "request": {"method": "GET", "url": url, "httpVersion": "HTTP/1.1",
                    "headers": [{"name": "Host", "value": "api.openai.com"},
                                {"name": "Upgrade", "value": "websocket"},
                                {"name": "Connection", "value": "Upgrade"},
                                {"name": "Sec-WebSocket-Key", "value": "dGhlIHNhbXBsZSBub25jZQ=="},
                                {"name": "Sec-WebSocket-Version", "value": "13"}],
                    "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
        "response": {"status": 101, "statusText": "Switching Protocols", "httpVersion": "HTTP/1.1",
                     "headers": [{"name": "Upgrade", "value": "websocket"},
                                 {"name": "Connection", "value": "Upgrade"},
                                 {"name": "Sec-WebSocket-Accept", "value": "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="}],
                     "cookies": [], "content": {"size": 0, "mimeType": "x-unknown"},
                     "redirectURL": "", "headersSize": -1, "bodySize": 0},
        "cache": {}, "timings": {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 1.2, "receive": 0},
        "_webSocketMessages": msgs,
    }
    return {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                    "pages": [], "entries": [entry]}}


if __name__ == "__main__":
    if sys.argv[1:2] == ["log"]:
        sys.stdout.write(log(SESSIONS[sys.argv[2]]()))
    elif sys.argv[1:2] == ["har"]:
        kind = sys.argv[2] if len(sys.argv) > 2 else "two-turns"
        sys.stdout.write(json.dumps(har(SESSIONS[kind]()), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.exit(__doc__)
